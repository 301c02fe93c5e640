//! Runs the built `ply` binary, as a user would from a shell.

use std::io::Write;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs `ply ARGS` with `stdin` as its whole standard input and waits for it.
pub fn ply(args: &[&str], stdin: &[u8]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ply"))
        .args(args)
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ply runs");
    let mut input = child.stdin.take().expect("stdin is piped");
    // The command may stop reading early (it refused the input): a broken
    // pipe is fine, its exit status and output say what happened.
    let _ = input.write_all(stdin);
    drop(input);
    child.wait_with_output().expect("ply finishes")
}

/// Waits for `child` at most `limit`, killing it (and failing) past that.
pub fn finish(mut child: Child, limit: Duration) -> (Output, Duration) {
    let start = Instant::now();
    loop {
        if child.try_wait().expect("wait").is_some() {
            return (child.wait_with_output().expect("output"), start.elapsed());
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let output = child.wait_with_output().expect("output");
            panic!(
                "ply did not end within {limit:?}: {}",
                String::from_utf8_lossy(&output.stderr)
            );
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}
