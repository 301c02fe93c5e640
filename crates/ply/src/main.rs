use clap::Parser;
use ply::cli::Cli;
use std::process::ExitCode;

fn main() -> ExitCode {
    match Cli::parse().run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(ply::PlyError::Io(err)) if err.kind() == std::io::ErrorKind::BrokenPipe => {
            ExitCode::SUCCESS
        }
        Err(err) => {
            eprintln!("ply: {err}");
            ExitCode::from(2)
        }
    }
}
