//! `ply analyze GAME --save --processes P --process I` without `--hosts`
//! (on loopback from `--port`), and with `--hosts` for games the
//! whole-index solver does not take: real processes building one game's
//! tiers into a shared database directory or a directory each (fetching
//! the child shards they lack), telling each other over TCP
//! which tier they wrote (euler and tictactoe, a table team, send each
//! other each tier's cells over TCP instead, and write nothing but the
//! database). Their shards hold every cell of the one-process build; a
//! process stopped mid-build (SIGSTOP) makes the one waiting on it stop,
//! non-zero, naming it, within the peer timeout; a rerun of a tier team
//! resumes from the finished tiers and matches (a table team's rerun
//! solves every tier again, and matches too). Quixo 3x3, Teeko 4x4 (seconds) and Nine Men's
//! Morris with four stones (31 tiers, some 10 s) stand in for larger games.
//! A process killed (SIGKILL) mid-tier is named and a rerun matches.
//! Connect Four, which one process builds by its own streams of keys,
//! runs the generic tier solver as a team, and says what the streams say.
//! `--workers N` alone runs the tier solver on N threads, and euler and
//! tictactoe their table built tier by tier: the same cells. A team's
//! process on quixo:4x4 peaks under half the index at a byte a position.

use crate::common;

use common::cli::{
    Scratch, assert_cells_say_the_same, built_times, finish, same_cell, shard_cells, shard_files,
    stop_then_finish,
};
use ply_core::db::Database;
use serde_json::Value;
use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// The most any one `ply analyze` here may take.
const LIMIT: Duration = Duration::from_secs(120);

/// Starts `ply analyze GAME --save --json --db-dir DIR EXTRA...`.
fn spawn(game: &str, dir: &Path, extra: &[String]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_ply"))
        .args(["analyze", game, "--save", "--json", "--db-dir"])
        .arg(dir)
        .args(extra)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("ply runs")
}

/// The options of process `process` of a team of `processes` on
/// loopback from `port`, with a peer timeout of `timeout` seconds.
fn team_args(port: u16, processes: usize, process: usize, timeout: u64) -> Vec<String> {
    [
        "--processes".to_string(),
        processes.to_string(),
        "--process".into(),
        process.to_string(),
        "--peer-timeout".into(),
        timeout.to_string(),
        "--port".into(),
        port.to_string(),
    ]
    .into()
}

/// The first of `processes` consecutive loopback ports free just now (a
/// team's `--port`), away from other tests' ephemeral ones.
fn free_ports(processes: usize) -> u16 {
    let nanos = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| u64::from(d.subsec_nanos()));
    let seed = u64::from(std::process::id())
        .wrapping_mul(2_654_435_761)
        .wrapping_add(nanos);
    for attempt in 0..1_000u64 {
        let base = 20_000 + ((seed + attempt * 7_919) % 12_000) as u16;
        let bound: Vec<_> = (0..processes as u16)
            .map_while(|i| TcpListener::bind(("127.0.0.1", base + i)).ok())
            .collect();
        if bound.len() == processes {
            return base;
        }
    }
    panic!("no {processes} consecutive free ports");
}

/// A hosts file in `dir` of `processes` loopback addresses free just now.
fn hosts_file(dir: &Path, processes: usize) -> PathBuf {
    let listeners: Vec<_> = (0..processes)
        .map(|_| TcpListener::bind("127.0.0.1:0").expect("a free port"))
        .collect();
    let text: String = listeners
        .iter()
        .map(|l| format!("{}\n", l.local_addr().expect("an address")))
        .collect();
    let path = dir.join(format!("hosts-{processes}"));
    std::fs::write(&path, text).expect("hosts file");
    path
}

/// Checks that nothing but shards is left in `dir` (no heartbeat, part
/// or work file).
fn only_shards_left(dir: &Path) {
    let left: Vec<_> = std::fs::read_dir(dir)
        .expect("the database directory")
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.ends_with(".plydb"))
        .collect();
    assert!(left.is_empty(), "only shards are left: {left:?}");
}

/// Runs the `processes` processes of a team to the end; process 0's report.
fn team(game: &str, dir: &Path, processes: usize) -> Value {
    team_with(game, dir, processes, &[])
}

/// As [`team`], each process also given `extra`.
fn team_with(game: &str, dir: &Path, processes: usize, extra: &[&str]) -> Value {
    run_team(game, &vec![dir; processes], extra)
}

