//! Starts `ply serve`'s app in-process on an ephemeral loopback port.

#![allow(dead_code)]

use ply::serve::limits::Limits;
use ply::serve::{Shared, serve};
use std::net::SocketAddr;
use std::sync::Arc;

/// Serves on `127.0.0.1:0` from a background thread with its own runtime of
/// `workers` threads, keeping `cache_bytes` of answers; returns the address.
/// The server lives until the process ends.
pub fn start(workers: usize, cache_bytes: usize) -> SocketAddr {
    start_with(workers, cache_bytes, Limits::default()).0
}

/// As [`start`], under `limits`; also returns what the server shares.
pub fn start_with(workers: usize, cache_bytes: usize, limits: Limits) -> (SocketAddr, Arc<Shared>) {
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
            let local = listener.local_addr().expect("a bound address");
            let shared = Shared::new(cache_bytes, limits, local);
            sender
                .send((local, shared.clone()))
                .expect("the test is waiting");
            serve(listener, shared, std::future::pending()).await;
        });
    });
    receiver.recv().expect("the server started")
}
