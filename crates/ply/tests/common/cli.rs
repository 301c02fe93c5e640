//! Runs the built `ply` binary, as a user would from a shell.

use std::io::Write;
use std::path::PathBuf;
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

/// Runs `command` with `stdin` as its whole standard input and waits for it.
pub fn run(mut command: Command, stdin: &[u8]) -> Output {
    let mut child = command
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("the command runs");
    let mut input = child.stdin.take().expect("stdin is piped");
    // The command may stop reading early (it refused the input): a broken
    // pipe is fine, its exit status and output say what happened.
    let _ = input.write_all(stdin);
    drop(input);
    child.wait_with_output().expect("the command finishes")
}

/// Runs `ply ARGS` with `stdin` as its whole standard input and waits for it.
pub fn ply(args: &[&str], stdin: &[u8]) -> Output {
    let mut command = Command::new(env!("CARGO_BIN_EXE_ply"));
    command.args(args);
    run(command, stdin)
}

/// The one JSON object a command printed, asserting that it succeeded.
pub fn json_of(output: &Output) -> serde_json::Value {
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    serde_json::from_slice(&output.stdout).expect("one JSON object")
}

/// Runs `ply ARGS` without input, asserting that it succeeds, and reads
/// the one JSON object it prints.
pub fn json(args: &[&str]) -> serde_json::Value {
    json_of(&ply(args, b""))
}

/// A fresh, empty directory for one test, named after `name` and this
/// process.
pub fn scratch_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ply-test-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir
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