/// Runs a team of one process a directory of `dirs` (the same one
/// repeated where the directory is shared), each also given `extra`, to
/// the end; process 0's report (the others print nothing).
fn run_team(game: &str, dirs: &[&Path], extra: &[&str]) -> Value {
    let processes = dirs.len();
    let port = free_ports(processes);
    let children: Vec<Child> = (0..processes)
        .map(|p| {
            let mut args = team_args(port, processes, p, 15);
            args.extend(extra.iter().map(|a| a.to_string()));
            spawn(game, dirs[p], &args)
        })
        .collect();
    let mut report = Value::Null;
    for (process, child) in children.into_iter().enumerate() {
        let (out, _) = finish(child, LIMIT);
        assert!(
            out.status.success(),
            "process {process} of {processes}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        if process == 0 {
            report = serde_json::from_slice(&out.stdout).expect("JSON from process 0");
        } else {
            assert!(out.stdout.is_empty(), "only process 0 reports");
        }
    }
    report
}

fn alone(game: &str, dir: &Path) -> Value {
    alone_with(game, dir, &[])
}

/// One `ply analyze GAME --save --json` with `extra` options; its report.
fn alone_with(game: &str, dir: &Path, extra: &[String]) -> Value {
    let (out, _) = finish(spawn(game, dir, extra), LIMIT);
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    serde_json::from_slice(&out.stdout).expect("JSON")
}

/// Every shard in `dir`, by file name, with all its cells in key order.
fn cells(dir: &Path) -> Vec<(String, Vec<u16>)> {
    shard_files(dir)
        .iter()
        .map(|path| {
            let name = path.file_name().unwrap().to_string_lossy().into_owned();
            (name, shard_cells(path))
        })
        .collect()
}

/// The counts of a report, without what differs with the build: what this
/// process solved, found and needed at most, and where it saved.
fn counts(report: &Value) -> Value {
    let mut report = report.clone();
    let object = report.as_object_mut().expect("an object");
    for key in [
        "tiers_found_done",
        "bytes_exchanged",
        "rounds",
        "tiers_solved",
        "saved",
        "saved_bytes",
        "processes",
        "largest_tier_bytes",
        "bytes_sent",
        "messages",
        "file_bytes",
        "bytes_sent_by_process",
        "tiers_cut",
    ] {
        object.remove(key);
    }
    report
}

