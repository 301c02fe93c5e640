use std::process::ExitCode;

fn main() -> ExitCode {
    ply::run(Vec::new())
}
