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

/// A fresh, empty directory for one test, named after `name`, the file of
/// the test that asks (the tests of many files share one process) and
/// this process.
#[track_caller]
pub fn scratch_dir(name: &str) -> PathBuf {
    let caller = std::path::Path::new(std::panic::Location::caller().file());
    let file = caller.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    let dir = std::env::temp_dir().join(format!("ply-test-{file}-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("a temporary directory");
    dir
}

/// A fresh, empty directory for one test (see [`scratch_dir`]), removed
/// when dropped.
pub struct Scratch(pub PathBuf);

impl Scratch {
    /// The directory for the test `name`.
    #[track_caller]
    pub fn new(name: &str) -> Self {
        Self(scratch_dir(name))
    }
}

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The database files (`*.plydb`) in `dir`, sorted by name.
pub fn shard_files(dir: &std::path::Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .expect("the database directory")
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|e| e == "plydb"))
        .collect();
    files.sort();
    files
}

/// Each shard in `dir`, by file name, with when its cells were built (its
/// header's build time, in seconds, which rewriting it smaller once the
/// game is solved keeps): a shard solved again has a later one.
pub fn built_times(dir: &std::path::Path) -> std::collections::BTreeMap<String, u64> {
    shard_files(dir)
        .iter()
        .map(|path| {
            let db = ply_core::db::Database::open_piece(path).expect("a shard");
            let built = db.headers().next().expect("a header").built_unix;
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, built)
        })
        .collect()
}

/// Whether `theirs`, a cell of a shard written by a team's process other
/// than 0 (never rewritten leaving a side's remoteness out), says what
/// `ours`, the same key's cell of one process's build, says: the same
/// cell, or where `ours` leaves out the remoteness of a side, a cell of
/// that side.
pub fn same_cell(ours: u16, theirs: u16) -> bool {
    let (ours, theirs) = (
        ply_core::Cell::from_bits(ours),
        ply_core::Cell::from_bits(theirs),
    );
    match ours.left_out_value() {
        Some(side) => theirs.unpack().is_some_and(|o| o.value == side),
        None => ours == theirs,
    }
}

/// Checks that `got` holds the shards `expected` holds, by name, and that
/// each cell says what the same key's cell in `expected` says, where the
/// two builds may leave out the remoteness of different sides (each picks
/// the side by a sample of its own): the same cell, or one of the two
/// leaves out a side's remoteness and the other is a cell of that side.
/// Returns how many cells differ in their bits that way.
pub fn assert_cells_say_the_same(
    expected: &std::collections::BTreeMap<String, Vec<u16>>,
    got: &std::collections::BTreeMap<String, Vec<u16>>,
    what: &str,
) -> usize {
    assert_eq!(
        expected.keys().collect::<Vec<_>>(),
        got.keys().collect::<Vec<_>>(),
        "{what}: the shards"
    );
    let mut differ = 0;
    for (name, ours) in expected {
        let theirs = &got[name];
        assert_eq!(ours.len(), theirs.len(), "{what}: the cells of {name}");
        for (key, (&a, &b)) in ours.iter().zip(theirs).enumerate() {
            assert!(
                a == b || same_cell(a, b) || same_cell(b, a),
                "{what}: {name}, cell {key}: {a:#06x} against {b:#06x}"
            );
            differ += usize::from(a != b);
        }
    }
    differ
}

/// Freezes `victim` with SIGSTOP, waits for `survivor` at most `limit`
/// (see [`finish`]), then kills the frozen one (SIGKILL ends a stopped
/// process too): the survivor's output and how long it took.
pub fn stop_then_finish(
    victim: &mut Child,
    survivor: Child,
    limit: Duration,
) -> (Output, Duration) {
    let stop = Command::new("kill")
        .args(["-STOP", &victim.id().to_string()])
        .status()
        .expect("kill -STOP");
    assert!(stop.success());
    let finished = finish(survivor, limit);
    let _ = victim.kill();
    let _ = victim.wait();
    finished
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

/// Connect Four's test of which indices its shard with `header` holds, if
/// the shard is Connect Four's: the one of each mirror pair with the
/// lesser index, which its own build's shards hold alone.
fn connect4_presence(
    header: &ply_core::db::Header,
) -> Option<std::sync::Arc<dyn ply_core::db::Presence>> {
    use ply_core::NamedTiers;
    let rest = header.game.strip_prefix("connect4")?;
    let game = match rest.strip_prefix(':') {
        Some(params) => ply_games::ConnectFour::from_params(params).ok()?,
        None if rest.is_empty() => ply_games::ConnectFour::default(),
        None => return None,
    };
    let plan = ply_core::tier::Plan::new(&game).ok()?;
    let step = plan.steps.iter().find(|s| s.keys == header.range)?;
    game.tier_presence(step.tier)
}

/// The cells of the shard at `path`, in key order, its blocks' checksums
/// checked: for Connect Four, whose own build's shards hold one of each
/// mirror pair while a team's hold every position, those of the positions
/// its own build holds, read with its test.
pub fn shard_cells(path: &std::path::Path) -> Vec<u16> {
    use ply_core::Solution as _;
    let db = ply_core::db::Database::open_piece(path).expect("a shard");
    db.verify().expect("sound");
    let header = db.headers().next().expect("a header").clone();
    let presence = connect4_presence(&header);
    let db = match &presence {
        Some(p) => db.with_presence(|_| Some(std::sync::Arc::clone(p))),
        None => db,
    };
    let mut cells = Vec::new();
    let start = header.range.start;
    db.for_each_cell(header.range.clone(), &mut |key, cell| {
        if presence
            .as_ref()
            .is_none_or(|p| p.stands_for(key - start) > 0)
        {
            cells.push(cell.bits());
        }
    })
    .expect("cells");
    cells
}