/// The peak resident memory (`VmHWM`) of a running process, in bytes, if
/// it can be read (Linux, while the process lives).
fn peak_resident(pid: u32) -> Option<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status")).ok()?;
    let line = status.lines().find(|l| l.starts_with("VmHWM:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// A team of 2 on quixo:4x4 (86,093,442 positions in 81 tiers): each
/// process holds the tiers it is solving and their children, never the
/// whole index. Peaks are sampled every 10 ms until each process ends;
/// each must stay under one byte for each position of half the index,
/// where the whole table of two-byte cells would be 172 MB.
#[test]
fn a_team_process_holds_its_tiers_not_the_whole_index() {
    if peak_resident(std::process::id()).is_none() {
        eprintln!("no /proc/PID/status here: peak memory cannot be read");
        return;
    }
    let game = "quixo:4x4";
    let dir = Scratch::new("team-memory");
    let (report, peaks) = sampled_team(game, &[&dir.0, &dir.0], &[]);
    let positions = report["positions"].as_u64().expect("positions");
    assert_eq!(positions, 86_093_442, "{report}");
    for (process, peak) in peaks.into_iter().enumerate() {
        assert!(peak > 0, "process {process}: its peak was read");
        assert!(
            peak < positions / 2,
            "process {process} peaked at {peak} bytes: more than a byte for each position of \
             half the index ({positions} positions)"
        );
    }
}

/// Runs a team of one process a directory of `dirs`, each also given
/// `extra`, to the end, sampling each process's peak resident memory
/// every 10 ms: process 0's report and each process's peak.
fn sampled_team(game: &str, dirs: &[&Path], extra: &[&str]) -> (Value, Vec<u64>) {
    let processes = dirs.len();
    let port = free_ports(processes);
    let mut children: Vec<Child> = (0..processes)
        .map(|p| {
            let mut args = team_args(port, processes, p, 30);
            args.extend(extra.iter().map(|a| a.to_string()));
            spawn(game, dirs[p], &args)
        })
        .collect();
    let mut peaks = vec![0u64; processes];
    let start = Instant::now();
    while children
        .iter_mut()
        .any(|c| c.try_wait().expect("wait").is_none())
    {
        for (child, peak) in children.iter().zip(&mut peaks) {
            if let Some(bytes) = peak_resident(child.id()) {
                *peak = (*peak).max(bytes);
            }
        }
        assert!(
            start.elapsed() < LIMIT,
            "the team did not end within {LIMIT:?}"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    let mut report = Value::Null;
    for (process, child) in children.into_iter().enumerate() {
        let out = child.wait_with_output().expect("output");
        assert!(
            out.status.success(),
            "process {process}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        if process == 0 {
            report = serde_json::from_slice(&out.stdout).expect("JSON from process 0");
        }
    }
    (report, peaks)
}

/// What makes a team cut every tier between its processes: the tiers
/// with moves inside them (every quixo tier) solved in lockstep rounds.
const CUT_EVERY_TIER: [&str; 3] = ["--cut-from", "1", "--cut-classes"];

/// Quixo 3x3 (symmetry inside tiers), Nine Men's Morris with four stones
/// (none) and Teeko 4x4 (symmetry, and tiers every move leaves beside the
/// others) with every tier cut between 2 and 3 processes, each with a
/// directory of its own: process 0's directory holds the cells of one
/// process, every other one's only sound shards saying the same, and a
/// rerun writes nothing.
#[test]
fn tiers_cut_in_rounds_with_a_directory_each_write_the_cells_of_one() {
    for game in ["quixo:3x3", "morris:4", "teeko:4x4"] {
        cut_in_rounds_writes_the_cells_of_one(game);
    }
}

/// [`tiers_cut_in_rounds_with_a_directory_each_write_the_cells_of_one`]
/// for `game`.
fn cut_in_rounds_writes_the_cells_of_one(game: &str) {
    let one = Scratch::new(&format!("{game}-cut-rounds-one"));
    let expected_report = alone(game, &one.0);
    let expected: std::collections::BTreeMap<String, Vec<u16>> =
        cells(&one.0).into_iter().collect();
    for processes in [2, 3] {
        let scratch: Vec<Scratch> = (0..processes)
            .map(|p| Scratch::new(&format!("{game}-cut-rounds-{processes}-{p}")))
            .collect();
        let dirs: Vec<&Path> = scratch.iter().map(|s| s.0.as_path()).collect();
        let report = run_team(game, &dirs, &CUT_EVERY_TIER);
        let what = format!("{game}, every tier cut between {processes} processes");
        assert_eq!(counts(&report), counts(&expected_report), "{what}");
        let zero: std::collections::BTreeMap<String, Vec<u16>> =
            cells(dirs[0]).into_iter().collect();
        assert_eq!(zero, expected, "{what}: process 0");
        for (process, dir) in dirs.iter().enumerate().skip(1) {
            for (name, theirs) in cells(dir) {
                let ours = expected.get(&name).expect("a shard of the game");
                let differ = ours
                    .iter()
                    .zip(&theirs)
                    .filter(|&(&o, &t)| !same_cell(o, t))
                    .count();
                assert_eq!(differ, 0, "{what}: {name} of process {process}");
            }
            only_shards_left(dir);
        }
        only_shards_left(dirs[0]);
        let before: Vec<_> = dirs.iter().map(|d| mtimes(d)).collect();
        let rerun = run_team(game, &dirs, &CUT_EVERY_TIER);
        assert_eq!(counts(&rerun), counts(&expected_report), "{what}: rerun");
        let after: Vec<_> = dirs.iter().map(|d| mtimes(d)).collect();
        assert_eq!(before, after, "{what}: the rerun wrote nothing");
    }
}

/// Quixo 4x4 with every tier cut between 2 processes, a directory each:
/// process 0 ends with the cells of one process, and each process peaks
/// under its half of the largest tier's working cells (4,036,032
/// indices, two bytes each) plus SLACK for what it holds beside them:
/// the program, the child tiers' cells, a round's updates (a byte or two
/// each; held at eight, as they first were, a process peaked at 79 MB)
/// and the folded positions waiting for their representatives' cells.
/// Measured: 36 and 49 MB.
#[test]
fn quixo_4x4_cut_in_rounds_gives_the_cells_of_one_and_each_process_holds_its_share() {
    if peak_resident(std::process::id()).is_none() {
        eprintln!("no /proc/PID/status here: peak memory cannot be read");
        return;
    }
    const SLACK: u64 = 56 << 20;
    let game = "quixo:4x4";
    let one = Scratch::new("cut-rounds-4x4-one");
    let expected_report = alone(game, &one.0);
    let expected = cells(&one.0);
    let largest = expected
        .iter()
        .map(|(_, c)| c.len() as u64)
        .max()
        .expect("tiers");
    let scratch: Vec<Scratch> = (0..2)
        .map(|p| Scratch::new(&format!("cut-rounds-4x4-{p}")))
        .collect();
    let dirs: Vec<&Path> = scratch.iter().map(|s| s.0.as_path()).collect();
    let (report, peaks) = sampled_team(game, &dirs, &CUT_EVERY_TIER);
    assert_eq!(counts(&report), counts(&expected_report));
    assert_eq!(cells(dirs[0]), expected, "process 0");
    let share = 2 * largest / 2 + SLACK;
    for (process, peak) in peaks.into_iter().enumerate() {
        assert!(peak > 0, "process {process}: its peak was read");
        assert!(
            peak < share,
            "process {process} peaked at {peak} bytes, over its share of the largest tier \
             ({largest} indices, two bytes each, halved) and {SLACK} bytes beside"
        );
    }
}

/// Quixo and teeko write a shard per tier; euler is solved into one table
/// walked tier by tier and 4x4 tic-tac-toe into a table of the positions
/// play reaches, each tier's positions dealt out between the processes,
/// which exchange what they solved through the directory.
#[test]
fn two_and_three_processes_write_the_cells_of_one() {
    for (game, shards) in [
        ("quixo:3x3", 9),
        ("teeko:4x4", 9),
        ("euler:4x5", 1),
        ("tictactoe", 1),
    ] {
        let one = Scratch::new(&format!("{game}-one"));
        let expected_report = alone(game, &one.0);
        let expected = cells(&one.0);
        assert!(
            expected.len() >= shards,
            "{game}: {} shards",
            expected.len()
        );
        for processes in [2, 3] {
            let dir = Scratch::new(&format!("{game}-p{processes}"));
            let report = team(game, &dir.0, processes);
            assert_eq!(report["processes"], processes);
            if shards == 1 {
                let exchanged = report["bytes_exchanged"].as_u64().expect("bytes");
                assert!(exchanged > 0, "{game}: the parts were counted");
            }
            assert_eq!(counts(&report), counts(&expected_report), "{game}");
            assert_eq!(cells(&dir.0), expected, "{game}, {processes} processes");
            only_shards_left(&dir.0);
        }
    }
}

/// Runs a team of `processes`, process I building into `dirs[I]` (no
/// directory shared); process 0's report.
fn team_apart(game: &str, dirs: &[&Path]) -> Value {
    run_team(game, dirs, &[])
}

/// The bytes of the shards in `dir`.
fn shard_bytes(dir: &Path) -> u64 {
    shard_files(dir)
        .iter()
        .map(|p| std::fs::metadata(p).expect("a shard").len())
        .sum()
}

/// Process 0 of a tier team of 2 reports what the processes sent each
/// other: with a directory each, the files fetched are the shards of
/// process 1's directory (each written there and fetched by process 0,
/// or fetched there from process 0), byte for byte where no tier is cut
/// (quixo:3x3: its moves stay in their tier) and at least that where
/// slices travel too; with one directory shared, nothing is fetched, and
/// every frame is a notice of 9 bytes. Every tier is told to the peer.
#[test]
fn a_tier_team_reports_the_bytes_and_messages_it_sent() {
    for game in ["quixo:3x3", "teeko:4x4"] {
        let apart: Vec<Scratch> = (0..2)
            .map(|p| Scratch::new(&format!("{game}-traffic-{p}")))
            .collect();
        let dirs: Vec<&Path> = apart.iter().map(|s| s.0.as_path()).collect();
        let report = team_apart(game, &dirs);
        let count = |key: &str| {
            report[key]
                .as_u64()
                .unwrap_or_else(|| panic!("{key}: {report}"))
        };
        let tiers = count("tiers");
        let by_process: Vec<u64> = report["bytes_sent_by_process"]
            .as_array()
            .expect("by process")
            .iter()
            .map(|b| b.as_u64().expect("every process told"))
            .collect();
        assert_eq!(by_process.len(), 2, "{game}");
        assert!(by_process.iter().all(|&b| b > 0), "{game}: {by_process:?}");
        assert_eq!(
            by_process.iter().sum::<u64>(),
            count("bytes_sent"),
            "{game}"
        );
        let fetched = shard_bytes(dirs[1]);
        assert!(fetched > 0, "{game}: process 1 holds shards");
        if game == "quixo:3x3" {
            assert_eq!(count("file_bytes"), fetched, "{game}");
        } else {
            assert!(count("file_bytes") >= fetched, "{game}: {report}");
        }
        assert!(
            count("bytes_sent") >= count("file_bytes") + 9 * count("messages"),
            "{game}: {report}"
        );
        assert!(count("messages") >= tiers, "{game}: {report}");

        let shared = Scratch::new(&format!("{game}-traffic-shared"));
        let report = team(game, &shared.0, 2);
        let count = |key: &str| {
            report[key]
                .as_u64()
                .unwrap_or_else(|| panic!("{key}: {report}"))
        };
        assert_eq!(count("file_bytes"), 0, "{game}: {report}");
        assert!(count("messages") >= tiers, "{game}: {report}");
        assert_eq!(count("bytes_sent"), 9 * count("messages"), "{game}");
    }
}

/// Every file in `dir`, by name, with when it was last written.
fn mtimes(dir: &Path) -> std::collections::BTreeMap<String, std::time::SystemTime> {
    std::fs::read_dir(dir)
        .expect("the database directory")
        .flatten()
        .map(|e| {
            let name = e.file_name().to_string_lossy().into_owned();
            (
                name,
                e.metadata().and_then(|m| m.modified()).expect("a time"),
            )
        })
        .collect()
}

/// A tier team whose processes each have their own `--db-dir`, shared
/// with no other: each fetches the child tiers it needs from their
/// writers over TCP, and process 0 all of them. Process 0's directory
/// holds the cells of one process; every other process's holds its own
/// shards and those it fetched, sound and saying what one process's do,
/// and nothing else. A rerun finds everything done and writes nothing.
#[test]
fn a_tier_team_with_a_directory_each_writes_the_cells_of_one() {
    for game in ["quixo:3x3", "teeko:4x4"] {
        let one = Scratch::new(&format!("{game}-apart-one"));
        let expected_report = alone(game, &one.0);
        let expected: std::collections::BTreeMap<String, Vec<u16>> =
            cells(&one.0).into_iter().collect();
        for processes in [2, 3] {
            let scratch: Vec<Scratch> = (0..processes)
                .map(|p| Scratch::new(&format!("{game}-apart-{processes}-{p}")))
                .collect();
            let dirs: Vec<&Path> = scratch.iter().map(|s| s.0.as_path()).collect();
            let report = team_apart(game, &dirs);
            let what = format!("{game}, {processes} processes");
            assert_eq!(counts(&report), counts(&expected_report), "{what}");
            let zero: std::collections::BTreeMap<String, Vec<u16>> =
                cells(dirs[0]).into_iter().collect();
            assert_eq!(zero, expected, "{what}: process 0");
            for (process, dir) in dirs.iter().enumerate().skip(1) {
                let held = cells(dir);
                assert!(!held.is_empty(), "{what}: process {process} wrote shards");
                for (name, theirs) in &held {
                    let path = dir.join(name);
                    Database::open_piece(&path)
                        .and_then(|db| db.verify())
                        .unwrap_or_else(|e| panic!("{what}: {name} of process {process}: {e}"));
                    let ours = expected.get(name).expect("a shard of the game");
                    assert_eq!(ours.len(), theirs.len(), "{what}: {name}");
                    let differ = ours
                        .iter()
                        .zip(theirs)
                        .filter(|&(&o, &t)| !same_cell(o, t))
                        .count();
                    assert_eq!(differ, 0, "{what}: {name} of process {process}");
                }
                only_shards_left(dir);
            }
            only_shards_left(dirs[0]);
            let before: Vec<_> = dirs.iter().map(|d| mtimes(d)).collect();
            let rerun = team_apart(game, &dirs);
            assert_eq!(counts(&rerun), counts(&expected_report), "{what}: rerun");
            let after: Vec<_> = dirs.iter().map(|d| mtimes(d)).collect();
            assert_eq!(before, after, "{what}: the rerun wrote nothing");
        }
    }
}

/// Quixo and morris, which the whole-index solver does not take, run the
/// tier team at the addresses of `--hosts`: the cells of one process, and
/// nothing but shards left in the directory.
#[test]
fn a_tier_team_at_the_hosts_of_a_hosts_file_writes_the_cells_of_one() {
    for game in ["quixo:3x3", "morris:4"] {
        let one = Scratch::new(&format!("{game}-hosts-one"));
        let expected = alone(game, &one.0);
        let dir = Scratch::new(&format!("{game}-hosts"));
        let hosts = hosts_file(&dir.0, 3);
        let children: Vec<Child> = (0..3)
            .map(|p| {
                let args = [
                    "--processes".to_string(),
                    "3".into(),
                    "--process".into(),
                    p.to_string(),
                    "--hosts".into(),
                    hosts.display().to_string(),
                ];
                spawn(game, &dir.0, &args)
            })
            .collect();
        let mut report = Value::Null;
        for (process, child) in children.into_iter().enumerate() {
            let (out, _) = finish(child, LIMIT);
            assert!(
                out.status.success(),
                "{game} process {process}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            if process == 0 {
                report = serde_json::from_slice(&out.stdout).expect("JSON from process 0");
            }
        }
        assert_eq!(report["processes"], 3, "{game}");
        assert_eq!(counts(&report), counts(&expected), "{game}");
        std::fs::remove_file(&hosts).expect("the hosts file");
        assert_eq!(cells(&dir.0), cells(&one.0), "{game}");
        only_shards_left(&dir.0);
    }
}

/// Connect Four 5x4 (3,945,711 positions, 21 tiers), which one process
/// builds by its own streams of keys, as a tier team of 3 at the
/// addresses of `--hosts`, a directory each: the team runs the generic
/// tier solver, not the streams (with them each process would build every
/// tier alone and send nothing), so process 0 solves fewer than the 21
/// tiers and every process sends. Process 0's shards equal, bit for bit,
/// those of the generic tier solver on one process (a team of one: the
/// only way to run it alone on connect4 from the command line); its
/// report counts what the streams' does (by value and remoteness), and
/// its shards say what the streams' say, cell for cell: the same value,
/// and the same remoteness wherever both keep it. The two builds pick the
/// side whose remoteness they leave out each by a sample of its own (the
/// streams from the largest tier, the generic solver from every shard),
/// and on 5x4 they pick different sides.
#[test]
fn connect4_as_a_tier_team_runs_the_tier_solver_and_says_what_its_own_build_says() {
    let game = "connect4:5x4";
    let one = Scratch::new("connect4-team-one");
    let expected_report = alone(game, &one.0);
    let expected: std::collections::BTreeMap<String, Vec<u16>> =
        cells(&one.0).into_iter().collect();
    let generic = Scratch::new("connect4-team-generic");
    run_team(game, &[generic.0.as_path()], &[]);
    let scratch: Vec<Scratch> = (0..3)
        .map(|p| Scratch::new(&format!("connect4-team-{p}")))
        .collect();
    let hosts = hosts_file(&scratch[0].0, 3);
    let dirs: Vec<&Path> = scratch.iter().map(|s| s.0.as_path()).collect();
    let report = run_team(game, &dirs, &["--hosts", hosts.to_str().expect("a path")]);
    std::fs::remove_file(&hosts).expect("the hosts file");
    assert_eq!(report["processes"], 3);
    let tiers = report["tiers"].as_u64().expect("a count of tiers");
    assert!(
        report["tiers_solved"].as_u64().is_some_and(|s| s < tiers),
        "process 0 solved its share of the tiers, not all: {report}"
    );
    let sent = report["bytes_sent_by_process"]
        .as_array()
        .expect("the traffic of every process");
    assert!(
        sent.len() == 3 && sent.iter().all(|b| b.as_u64().is_some_and(|b| b > 0)),
        "every process sent: {report}"
    );
    assert_eq!(cells(dirs[0]), cells(&generic.0), "the tier solver alone");
    assert_eq!(counts(&report), counts(&expected_report));
    let zero: std::collections::BTreeMap<String, Vec<u16>> = cells(dirs[0]).into_iter().collect();
    let differ = assert_cells_say_the_same(&expected, &zero, "process 0");
    eprintln!("{game}: {differ} cells differ by the side whose remoteness is left out");
}

#[test]
fn workers_solve_each_tier_together_to_the_cells_of_one() {
    for game in ["quixo:3x3", "teeko:4x4", "euler:4x5", "tictactoe:3x3x3"] {
        let one = Scratch::new(&format!("{game}-alone"));
        let expected_report = alone(game, &one.0);
        let expected = cells(&one.0);
        for workers in 1..=4 {
            let dir = Scratch::new(&format!("{game}-w{workers}"));
            let report = alone_with(game, &dir.0, &["--workers".into(), workers.to_string()]);
            assert_eq!(report["workers"], workers, "{game}");
            let mut report = counts(&report);
            report.as_object_mut().unwrap().remove("workers");
            assert_eq!(report, counts(&expected_report), "{game}");
            assert_eq!(cells(&dir.0), expected, "{game}, {workers} workers");
        }
    }
}

/// A team's processes on `--workers N` threads each: the cells of one.
#[test]
fn a_team_on_worker_threads_writes_the_cells_of_one() {
    let game = "teeko:4x4";
    let one = Scratch::new("team-workers-one");
    let expected = alone(game, &one.0);
    for workers in ["1", "2"] {
        let dir = Scratch::new(&format!("team-workers-{workers}"));
        let report = team_with(game, &dir.0, 2, &["--workers", workers]);
        assert_eq!(report["workers"].to_string(), workers);
        let mut report = counts(&report);
        report.as_object_mut().unwrap().remove("workers");
        assert_eq!(report, counts(&expected));
        assert_eq!(cells(&dir.0), cells(&one.0), "{workers} workers each");
    }
}

#[test]
fn a_stopped_process_is_named_and_a_rerun_resumes_to_the_same_cells() {
    let game = "morris:4";
    let dir = Scratch::new("stopped");
    let port = free_ports(2);
    let survivor = spawn(game, &dir.0, &team_args(port, 2, 0, 3));
    let mut victim = spawn(game, &dir.0, &team_args(port, 2, 1, 3));
    // Once the first tier is written, freeze process 1 mid-build: the
    // team builds morris:4 in a second or two, and its large tiers are
    // cut between both processes, so a later trigger can come once
    // process 1 has done all its work (and only its goodbye is missing).
    let start = Instant::now();
    while shards_written(&dir.0) < 1 {
        assert!(start.elapsed() < LIMIT, "no tier written");
        std::thread::sleep(Duration::from_millis(1));
    }
    let (out, took) = stop_then_finish(&mut victim, survivor, Duration::from_secs(60));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "process 0 must fail: {stderr}");
    assert!(stderr.contains("lost process 1"), "{stderr}");
    assert!(took < Duration::from_secs(30), "named after {took:?}");
    let kept = built_times(&dir.0);
    let report = team(game, &dir.0, 2);
    let tiers = report["tiers"].as_u64().expect("a count") as usize;
    assert!(
        kept.len() < tiers,
        "stopped mid-build: {} of {tiers}",
        kept.len()
    );
    let after = built_times(&dir.0);
    for (name, time) in &kept {
        assert_eq!(
            after.get(name),
            Some(time),
            "{name} is kept, not solved again"
        );
    }
    assert_eq!(after.len(), tiers);
    let one = Scratch::new("stopped-one");
    alone(game, &one.0);
    assert_eq!(cells(&dir.0), cells(&one.0));
}

/// Teeko 4x4's move phase goes to process 0 and drop tier 7 to process 1
/// (solved a cell per symmetry class, it is not cut): process 1 killed
/// (SIGKILL) once the move phase is written, as it starts on tier 7,
/// makes process 0 stop, non-zero, naming it; a rerun matches one process.
#[test]
fn a_process_killed_mid_tier_is_named_and_a_rerun_matches() {
    let game = "teeko:4x4";
    let dir = Scratch::new("killed-mid-tier");
    kill_process_1_once(game, &dir.0, "teeko-4x4.tier-moving_phase.plydb");
    let report = team(game, &dir.0, 2);
    let one = Scratch::new("killed-mid-tier-one");
    let expected = alone(game, &one.0);
    assert_eq!(counts(&report), counts(&expected));
    assert_eq!(cells(&dir.0), cells(&one.0));
}

/// A tier team of 2 on morris:4, a directory each: process 1 killed
/// (SIGKILL) as soon as process 0 starts fetching one of its shards (its
/// temporary file appears) makes process 0 stop, non-zero, naming process
/// 1 and the shard it was fetching; a rerun over the same directories
/// writes one process's cells. The fetch may end before the kill lands
/// (a shard is small, loopback fast): then process 0 names what it waited
/// for next, and the test tries again, up to five times.
#[test]
fn a_writer_killed_while_its_shard_is_fetched_is_named_and_a_rerun_matches() {
    let game = "morris:4";
    let one = Scratch::new("fetch-killed-one");
    alone(game, &one.0);
    for attempt in 1..=5 {
        let dirs: Vec<Scratch> = (0..2)
            .map(|p| Scratch::new(&format!("fetch-killed-{attempt}-{p}")))
            .collect();
        let port = free_ports(2);
        let survivor = spawn(game, &dirs[0].0, &team_args(port, 2, 0, 3));
        let victim = spawn(game, &dirs[1].0, &team_args(port, 2, 1, 3));
        let start = Instant::now();
        let fetching = || {
            std::fs::read_dir(&dirs[0].0).is_ok_and(|entries| {
                entries.flatten().any(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    name.ends_with(".from-1-by-0.tmp")
                })
            })
        };
        while !fetching() {
            assert!(start.elapsed() < LIMIT, "process 0 never fetched a shard");
            std::thread::sleep(Duration::from_micros(200));
        }
        let stderr = kill_and_hear(victim, survivor);
        if !stderr.contains("the shard of tier") {
            eprintln!("attempt {attempt}: the fetch ended before the kill: {stderr}");
            continue;
        }
        let dirs: Vec<&Path> = dirs.iter().map(|s| s.0.as_path()).collect();
        team_apart(game, &dirs);
        assert_eq!(cells(dirs[0]), cells(&one.0), "the rerun");
        return;
    }
    panic!("in five attempts, process 1 was never killed while its shard was fetched");
}

/// Euler 5x5 solved into a table by two processes: process 1 killed
/// (SIGKILL) once it is connected and solving makes process 0 stop,
/// non-zero, naming it; a rerun (which solves every tier again: the table
/// team keeps nothing between runs but its database) writes one
/// process's table.
#[test]
fn a_table_team_process_killed_is_named_and_a_rerun_matches() {
    killed_table_team_reruns("euler:5x5");
}

/// 4x4 tic-tac-toe's table of the positions play reaches, by two
/// processes: process 1 killed once it is connected and solving is named,
/// and a rerun matches one process.
#[test]
fn a_sparse_table_team_process_killed_is_named_and_a_rerun_matches() {
    killed_table_team_reruns("tictactoe");
}

/// Euler 5x5 by a table team of 2: process 1 frozen (SIGSTOP) once it is
/// connected makes process 0 stop, non-zero, naming it, within the peer
/// timeout (its heartbeat stops; no file is looked at); nothing but the
/// database directory's own files is left.
#[test]
fn a_table_team_process_stopped_is_named_within_the_peer_timeout() {
    let game = "euler:5x5";
    let dir = Scratch::new("euler-table-stopped");
    let port = free_ports(2);
    let survivor = spawn(game, &dir.0, &team_args(port, 2, 0, 3));
    let mut victim = spawn(game, &dir.0, &team_args(port, 2, 1, 3));
    wait_until_connected(&victim);
    let (out, took) = stop_then_finish(&mut victim, survivor, Duration::from_secs(60));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "process 0 must fail: {stderr}");
    assert!(stderr.contains("lost process 1"), "{stderr}");
    assert!(stderr.contains("no heartbeat for 3 s"), "{stderr}");
    assert!(took < Duration::from_secs(30), "named after {took:?}");
    assert!(
        shard_files(&dir.0).is_empty(),
        "no database of a failed team"
    );
    only_shards_left(&dir.0);
}

/// A table team of 2 on `game`, process 1 killed once it is connected;
/// the rerun writes one process's table, and nothing else is left.
fn killed_table_team_reruns(game: &str) {
    let dir = Scratch::new(&format!("{game}-table-killed"));
    let port = free_ports(2);
    let survivor = spawn(game, &dir.0, &team_args(port, 2, 0, 3));
    let mut victim = spawn(game, &dir.0, &team_args(port, 2, 1, 3));
    wait_until_connected(&victim);
    victim.kill().expect("kill");
    let _ = victim.wait();
    let (out, took) = finish(survivor, Duration::from_secs(60));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success(), "process 0 must fail: {stderr}");
    assert!(stderr.contains("lost process 1"), "{stderr}");
    assert!(took < Duration::from_secs(30), "named after {took:?}");
    assert!(
        shard_files(&dir.0).is_empty(),
        "no database of a failed team"
    );
    let report = team(game, &dir.0, 2);
    assert!(report.get("tiers_restored").is_none(), "{report}");
    let one = Scratch::new(&format!("{game}-table-killed-one"));
    let expected = alone(game, &one.0);
    assert_eq!(counts(&report), counts(&expected));
    assert_eq!(cells(&dir.0), cells(&one.0));
    assert_eq!(shard_files(&dir.0).len(), 1, "one database");
    only_shards_left(&dir.0);
}

