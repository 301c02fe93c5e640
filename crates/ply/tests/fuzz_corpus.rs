//! Replays every saved fuzz input (`fuzz/corpus/TARGET` and
//! `fuzz/regressions/TARGET`) through its target's function, so that CI
//! catches a regression without nightly or cargo-fuzz.

use std::path::Path;

#[test]
fn every_saved_fuzz_input_runs_without_panicking() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz");
    let mut replayed = 0;
    for (name, target) in ply::fuzzing::TARGETS {
        for dir in ["corpus", "regressions"] {
            let Ok(entries) = std::fs::read_dir(root.join(dir).join(name)) else {
                continue;
            };
            for entry in entries {
                let path = entry.unwrap().path();
                if path.is_file() {
                    target(&std::fs::read(&path).unwrap());
                    replayed += 1;
                }
            }
        }
    }
    assert!(replayed >= ply::fuzzing::TARGETS.len(), "{replayed} inputs");
}
