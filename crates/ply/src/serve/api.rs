//! The JSON API: `GET /api/games` lists the games, `GET /api/solve` answers
//! with exactly the JSON `ply solve --json` prints. Every error is a JSON
//! object `{"error": "..."}` with a 4xx or 5xx status.
//!
//! A solve runs on the blocking pool under a [`Budget`]: the server's search
//! time, and a flag set when the request is dropped (its client hung up or
//! its time ran out), so abandoned work stops. It holds a solve permit until
//! the work has stopped. Out of time, it answers 503 with `Retry-After`.

use super::Shared;
use super::sessions::OpenError;
use crate::error::{PlyError, excerpt};
use crate::registry;
use crate::report::Noted;
use axum::Json;
use axum::body::Bytes;
use axum::extract::rejection::QueryRejection;
use axum::extract::{Query, State};
use axum::http::{HeaderName, StatusCode, Uri, header};
use axum::response::{IntoResponse, Response};
use ply_core::{Budget, NoProgress};
use serde::{Deserialize, Serialize};
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

/// The longest game name the API reads.
const MAX_GAME_LEN: usize = 64;
/// The longest position the API reads.
const MAX_POSITION_LEN: usize = 4096;

/// An error answer: a status and one line saying what went wrong.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
    headers: Vec<(HeaderName, String)>,
}

/// Seconds a client is told to wait before asking again after a 503.
const RETRY_AFTER_SECONDS: u32 = 5;

impl ApiError {
    /// An error with `status` and `message`.
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
            headers: Vec::new(),
        }
    }

    /// 503 with `Retry-After`: the server cannot do this now or within its limits.
    pub fn busy(message: impl Into<String>) -> Self {
        Self::new(StatusCode::SERVICE_UNAVAILABLE, message)
            .with_header(header::RETRY_AFTER, &RETRY_AFTER_SECONDS.to_string())
    }

    /// The same error with one more header.
    pub fn with_header(mut self, name: HeaderName, value: &str) -> Self {
        self.headers.push((name, value.to_string()));
        self
    }

    fn bad_request(message: impl Into<String>) -> Self {
        Self::new(StatusCode::BAD_REQUEST, message)
    }

    fn internal(message: impl Into<String>) -> Self {
        Self::new(StatusCode::INTERNAL_SERVER_ERROR, message)
    }
}

impl From<PlyError> for ApiError {
    fn from(err: PlyError) -> Self {
        match err {
            PlyError::Io(_) | PlyError::Database(_) => Self::internal(err.to_string()),
            PlyError::Cancelled(_) => Self::busy(err.to_string()),
            _ => Self::bad_request(err.to_string()),
        }
    }
}

impl From<OpenError> for ApiError {
    fn from(err: OpenError) -> Self {
        match err {
            OpenError::Unknown(err) => err.into(),
            OpenError::TooLarge(message) => Self::busy(message),
        }
    }
}

#[derive(Serialize)]
struct ErrorBody<'a> {
    error: &'a str,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (
            self.status,
            Json(ErrorBody {
                error: &self.message,
            }),
        )
            .into_response();
        for (name, value) in self.headers {
            if let Ok(value) = value.parse() {
                response.headers_mut().insert(name, value);
            }
        }
        response
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
pub async fn games(State(_): State<Arc<Shared>>) -> Result<Response, ApiError> {
    let list = tokio::task::spawn_blocking(move || {
        let games = registry::GAMES
            .iter()
            .map(|entry| {
                // The default variant's name and start need no tables: open
                // it apart from the kept games, so the list never waits on
                // or is refused for their memory.
                let session = (entry.open)(None)?;
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
            "the game name '{}' is longer than {MAX_GAME_LEN} characters",
            excerpt(&query.game, MAX_GAME_LEN)
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
    let limit = shared.limits.solve_time();
    // One game may hold at most half the permits, so that requests for a
    // game that is slow to search never keep every other game waiting.
    let permit = tokio::time::timeout(limit, shared.permit(&key.0))
        .await
        .map_err(|_| {
            ApiError::busy(format!(
                "every solver stayed busy for {} s; try again later",
                limit.as_secs_f64()
            ))
        })?
        .map_err(|e| ApiError::internal(e.to_string()))?;
    // Another request may have answered the same query while this one waited.
    if let Some(answer) = shared.answers.get(&key) {
        return Ok(json(answer));
    }
    let worker = shared.clone();
    let (game, position) = key.clone();
    let stop = StopOnDrop(Arc::new(AtomicBool::new(false)));
    let flag = stop.0.clone();
    let answer = tokio::task::spawn_blocking(move || {
        // The permit is held until the work has stopped.
        let _permit = permit;
        let budget = Budget::new(&NoProgress).with_limit(limit).with_flag(flag);
        let session = worker.sessions.get(&game)?;
        let report = session
            .solve_within(position.as_deref(), &budget)
            .map_err(|e| match e {
                PlyError::Cancelled(_) => ApiError::busy(format!(
                    "this position needs a search longer than {} s, this server's limit; \
                     run `ply solve {}{}` on the command line",
                    limit.as_secs_f64(),
                    game,
                    position
                        .as_deref()
                        .map_or(String::new(), |p| format!(" '{}'", excerpt(p, 200)))
                )),
                e => e.into(),
            })?;
        let notes = session.notes(&report);
        serde_json::to_vec(&Noted {
            report: &report,
            notes: &notes,
            source: session.source().map(|s| s.as_str()),
        })
        .map(Bytes::from)
        .map_err(|e| ApiError::internal(e.to_string()))
    })
    .await
    .map_err(|e| ApiError::internal(format!("the solve failed: {e}")))??;
    drop(stop);
    shared.answers.insert(key, answer.clone());
    Ok(json(answer))
}

/// Sets its flag when dropped: when the request's future is dropped (its
/// client hung up, its time ran out) the work it started stops.
struct StopOnDrop(Arc<AtomicBool>);

impl Drop for StopOnDrop {
    fn drop(&mut self) {
        self.0.store(true, Ordering::Relaxed);
    }
}

/// Any other path: a JSON 404.
pub async fn not_found(uri: Uri) -> ApiError {
    ApiError::new(
        StatusCode::NOT_FOUND,
        format!("no such page: {}", excerpt(uri.path(), 200)),
    )
}

fn json(body: Bytes) -> Response {
    ([(header::CONTENT_TYPE, "application/json")], body).into_response()
}
