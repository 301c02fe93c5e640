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

/// The complete seed databases (a 0 flag byte, then the file) open and give
/// cells, so that the database target starts from files the reader accepts.
#[test]
fn the_seed_databases_open_and_read() {
    use ply_core::Solution;
    use ply_core::db::Database;
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/database");
    let scratch = std::env::temp_dir().join(format!("ply-seed-{}.plydb", std::process::id()));
    let mut opened = 0;
    for seed in ["euler-3x3", "lgame", "tictactoe-3x3x3"] {
        let bytes = std::fs::read(dir.join(seed)).unwrap();
        assert_eq!(bytes[0], 0, "{seed}: no checksum repair");
        std::fs::write(&scratch, &bytes[1..]).unwrap();
        let db = Database::open_piece(&scratch).unwrap_or_else(|e| panic!("{seed}: {e}"));
        db.verify().unwrap();
        let mut known = 0;
        db.for_each_cell(0..db.index_len(), &mut |_, _| known += 1)
            .unwrap();
        assert!(known > 0, "{seed}");
        opened += 1;
    }
    let _ = std::fs::remove_file(&scratch);
    assert_eq!(opened, 3);
}

/// The database input that once made the reader allocate 4 GB (a block
/// claiming a decompressed size far past what its cells can hold) is
/// refused for that reason, before anything that large is allocated.
#[test]
fn a_block_claiming_more_bytes_than_its_cells_is_refused() {
    use ply_core::db::Database;
    let input = std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("../../fuzz/regressions/database/oom-a70d995bc7d6f7fb0d7f5252346218432decba6f"),
    )
    .unwrap();
    let (_, file) = ply::fuzzing::database_file(&input).unwrap();
    let scratch = std::env::temp_dir().join(format!("ply-oom-{}.plydb", std::process::id()));
    std::fs::write(&scratch, &file).unwrap();
    let checked = Database::open_piece(&scratch).and_then(|db| db.verify());
    let _ = std::fs::remove_file(&scratch);
    let Err(error) = checked else {
        panic!("a block claiming 4 GB was read as if sound");
    };
    let error = error.to_string();
    assert!(error.contains("more than it can hold"), "{error}");
}

/// A database cut short, or cut and filled back with zeros, under an open
/// reader that has read nothing yet: the reads that reach past what is
/// left are refused, and whatever is answered is what the whole file says
/// (`shrinking_reads` panics otherwise).
#[test]
fn a_database_changed_under_its_reader_answers_right_or_refuses() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz/corpus/database");
    for seed in ["euler-3x3", "lgame", "tictactoe-3x3x3"] {
        let file = std::fs::read(dir.join(seed)).unwrap();
        for (cut, flags) in [(0x4000u16, 0u8), (0x4000, 0x80), (0x0100, 0)] {
            let mut input = cut.to_le_bytes().to_vec();
            input.push(flags);
            input.extend_from_slice(&file);
            let reads = ply::fuzzing::shrinking_reads(&input)
                .unwrap_or_else(|| panic!("{seed}: the seed did not open"));
            assert!(
                reads.refused > 0,
                "{seed} cut to {cut}/65536 ({flags:#x}): {reads:?}"
            );
        }
    }
}
