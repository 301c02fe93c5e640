//! Octal games against published facts (data files) and the plain loop.

use ply_core::NoProgress;
use ply_core::solve::octal::{OctalCode, Period, compute, plain_values};

fn data(name: &str) -> impl Iterator<Item = String> {
    let path = format!("{}/tests/data/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e}"))
        .lines()
        .map(str::trim)
        .filter(|line| !line.is_empty() && !line.starts_with('#'))
        .map(String::from)
        .collect::<Vec<_>>()
        .into_iter()
}

#[test]
fn published_periods_are_proved_exactly_when_the_theorem_allows() {
    let mut checked = 0;
    for line in data("octal_periods.txt") {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let code = OctalCode::parse(fields[0]).unwrap();
        let period: usize = fields[1].parse().unwrap();
        let preperiod: usize = fields[2].parse().unwrap();
        // The theorem needs every heap up to 2*n0 + 2p + k - 1 (n0 >= 1).
        let needed = 2 * preperiod.max(1) + 2 * period + code.max_take() - 1;
        let proved = compute(&code, needed, &NoProgress).unwrap();
        assert_eq!(
            proved.period,
            Some(Period { period, preperiod }),
            "{code} up to {needed}"
        );
        let short = compute(&code, needed - 1, &NoProgress).unwrap();
        assert_eq!(short.period, None, "{code} up to {}: no guess", needed - 1);
        // Values past the proof follow from the period.
        let longer = compute(&code, needed + 5 * period, &NoProgress).unwrap();
        assert_eq!(longer.values[..=needed], proved.values[..]);
        for n in preperiod..longer.values.len() - period {
            assert_eq!(longer.values[n + period], longer.values[n], "{code} at {n}");
        }
        checked += 1;
    }
    assert_eq!(checked, 7);
}

#[test]
fn published_values_match() {
    let mut checked = 0;
    for line in data("octal_values.txt") {
        let (code, values) = line.split_once(':').unwrap();
        let code = OctalCode::parse(code).unwrap();
        let expected: Vec<u16> = values
            .split_whitespace()
            .map(|v| v.parse().unwrap())
            .collect();
        let computed = compute(&code, expected.len() - 1, &NoProgress).unwrap();
        assert_eq!(computed.values, expected, "{code}");
        checked += 1;
    }
    assert_eq!(checked, 3);
}

#[test]
fn the_dense_kernel_and_the_sparse_method_agree_with_the_plain_loop() {
    // 0.007 has no sparse space (the dense kernel runs); 0.127 and 0.77 do.
    for (code, up_to) in [
        ("0.007", 9000),
        ("4.07", 6000),
        ("0.127", 9000),
        ("0.6", 5000),
    ] {
        let code = OctalCode::parse(code).unwrap();
        let fast = compute(&code, up_to, &NoProgress).unwrap();
        assert_eq!(fast.values, plain_values(&code, up_to).unwrap(), "{code}");
    }
}

#[test]
fn treblecross_first_losses() {
    // 0.007 heaps n + 2 are empty Treblecross rows of n squares; the first
    // losing rows are n = 6 and 12 (the Treblecross tests confirm this by
    // brute force).
    let values = compute(&OctalCode::parse("0.007").unwrap(), 40, &NoProgress).unwrap();
    let zeros: Vec<usize> = values.zeros().into_iter().filter(|&n| n > 2).collect();
    assert_eq!(zeros[..2], [8, 14]);
}
