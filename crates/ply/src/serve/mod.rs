//! `ply serve`: a web page to play and explore every game against the
//! perfect player, and the JSON API behind it.
//!
//! Games are opened once and kept within a memory budget (with whatever
//! tables their sessions build), answers are kept in a bounded cache, and
//! solves run on the blocking pool, a few at a time and each within a time
//! budget, so the async threads stay free. Connections are accepted by
//! hand so that clients slow to send their headers are cut off, and so that
//! at most so many are open at once. See [`limits::Limits`].

pub mod api;
pub mod assets;
pub mod cache;
pub mod guard;
pub mod limits;
pub mod sessions;
pub mod stall;

use crate::error::PlyError;
use crate::registry;
use axum::Router;
use axum::routing::get;
use cache::AnswerCache;
use guard::Hosts;
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use limits::Limits;
use sessions::Sessions;
use stall::StallLimit;
use std::future::Future;
use std::io::Write;
use std::net::SocketAddr;
use std::sync::Arc;
use tokio::net::TcpListener;
use tokio::sync::Semaphore;

/// The bytes of answers the server keeps by default.
pub const DEFAULT_CACHE_BYTES: usize = 64 << 20;
/// The most bytes of headers hyper reads before refusing a request itself,
/// besides the request line.
const MAX_READ_HEADER_BYTES: usize = 64 << 10;

/// What every request shares.
pub struct Shared {
    /// The games opened so far.
    pub sessions: Sessions,
    /// Answers already given.
    pub answers: AnswerCache,
    /// Permits to run a solve: a few at a time, however many requests wait.
    solving: Arc<Semaphore>,
    /// Per game name: its share of the permits.
    shares: std::sync::Mutex<std::collections::HashMap<String, Arc<Semaphore>>>,
    /// The server's limits.
    limits: Limits,
    /// The Host headers answered.
    hosts: Hosts,
}

impl Shared {
    /// Nothing opened yet, with a cache of `cache_bytes` (0 for none), for a
    /// server bound to `bound` under `limits`.
    pub fn new(cache_bytes: usize, limits: Limits, bound: SocketAddr) -> Arc<Self> {
        Arc::new(Self {
            sessions: Sessions::new(&limits),
            answers: AnswerCache::new(cache_bytes),
            solving: Arc::new(Semaphore::new(limits.solves())),
            shares: std::sync::Mutex::default(),
            hosts: Hosts::new(bound, &limits.allow_host),
            limits,
        })
    }
}

impl Shared {
    /// A permit to solve a position of `game`: first one of the game's
    /// share (half the permits), then one of all.
    async fn permit(&self, game: &str) -> Result<Permit, tokio::sync::AcquireError> {
        let share = {
            let mut shares = self.shares.lock().unwrap_or_else(|e| e.into_inner());
            if shares.len() >= 1024 {
                // Forget shares no request holds.
                shares.retain(|_, s| s.available_permits() < self.limits.solves().div_ceil(2));
            }
            shares
                .entry(game.to_string())
                .or_insert_with(|| Arc::new(Semaphore::new(self.limits.solves().div_ceil(2))))
                .clone()
        };
        let share = share.acquire_owned().await?;
        let all = self.solving.clone().acquire_owned().await?;
        Ok(Permit {
            _share: share,
            _all: all,
        })
    }
}

/// Leave to run one solve, given back when dropped.
pub struct Permit {
    _share: tokio::sync::OwnedSemaphorePermit,
    _all: tokio::sync::OwnedSemaphorePermit,
}

/// The page and the API, over `shared`.
pub fn router(shared: Arc<Shared>) -> Router {
    let mut page = Router::new()
        .route("/", get(assets::index))
        .route("/style.css", get(assets::style));
    for (file, text) in assets::MODULES {
        page = page.route(&format!("/{file}"), get(move || assets::script(text)));
    }
    page.route("/api/games", get(api::games))
        .route("/api/solve", get(api::solve))
        .route("/api/board", get(api::board))
        .fallback(api::not_found)
        .layer(axum::middleware::from_fn_with_state(
            shared.clone(),
            guard::guard,
        ))
        .with_state(shared)
}

