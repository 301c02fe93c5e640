//! The JSON API: `GET /api/games` lists the games, `GET /api/solve` answers
//! with exactly the JSON `ply solve --json` prints, and `GET /api/board`
//! adds to it the description the page draws and plays from. Every error is a JSON
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

/// An error answer: a status and one line saying what went wrong.
#[derive(Debug)]
pub struct ApiError {
    status: StatusCode,
    message: String,
    headers: Vec<(HeaderName, String)>,
    /// A search stopped at the time limit that goes on when asked again.
    pending: bool,
}

/// Seconds a client is told to wait before asking again after a 503.
const RETRY_AFTER_SECONDS: u32 = 5;

/// Seconds a client is told to wait before asking again for a pending
/// search: it goes on only while asked.
const PENDING_RETRY_SECONDS: u32 = 1;

impl ApiError {
    /// An error with `status` and `message`.
    pub fn new(status: StatusCode, message: impl Into<String>) -> Self {
        Self {
            status,
            message: message.into(),
            headers: Vec::new(),
            pending: false,
        }
    }

    /// 503 for a search stopped at the time limit whose work is kept, so
    /// that asking again goes on from where it stopped: the body says
    /// `"pending": true`, and `Retry-After` is short.
    pub fn pending(message: impl Into<String>) -> Self {
        let mut error = Self::new(StatusCode::SERVICE_UNAVAILABLE, message)
            .with_header(header::RETRY_AFTER, &PENDING_RETRY_SECONDS.to_string());
        error.pending = true;
        error
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
        let status =
            StatusCode::from_u16(err.kind().codes().1).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
        if status == StatusCode::SERVICE_UNAVAILABLE {
            Self::busy(err.to_string())
        } else {
            Self::new(status, err.to_string())
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
    /// Only on a pending search: ask again to go on with it.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pending: bool,
}

impl IntoResponse for ApiError {
    fn into_response(self) -> Response {
        let mut response = (
            self.status,
            Json(ErrorBody {
                error: &self.message,
                pending: self.pending,
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
    /// Variants to pick from: the default first, then every variant the
    /// `variants` text names that opens.
    variant_list: Vec<String>,
    /// How this server answers the default variant: `database`,
    /// `solving` or `refused`.
    answered: &'static str,
    /// What it is answered from, or why not, in a line.
    answered_how: String,
}

#[derive(Serialize)]
struct GameList {
    games: Vec<GameInfo>,
}

/// `GET /api/games`: every game this process knows (the built-in ones and
/// any a library user added), its variants and start position.
pub async fn games(State(shared): State<Arc<Shared>>) -> Result<Response, ApiError> {
    let list = tokio::task::spawn_blocking(move || {
        let games = registry::entries()
            .map(|entry| {
                // The default variant's name and start need no tables: open
                // it apart from the kept games, so the list never waits on
                // or is refused for their memory.
                let session = (entry.open)(None)?;
                let (answered, answered_how) = shared.sessions.answering(&*session);
                Ok(GameInfo {
                    variant_list: variant_list(entry, session.name()),
                    answered,
                    answered_how,
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

/// The variants of `entry` to offer on the page: `default` first, then
/// each name of the form `NAME:PARAMS` in its `variants` text that opens
/// (placeholders such as `euler:RxC` do not), each once by full name;
/// kept per game after the first listing.
fn variant_list(entry: &registry::Entry, default: String) -> Vec<String> {
    type Lists = std::sync::Mutex<std::collections::HashMap<&'static str, Vec<String>>>;
    static LISTS: std::sync::OnceLock<Lists> = std::sync::OnceLock::new();
    let lists = LISTS.get_or_init(Lists::default);
    if let Some(found) = lists
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .get(entry.name)
    {
        return found.clone();
    }
    let mut list = vec![default];
    let prefix = format!("{}:", entry.name);
    for word in entry
        .variants
        .split(|c: char| c.is_whitespace() || ",;()".contains(c))
    {
        // `NAME:PARAMS`, or bare parameters given as examples (`e.g. 3x3x3`).
        let bare = word.starts_with(|c: char| c.is_ascii_digit())
            && word.chars().all(|c| c.is_ascii_alphanumeric());
        let Some(params) = word.strip_prefix(&prefix).or(bare.then_some(word)) else {
            continue;
        };
        // `teeko:4x4,advanced` is split at the comma: take the whole word.
        let whole = entry
            .variants
            .split(|c: char| c.is_whitespace() || ";()".contains(c))
            .find(|w| w.starts_with(word) && w.trim_end_matches(',').len() > word.len())
            .map(|w| w.trim_end_matches(','));
        for params in [whole.and_then(|w| w.strip_prefix(&prefix)), Some(params)]
            .into_iter()
            .flatten()
        {
            if let Ok(session) = (entry.open)(Some(params)) {
                let name = session.name();
                if !list.contains(&name) {
                    list.push(name);
                }
            }
        }
    }
    lists
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(entry.name, list.clone());
    list
}

/// The query of `GET /api/solve`.
#[derive(Deserialize)]
pub struct SolveQuery {
    /// The game, as `NAME` or `NAME:PARAMS`; required.
    game: Option<String>,
    /// The position; the game's start if absent.
    position: Option<String>,
}

/// `GET /api/solve?game=G&position=P`: the same JSON as `ply solve G P --json`.
pub async fn solve(
    State(shared): State<Arc<Shared>>,
    query: Result<Query<SolveQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let (game, position) = asked(query)?;
    Ok(json(solved(&shared, game, position).await?))
}

/// `GET /api/board?game=G&position=P`: what the page draws and plays from.
/// `solve` is exactly the answer of `/api/solve`; `board` describes the
/// position ([`ply_core::Board`]); `moves` lists every move of the solve,
/// best first for the player making it, with its
/// clicks, its value and remoteness for that player, its colour (`tone`)
/// and its `rank` (0 for the best moves, equal moves sharing one).
pub async fn board(
    State(shared): State<Arc<Shared>>,
    query: Result<Query<SolveQuery>, QueryRejection>,
) -> Result<Response, ApiError> {
    let (game, position) = asked(query)?;
    let answer = solved(&shared, game.clone(), position.clone()).await?;
    let worker = shared.clone();
    let board = tokio::task::spawn_blocking(move || {
        let session = worker.sessions.get(&game)?;
        session.board(position.as_deref()).map_err(ApiError::from)
    })
    .await
    .map_err(|e| ApiError::internal(format!("describing the board failed: {e}")))??;
    let solve: serde_json::Value =
        serde_json::from_slice(&answer).map_err(|e| ApiError::internal(e.to_string()))?;
    let body =
        serde_json::to_vec(&played(solve, board)).map_err(|e| ApiError::internal(e.to_string()))?;
    Ok(json(Bytes::from(body)))
}

/// The game and position a query asks for, or a 400 in ply's words.
fn asked(
    query: Result<Query<SolveQuery>, QueryRejection>,
) -> Result<(String, Option<String>), ApiError> {
    let Query(query) = query.map_err(|_| {
        ApiError::bad_request(
            "the query string cannot be read: give game=NAME and optionally position=POSITION, \
             percent-encoded",
        )
    })?;
    let game = query.game.ok_or_else(|| {
        ApiError::bad_request(
            "no game given: ask for /api/solve?game=NAME (and &position=POSITION; the start \
             if absent); /api/games lists the games",
        )
    })?;
    Ok((game, query.position))
}

/// The board answer: the solve, the board and its moves as the mover sees them.
fn played(solve: serde_json::Value, mut board: ply_core::Board) -> serde_json::Value {
    let empty = Vec::new();
    let listed = solve["moves"].as_array().unwrap_or(&empty);
    let mut moves: Vec<(Preference, serde_json::Value)> = Vec::new();
    for mv in listed {
        let name = mv["move"].as_str().unwrap_or_default();
        // A move the board cannot make is still listed, with no clicks.
        let clicks = board
            .moves
            .iter()
            .position(|m| m.name == name)
            .map_or_else(Vec::new, |found| board.moves.swap_remove(found).clicks);
        // The solve's own value for the player making the move.
        let value = mv["mover_value"].as_str().unwrap_or_default();
        let remoteness = mv["mover_remoteness"].as_u64();
        moves.push((
            Preference::of(value, remoteness),
            serde_json::json!({
                "move": name,
                "position": mv["position"],
                "clicks": clicks,
                "value": value,
                "remoteness": remoteness,
                "tone": tone(value),
            }),
        ));
    }
    moves.sort_by(|(a, x), (b, y)| {
        b.cmp(a).then_with(|| {
            natural(
                x["move"].as_str().unwrap_or_default(),
                y["move"].as_str().unwrap_or_default(),
            )
        })
    });
    let mut rank = 0;
    for i in 0..moves.len() {
        if i > 0 && moves[i].0 != moves[i - 1].0 {
            rank += 1;
        }
        moves[i].1["rank"] = rank.into();
    }
    board.moves.clear();
    serde_json::json!({
        "tone": tone(solve["value"].as_str().unwrap_or_default()),
        "board": board,
        "moves": moves.into_iter().map(|(_, m)| m).collect::<Vec<_>>(),
        "solve": solve,
    })
}

/// The colour of a value: ties and draws share one.
fn tone(value: &str) -> &str {
    if value == "draw" { "tie" } else { value }
}

/// How good an outcome is for the player who has it: greater is better
/// (the fastest win, ties, draws, the slowest loss).
#[derive(PartialEq, Eq, PartialOrd, Ord)]
struct Preference(u8, i64);

impl Preference {
    fn of(value: &str, remoteness: Option<u64>) -> Self {
        let r = i64::try_from(remoteness.unwrap_or(0)).unwrap_or(i64::MAX);
        match value {
            "win" => Self(3, -r),
            "tie" => Self(2, -r),
            "draw" => Self(1, 0),
            _ => Self(0, r),
        }
    }
}

/// Compares move names with their runs of digits as numbers (`a2` < `a10`).
fn natural(a: &str, b: &str) -> std::cmp::Ordering {
    fn chunks(s: &str) -> Vec<(bool, String)> {
        let mut out: Vec<(bool, String)> = Vec::new();
        for ch in s.chars() {
            let digit = ch.is_ascii_digit();
            match out.last_mut() {
                Some((d, run)) if *d == digit => run.push(ch),
                _ => out.push((digit, ch.to_string())),
            }
        }
        out
    }
    let key = |(digit, run): &(bool, String)| {
        if *digit {
            (run.trim_start_matches('0').len(), run.clone())
        } else {
            (0, run.clone())
        }
    };
    chunks(a).iter().map(key).cmp(chunks(b).iter().map(key))
}

/// The JSON of `ply solve --json` for a query, from the cache or solved
/// within the server's limits.
async fn solved(
    shared: &Arc<Shared>,
    game: String,
    position: Option<String>,
) -> Result<Bytes, ApiError> {
    if game.len() > MAX_GAME_LEN {
        return Err(ApiError::bad_request(format!(
            "the game name '{}' is longer than {MAX_GAME_LEN} characters",
            excerpt(&game, MAX_GAME_LEN)
        )));
    }
    let max_row = shared.limits.max_row;
    if let Some(p) = position.as_ref().filter(|p| p.len() > max_row) {
        return Err(ApiError::bad_request(format!(
            "the position has {} characters; this server answers positions of at most {max_row} \
             (its --max-row)",
            p.len()
        )));
    }
    let key = (game, position);
    if let Some(answer) = shared.answers.get(&key) {
        return Ok(answer);
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
        return Ok(answer);
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
        let command = format!(
            "ply solve {game}{}",
            position
                .as_deref()
                .map_or(String::new(), |p| format!(" '{}'", excerpt(p, 200)))
        );
        let seconds = limit.as_secs_f64();
        let mut report =
            session
                .solve_within(position.as_deref(), &budget)
                .map_err(|e| match e {
                    // The search keeps what it found: asking again goes on.
                    PlyError::Cancelled(what) if session.resumes_stopped() => {
                        ApiError::pending(format!(
                            "still searching: this position took longer than {seconds} s, this \
                         server's limit, and its search stopped ({what}); what it found is \
                         kept, so asking again goes on from there; `{command}` on the command \
                         line waits for the answer"
                        ))
                    }
                    PlyError::Cancelled(_) => ApiError::busy(format!(
                        "this position needs a search longer than {seconds} s, this server's \
                     limit; run `{command}` on the command line"
                    )),
                    e => e.into(),
                })?;
        report.best_first();
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
    Ok(answer)
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn work_refused_for_want_of_memory_is_503_not_400() {
        let refused = ApiError::from(PlyError::Unavailable("a table needs 9 GiB".into()));
        assert_eq!(refused.status, StatusCode::SERVICE_UNAVAILABLE);
        assert_eq!(refused.message, "a table needs 9 GiB");
        let bad = ApiError::from(PlyError::argument("bad position"));
        assert_eq!(bad.status, StatusCode::BAD_REQUEST);
    }

    /// The JSON body and `Retry-After` of an error answer.
    async fn answer(error: ApiError) -> (serde_json::Value, Option<String>) {
        let response = error.into_response();
        let retry = response
            .headers()
            .get(header::RETRY_AFTER)
            .map(|v| v.to_str().unwrap().to_string());
        let body = axum::body::to_bytes(response.into_body(), 1 << 16)
            .await
            .unwrap();
        (serde_json::from_slice(&body).unwrap(), retry)
    }

    #[tokio::test]
    async fn only_a_pending_search_says_pending() {
        let (body, retry) = answer(ApiError::pending("still searching")).await;
        assert_eq!(
            body,
            serde_json::json!({"error": "still searching", "pending": true})
        );
        assert_eq!(retry.as_deref(), Some("1"));
        let missing = PlyError::Unavailable("shard m5-5 is not in the directory".into());
        let (body, retry) = answer(missing.into()).await;
        assert_eq!(
            body,
            serde_json::json!({"error": "shard m5-5 is not in the directory"})
        );
        assert_eq!(retry.as_deref(), Some("5"));
    }
}
