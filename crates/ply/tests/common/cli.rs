//! Runs the built `ply` binary, as a user would from a shell.

use std::io::Write;
use std::process::{Command, Output, Stdio};

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
