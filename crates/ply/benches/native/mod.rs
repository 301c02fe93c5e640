//! Builds the plain C and C++ baselines that the benches time beside ply.

use std::path::PathBuf;
use std::process::Command;

/// Compiles `benches/SOURCE` with `compiler -O2` into the bench's scratch
/// directory, or says on stderr why not (no compiler, or it failed).
pub fn build(compiler: &str, source: &str) -> Option<PathBuf> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("benches")
        .join(source);
    let stem = path.file_stem()?.to_owned();
    let binary = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(stem);
    match Command::new(compiler)
        .args(["-O2", "-o"])
        .arg(&binary)
        .arg(&path)
        .status()
    {
        Ok(status) if status.success() => Some(binary),
        Ok(status) => {
            eprintln!("skipping the {source} baseline: {compiler} failed ({status})");
            None
        }
        Err(err) => {
            eprintln!("skipping the {source} baseline: no compiler ({compiler}: {err})");
            None
        }
    }
}
