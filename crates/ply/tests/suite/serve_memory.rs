//! `ply serve`'s resident memory under a small `--session-mib`: after many
//! variants, each opened and solved once, the process's peak resident
//! memory (VmHWM) stays under the budget plus the overhead `--help` states.

use crate::common;

use common::http::{Client, solve_path};
use common::server::Process as Server;
use ply::serve::limits::OVERHEAD_MIB;

/// The session budget of the test server, in MiB.
const BUDGET_MIB: u64 = 40;

/// Sixteen variants of every kind of session: tables, reachable tables,
/// retrograde tables, sums with their search, one-byte retrograde, tiers.
/// The seven Euler boards of 24 squares take a dense 32 MiB table each:
/// together more than the budget and the overhead.
const VARIANTS: &[&str] = &[
    "euler:4x6x2",
    "euler:4x6x3",
    "euler:4x6x4",
    "euler:4x6x5",
    "euler:4x6x6",
    "euler:6x4",
    "euler:3x8",
    "tictactoe:3x3x3",
    "tictactoe:4x4x3",
    "treblecross:200",
    "treblecross:5000",
    "lgame",
    "yehr",
    "dobutsu:C",
    "quixo:3x3",
    "teeko:4x4",
];

/// A field of `/proc/PID/status` in KiB (`VmHWM`, `VmRSS`).
fn status_kib(proc: &str, field: &str) -> u64 {
    let status = std::fs::read_to_string(format!("{proc}/status")).unwrap();
    status
        .lines()
        .find_map(|line| line.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|rest| rest.trim().trim_end_matches("kB").trim().parse().ok())
        .unwrap_or_else(|| panic!("no {field} in {status}"))
}

#[test]
fn resident_memory_stays_under_the_budget_plus_the_stated_overhead() {
    // The overhead is what --help promises.
    let help = common::cli::ply(&["serve", "--help"], b"");
    let help = String::from_utf8_lossy(&help.stdout).replace('\n', " ");
    let help = help.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        help.contains(&format!("under this plus {OVERHEAD_MIB} MiB")),
        "{help}"
    );

    // The Euler tables alone are past the budget and the overhead, so a
    // server that kept every game would fail: it must close games.
    let mut euler = 0;
    let mut fits = Vec::new();
    for spec in VARIANTS {
        let bound = ply::registry::open(spec).unwrap().memory_bound();
        if spec.starts_with("euler") {
            euler += bound;
        }
        fits.push(bound <= BUDGET_MIB << 20);
    }
    assert!(
        euler > (BUDGET_MIB + OVERHEAD_MIB) << 20,
        "{euler} bytes of Euler tables"
    );

    let budget = BUDGET_MIB.to_string();
    let server = Server::start(&["--no-db", "--session-mib", &budget]);
    let proc = server.proc();
    let mut client = Client::connect(server.addr).unwrap();
    for (spec, fits) in VARIANTS.iter().zip(fits) {
        let answer = client.get(&solve_path(spec, None)).unwrap();
        let expected = if fits { 200 } else { 503 };
        assert_eq!(answer.status, expected, "{spec}: {}", answer.body);
    }
    let peak = status_kib(&proc, "VmHWM");
    let resident = status_kib(&proc, "VmRSS");
    let limit = (BUDGET_MIB + OVERHEAD_MIB) << 10;
    eprintln!("peak {peak} KiB, now {resident} KiB, limit {limit} KiB");
    assert!(peak <= limit, "peak resident {peak} KiB over {limit} KiB");
}
