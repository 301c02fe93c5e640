//! `ply games`, README.md's games table and `ply serve --help` quote the
//! engine's limits (ply_core::limits and the games' own checks), and the
//! games refuse exactly past them.

use ply_core::limits::{MAX_EULER_SQUARES, MAX_TABLE_BYTES, MAX_TREBLECROSS_ROW};
use ply_games::tictactoe::MAX_SQUARES as MAX_TICTACTOE_SQUARES;
use std::process::Command;

fn ply(args: &[&str]) -> (bool, String) {
    let out = Command::new(env!("CARGO_BIN_EXE_ply"))
        .args(args)
        .output()
        .expect("ply runs");
    let text = String::from_utf8_lossy(&out.stdout) + String::from_utf8_lossy(&out.stderr);
    (out.status.success(), text.into_owned())
}

/// The line of `text` starting with `start` (after spaces and `|`).
fn line<'t>(text: &'t str, start: &str) -> &'t str {
    text.lines()
        .find(|l| l.trim_start_matches(['|', ' ']).starts_with(start))
        .unwrap_or_else(|| panic!("no line starting with {start}"))
}

fn treblecross_limit() -> String {
    assert!(MAX_TREBLECROSS_ROW.is_power_of_two());
    format!("3 to 2^{} squares", MAX_TREBLECROSS_ROW.trailing_zeros())
}

#[test]
fn ply_games_quotes_the_limits() {
    let (ok, games) = ply(&["games"]);
    assert!(ok);
    let euler = games
        .split("\ntictactoe")
        .next()
        .expect("euler comes first");
    assert!(
        euler.contains(&format!(
            "up to {MAX_EULER_SQUARES} squares (a {} GiB table)",
            MAX_TABLE_BYTES >> 30
        )),
        "{euler}"
    );
    let tictactoe = &games[games.find("\ntictactoe").expect("tictactoe")..];
    assert!(
        line(tictactoe, "variants").contains(&format!("at most {MAX_TICTACTOE_SQUARES} squares")),
        "{tictactoe}"
    );
    assert!(games.contains(&treblecross_limit()), "{games}");
}

#[test]
fn readme_games_table_quotes_the_limits() {
    let readme = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../README.md"))
        .expect("README.md");
    assert!(
        line(&readme, "`euler`").contains(&format!("up to {MAX_EULER_SQUARES} squares")),
        "euler row"
    );
    assert!(
        line(&readme, "`tictactoe`").contains(&format!("up to {MAX_TICTACTOE_SQUARES} squares")),
        "tictactoe row"
    );
    assert!(line(&readme, "`treblecross`").contains(&treblecross_limit()));
}

#[test]
fn serve_help_quotes_the_table_limit() {
    let (ok, help) = ply(&["serve", "--help"]);
    assert!(ok);
    assert!(
        help.contains(&format!("tables up to {} MiB", MAX_TABLE_BYTES >> 20)),
        "{help}"
    );
}

#[test]
fn games_refuse_just_past_the_limits() {
    let (ok, text) = ply(&["solve", &format!("euler:1x{}", MAX_EULER_SQUARES + 1)]);
    assert!(
        !ok && text.contains(&format!("1 to {MAX_EULER_SQUARES} squares")),
        "{text}"
    );
    let (ok, text) = ply(&[
        "solve",
        &format!("tictactoe:1x{}x1", MAX_TICTACTOE_SQUARES + 1),
    ]);
    assert!(
        !ok && text.contains(&format!("at most {MAX_TICTACTOE_SQUARES}")),
        "{text}"
    );
    let (ok, text) = ply(&["solve", &format!("tictactoe:1x{MAX_TICTACTOE_SQUARES}x1")]);
    assert!(ok, "{text}");
    let (ok, text) = ply(&["solve", &format!("treblecross:{}", MAX_TREBLECROSS_ROW + 1)]);
    assert!(!ok, "{text}");
}
