//! Starts `ply serve`'s app in-process on an ephemeral loopback port.

use ply::serve::{Shared, router};
use std::net::SocketAddr;

/// Serves on `127.0.0.1:0` from a background thread with its own runtime of
/// `workers` threads, keeping `cache_bytes` of answers; returns the address.
/// The server lives until the process ends.
pub fn start(workers: usize, cache_bytes: usize) -> SocketAddr {
    let (sender, receiver) = std::sync::mpsc::channel();
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_multi_thread()
            .worker_threads(workers)
            .enable_all()
            .build()
            .expect("a tokio runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::bind("127.0.0.1:0")
                .await
                .expect("a loopback port");
            sender
                .send(listener.local_addr().expect("a bound address"))
                .expect("the test is waiting");
            axum::serve(listener, router(Shared::new(cache_bytes)))
                .await
                .expect("the server runs");
        });
    });
    receiver.recv().expect("the server started")
}