/// Waits until `process` of a team has connected to its peers: it then
/// runs a thread reading its data connection to process 0 (`ply:crew-0`),
/// and its build is under way.
fn wait_until_connected(process: &Child) {
    let tasks = PathBuf::from(format!("/proc/{}/task", process.id()));
    let start = Instant::now();
    loop {
        let connected = std::fs::read_dir(&tasks).is_ok_and(|tasks| {
            tasks.flatten().any(|task| {
                std::fs::read_to_string(task.path().join("comm"))
                    .is_ok_and(|name| name.trim() == "ply:crew-0")
            })
        });
        if connected {
            return;
        }
        assert!(
            start.elapsed() < LIMIT,
            "process {} never connected",
            process.id()
        );
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Starts a team of 2 building `game` in `dir`, kills process 1 (SIGKILL)
/// as soon as the file `written` appears there, and checks that process 0
/// then stops, non-zero, naming process 1, within 30 s.
fn kill_process_1_once(game: &str, dir: &Path, written: &str) {
    let port = free_ports(2);
    let survivor = spawn(game, dir, &team_args(port, 2, 0, 3));
    let victim = spawn(game, dir, &team_args(port, 2, 1, 3));
    let file = dir.join(written);
    let start = Instant::now();
    while !file.exists() {
        assert!(start.elapsed() < LIMIT, "{written} was never written");
        std::thread::sleep(Duration::from_millis(1));
    }
    kill_and_hear(victim, survivor);
}

/// Kills `victim`, process 1 (SIGKILL), and checks that `survivor`,
/// process 0, then stops non-zero naming process 1 within 30 s; returns
/// what it printed on stderr.
fn kill_and_hear(mut victim: Child, survivor: Child) -> String {
    victim.kill().expect("kill");
    let _ = victim.wait();
    let (out, took) = finish(survivor, Duration::from_secs(60));
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(!out.status.success(), "process 0 must fail: {stderr}");
    assert!(stderr.contains("lost process 1"), "{stderr}");
    assert!(took < Duration::from_secs(30), "named after {took:?}");
    stderr
}

/// How many shards are in `dir`.
fn shards_written(dir: &Path) -> usize {
    std::fs::read_dir(dir).map_or(0, |entries| {
        entries
            .flatten()
            .filter(|e| e.path().extension().is_some_and(|x| x == "plydb"))
            .count()
    })
}

#[test]
fn a_shared_build_is_refused_without_what_it_needs() {
    let dir = Scratch::new("refused");
    let db = dir.0.to_str().unwrap();
    // `ply analyze GAME --db-dir DIR ARGS` must fail, saying `says`.
    let refused = |game: &str, args: &[&str], says: &str| {
        let out = Command::new(env!("CARGO_BIN_EXE_ply"))
            .args(["analyze", game, "--db-dir", db])
            .args(args)
            .output()
            .expect("ply runs");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{game} {args:?} must fail");
        assert!(stderr.contains(says), "{game} {args:?}: {stderr}");
        assert!(!stderr.contains("panicked"), "{stderr}");
    };
    let quixo = "quixo:3x3";
    refused(
        quixo,
        &["--processes", "2", "--process", "0"],
        "give --save",
    );
    refused(
        quixo,
        &["--save", "--processes", "2"],
        "--processes and --process go together",
    );
    refused(
        quixo,
        &["--save", "--processes", "2", "--process", "2"],
        "must be below",
    );
    refused(
        "yehr",
        &["--save", "--processes", "2", "--process", "0"],
        "yehr does not write its tiers as shards of their own",
    );
}