/// Serves `shared`'s page and API on `listener` until `shutdown` completes:
/// each connection on its own task, closed if its client takes longer than
/// the header limit to send a request's headers, or leaves an answer unread
/// for longer than the request limit; at most
/// `--max-connections` open at once (more are closed at once).
pub async fn serve(listener: TcpListener, shared: Arc<Shared>, shutdown: impl Future<Output = ()>) {
    let app = router(shared.clone());
    let connections = Arc::new(Semaphore::new(shared.limits.max_connections));
    let header_time = shared.limits.header_time();
    let write_time = shared.limits.request_time();
    // Room for the request line with a position of --max-row characters,
    // besides the headers.
    let read_buffer = guard::max_uri_bytes(&shared.limits) + MAX_READ_HEADER_BYTES;
    tokio::pin!(shutdown);
    loop {
        let accepted = tokio::select! {
            accepted = listener.accept() => accepted,
            () = &mut shutdown => return,
        };
        let stream = match accepted {
            Ok((stream, _)) => stream,
            // Out of file descriptors or the like: wait for some to close.
            Err(_) => {
                tokio::time::sleep(std::time::Duration::from_millis(20)).await;
                continue;
            }
        };
        let Ok(permit) = connections.clone().try_acquire_owned() else {
            drop(stream);
            continue;
        };
        let service = TowerToHyperService::new(app.clone());
        tokio::spawn(async move {
            let _permit = permit;
            let mut builder = hyper::server::conn::http1::Builder::new();
            builder
                .timer(TokioTimer::new())
                .header_read_timeout(header_time)
                .max_buf_size(read_buffer);
            // A connection that fails (a client gone, a bad request) ends here.
            let _ = builder
                .serve_connection(TokioIo::new(StallLimit::new(stream, write_time)), service)
                .await;
        });
    }
}

/// Serves on `addr` (`HOST:PORT`; a host name is resolved, and the first
/// of its addresses that can be bound is used) within `limits` until
/// Ctrl-C, after writing the address it listens on (useful with port 0) to
/// `out`.
///
/// The games in `preload` are opened and their databases read (or tables
/// built) before the first connection is accepted.
pub fn run(
    addr: &str,
    limits: Limits,
    preload: &[String],
    out: &mut dyn Write,
) -> Result<(), PlyError> {
    limits.check().map_err(PlyError::argument)?;
    // Games answered from databases share one block cache, counted once
    // in --session-mib, and searches over them a table within it.
    ply_core::db::set_block_cache_bytes(limits.block_cache_bytes().max(1 << 20));
    ply_core::limits::set_search_table_bytes(limits.search_table_bytes());
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()?;
    runtime.block_on(async {
        let addrs = resolve(addr)?;
        let listener = TcpListener::bind(addrs.as_slice())
            .await
            .map_err(|e| PlyError::argument(format!("--addr {addr}: cannot listen there: {e}")))?;
        let local = listener.local_addr()?;
        let shared = Shared::new(DEFAULT_CACHE_BYTES, limits, local);
        for game in preload {
            let session = shared.sessions.get(game).map_err(|e| match e {
                sessions::OpenError::Unknown(e) => e,
                other => PlyError::argument(format!("--preload {game}: {other}")),
            })?;
            session.warm(&crate::cli::progress::BarProgress::new())?;
            let source = session.source().map_or("", |s| s.as_str());
            writeln!(out, "ply serve: {} ready ({source})", session.name())?;
        }
        writeln!(
            out,
            "ply serve: listening on http://{local}/ (Ctrl-C stops)"
        )?;
        for entry in registry::entries() {
            let line = match (entry.open)(None) {
                Ok(session) => {
                    let (how, what) = shared.sessions.answering(&*session);
                    format!("{} ({how}): {what}", session.name())
                }
                Err(e) => format!("{}: {e}", entry.name),
            };
            writeln!(out, "ply serve: {line}")?;
        }
        out.flush()?;
        serve(listener, shared, async {
            // If the signal cannot be watched, serve until killed.
            if tokio::signal::ctrl_c().await.is_err() {
                std::future::pending::<()>().await;
            }
        })
        .await;
        Ok::<(), PlyError>(())
    })?;
    // Solves still running stop within their budget; do not wait for them.
    runtime.shutdown_background();
    Ok(())
}

/// The addresses `addr` (`HOST:PORT`) names, a host name resolved.
fn resolve(addr: &str) -> Result<Vec<SocketAddr>, PlyError> {
    use std::net::ToSocketAddrs;
    let bad = |why: String| {
        PlyError::argument(format!(
            "--addr {}: {why}; give HOST:PORT, e.g. 127.0.0.1:8080, localhost:8080 or [::1]:8080",
            crate::error::excerpt(addr, 100)
        ))
    };
    let found: Vec<SocketAddr> = addr
        .to_socket_addrs()
        .map_err(|e| bad(e.to_string()))?
        .collect();
    if found.is_empty() {
        return Err(bad("the name has no address".into()));
    }
    Ok(found)
}
