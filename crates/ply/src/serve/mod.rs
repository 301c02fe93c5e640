//! `ply serve`: a web page to play and explore every game against the
//! perfect player, and the JSON API behind it.
//!
//! Games are opened once and kept (with whatever tables their sessions
//! build), answers are kept in a bounded cache, and solves run on the
//! blocking pool, a few at a time, so the async threads stay free.

pub mod api;
pub mod assets;
pub mod cache;
pub mod sessions;

use crate::error::PlyError;
use axum::Router;
use axum::routing::get;
use cache::AnswerCache;
use sessions::Sessions;
use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::sync::Semaphore;
use tower_http::limit::RequestBodyLimitLayer;

/// The bytes of answers the server keeps by default.
pub const DEFAULT_CACHE_BYTES: usize = 64 << 20;
/// The largest request body the server reads.
const MAX_BODY_BYTES: usize = 16 << 10;

/// What every request shares.
pub struct Shared {
    /// The games opened so far.
    pub sessions: Sessions,
    /// Answers already given.
    pub answers: AnswerCache,
    /// Permits to run a solve: a few at a time, however many requests wait.
    solving: Semaphore,
}

impl Shared {
    /// Nothing opened yet, with a cache of `cache_bytes` (0 for none).
    pub fn new(cache_bytes: usize) -> Arc<Self> {
        let cores = std::thread::available_parallelism().map_or(2, |n| n.get());
        Arc::new(Self {
            sessions: Sessions::new(),
            answers: AnswerCache::new(cache_bytes),
            solving: Semaphore::new((2 * cores).max(4)),
        })
    }
}

/// The page and the API, over `shared`.
pub fn router(shared: Arc<Shared>) -> Router {
    Router::new()
        .route("/", get(assets::index))
        .route("/app.js", get(assets::script))
        .route("/style.css", get(assets::style))
        .route("/api/games", get(api::games))
        .route("/api/solve", get(api::solve))
        .fallback(api::not_found)
        .layer(RequestBodyLimitLayer::new(MAX_BODY_BYTES))
        .with_state(shared)
}

/// Serves on `addr` until Ctrl-C, after writing the address it listens on
/// (useful with port 0) to `out`.
pub fn run(addr: SocketAddr, preload: &[String], out: &mut dyn Write) -> Result<(), PlyError> {
    let shared = Shared::new(DEFAULT_CACHE_BYTES);
    for game in preload {
        let session = shared.sessions.get(game).map_err(|e| match e {
            sessions::OpenError::Unknown(e) => e,
            sessions::OpenError::Full => {
                PlyError::argument(format!("--preload: too many games (at {game})"))
            }
        })?;
        session.warm(&crate::cli::progress::BarProgress::new())?;
        let source = session.source().map_or("", |s| s.as_str());
        writeln!(out, "ply serve: {} ready ({source})", session.name())?;
    }
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind(addr)
            .await
            .map_err(|e| PlyError::argument(format!("cannot listen on {addr}: {e}")))?;
        let local = listener.local_addr()?;
        writeln!(
            out,
            "ply serve: listening on http://{local}/ (Ctrl-C stops)"
        )?;
        out.flush()?;
        axum::serve(listener, router(shared))
            .with_graceful_shutdown(async {
                // If the signal cannot be watched, serve until killed.
                if tokio::signal::ctrl_c().await.is_err() {
                    std::future::pending::<()>().await;
                }
            })
            .await?;
        Ok(())
    })
}
