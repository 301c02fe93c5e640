//! Starts `ply serve`'s app in-process on an ephemeral loopback port, or
//! the `ply serve` command as a process of its own.

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

/// A `ply serve` process on a free loopback port with `flags`, and its address.
pub struct Process {
    /// The child process.
    pub child: std::process::Child,
    /// Where it listens.
    pub addr: SocketAddr,
}

impl Process {
    /// Starts `ply serve` with `flags` (on `127.0.0.1:0` unless they give
    /// an `--addr`) and reads the address it listens on.
    pub fn start(flags: &[&str]) -> Self {
        let mut command = std::process::Command::new(env!("CARGO_BIN_EXE_ply"));
        command.arg("serve");
        if !flags.contains(&"--addr") {
            command.args(["--addr", "127.0.0.1:0"]);
        }
        let mut child = command
            .args(flags)
            .stdout(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        let mut line = String::new();
        std::io::BufRead::read_line(
            &mut std::io::BufReader::new(child.stdout.take().unwrap()),
            &mut line,
        )
        .unwrap();
        let addr = line
            .split("http://")
            .nth(1)
            .and_then(|rest| rest.split('/').next())
            .and_then(|a| a.parse().ok())
            .unwrap_or_else(|| panic!("no address in {line:?}"));
        Self { child, addr }
    }

    /// Its directory under /proc.
    pub fn proc(&self) -> String {
        format!("/proc/{}", self.child.id())
    }
}

impl Drop for Process {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
