//! The JSON API: `GET /api/games` lists the games, `GET /api/solve` answers
//! with exactly the JSON `ply solve --json` prints. Every error is a JSON
//! object `{"error": "..."}` with a 4xx or 5xx status.

use super::Shared;
use super::sessions::OpenError;
use crate::error::PlyError;
use crate::registry;
use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};
use std::sync::Arc;

/// The longest game name the API reads.
const MAX_GAME_LEN: usize = 64;
/// The longest position the API reads.
const MAX_POSITION_LEN: usize = 4096;

/// An error answer: a status and one line saying what went wrong.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
}

impl ApiError {
    fn bad_request(message: impl Into<String>) -> Self {
        Self {
            status: StatusCode::BAD_REQUEST,
            message: message.into(),
        }
    }

    fn internal(message: impl Into<String>) -> Self {
        Self {
            status: StatusCode::INTERNAL_SERVER_ERROR,
            message: message.into(),
        }
    }
}

impl From<PlyError> for ApiError {
    fn from(err: PlyError) -> Self {
        match err {
            PlyError::Io(_) | PlyError::Database(_) => Self::internal(err.to_string()),
            _ => Self::bad_request(err.to_string()),
        }
    }
}

impl From<OpenError> for ApiError {
    fn from(err: OpenError) -> Self {
        match err {
            OpenError::Unknown(err) => err.into(),
            OpenError::Full => Self {
                status: StatusCode::SERVICE_UNAVAILABLE,
                message: "the server keeps as many games open as it may; use one already open"
                    .into(),
            },
        }
    }
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    error: &'a str,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        (
            self.status,
            Json(ErrorBody {
                error: &self.message,
            }),
        )
            .into_response()
    }
}

/// A built-in game as `GET /api/games` lists it.
#[derive(Serialize)]
struct GameInfo {
    /// The name before any `:PARAMS`.
    name: &'static str,
    /// One line on what the game is.
    summary: &'static str,
    /// The parameters it takes.
    variants: &'static str,
    /// The default variant's full name.
    game: String,
    /// The default variant's start position.
    start: String,
}

#[derive(Serialize)]
struct GameList {
    games: Vec<GameInfo>,
}

/// `GET /api/games`: every built-in game, its variants and start position.
pub async fn games(State(shared): State<Arc<Shared>>) -> Result<Response, ApiError> {
    let list = tokio::task::spawn_blocking(move || {
        let games = registry::GAMES
            .iter()
            .map(|entry| {
                let session = shared.sessions.get(entry.name)?;
                Ok(GameInfo {
                    name: entry.name,
                    summary: entry.summary,
                    variants: entry.variants,
                    game: session.name(),
                    start: session.start(),
                })
            })
            .collect::<Result<Vec<_>, ApiError>>()?;
        Ok::<_, ApiError>(GameList { games })
    })
    .await
    .map_err(|e| ApiError::internal(format!("listing the games failed: {e}")))??;
    Ok(Json(list).into_response())
}

/// The query of `GET /api/solve`.
#[derive(Deserialize)]
pub struct SolveQuery {
    /// The game, as `NAME` or `NAME:PARAMS`.
    game: String,
    /// The position; the game's start if absent.
    position: Option<String>,
}

/// `GET /api/solve?game=G&position=P`: the same JSON as `ply solve G P --json`.
pub async fn solve(
    State(shared): State<Arc<Shared>>,
    query: Result<Query<SolveQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let Query(query) = query.map_err(|e| ApiError::bad_request(e.body_text()))?;
    if query.game.len() > MAX_GAME_LEN {
        return Err(ApiError::bad_request(format!(
            "the game name is longer than {MAX_GAME_LEN} characters"
        )));
    }
    if query
        .position
        .as_ref()
        .is_some_and(|p| p.len() > MAX_POSITION_LEN)
    {
        return Err(ApiError::bad_request(format!(
            "the position is longer than {MAX_POSITION_LEN} characters"
        )));
    }
    let key = (query.game, query.position);
    if let Some(answer) = shared.answers.get(&key) {
        return Ok(json(answer));
    }
    let _permit = shared
        .solving
        .acquire()
        .await
        .map_err(|e| ApiError::internal(e.to_string()))?;
    // Another request may have answered the same query while this one waited.
    if let Some(answer) = shared.answers.get(&key) {
        return Ok(json(answer));
    }
    let worker = shared.clone();
    let (game, position) = key.clone();
    let answer = tokio::task::spawn_blocking(move || {
        let session = worker.sessions.get(&game)?;
        let report = session.solve(position.as_deref())?;
        let noted = crate::report::Noted {
            report: &report,
            notes: &session.notes(&report),
            source: session.source().map(|s| s.as_str()),
        };
        serde_json::to_vec(&noted)
            .map(Bytes::from)
            .map_err(|e| ApiError::internal(e.to_string()))
    })
    .await
    .map_err(|e| ApiError::internal(format!("the solve failed: {e}")))??;
    shared.answers.insert(key, answer.clone());
    Ok(json(answer))
}

/// Any other path: a JSON 404.
pub async fn not_found(uri: Uri) -> ApiError {
    ApiError {
        status: StatusCode::NOT_FOUND,
        message: format!("no such page: {}", uri.path()),
    }
}

fn json(body: Bytes) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}
