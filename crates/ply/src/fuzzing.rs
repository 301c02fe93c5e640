//! What each fuzz target does with its input, here so that the cargo-fuzz
//! targets under `fuzz/` and the plain test replaying their saved corpora
//! (`tests/fuzz_corpus.rs`) run the same code. Each function takes any
//! bytes and must return without panicking; errors are expected answers.

use crate::{judge, registry};
use axum::extract::Query;
use axum::http::Uri;
use ply_core::solve::octal::OctalCode;
use std::collections::HashMap;

/// What a fuzz target does with one input.
pub type Target = fn(&[u8]);

/// The fuzz targets by name, each with its function.
pub const TARGETS: &[(&str, Target)] = &[
    ("judge", judge_input),
    ("position", position),
    ("game_name", game_name),
    ("octal_code", octal_code),
    ("query", query),
];

/// Input for a contest problem: the first byte picks the problem, the rest
/// is its stdin.
pub fn judge_input(data: &[u8]) {
    let Some((&pick, input)) = data.split_first() else {
        return;
    };
    let problem = &judge::PROBLEMS[usize::from(pick) % judge::PROBLEMS.len()];
    let mut output = Vec::new();
    let _ = (problem.run)(&mut &input[..], &mut output);
}

/// A position of a game's default variant: the first byte picks the game,
/// the rest is the position text, parsed and drawn.
pub fn position(data: &[u8]) {
    let Some((&pick, text)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(text) else {
        return;
    };
    let entry = &registry::GAMES[usize::from(pick) % registry::GAMES.len()];
    if let Ok(session) = (entry.open)(None) {
        let _ = session.render(text);
    }
}

/// A game name with parameters, opened (without solving anything).
pub fn game_name(data: &[u8]) {
    if let Ok(spec) = std::str::from_utf8(data) {
        if let Ok(session) = registry::open(spec) {
            let _ = session.name();
            let _ = session.memory_bound();
        }
    }
}

/// An octal game code, as `ply octal` reads it.
pub fn octal_code(data: &[u8]) {
    if let Ok(code) = std::str::from_utf8(data) {
        let _ = OctalCode::parse(code);
    }
}

/// The query string of `GET /api/solve`, read as the server reads it.
pub fn query(data: &[u8]) {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let Ok(uri) = format!("/api/solve?{text}").parse::<Uri>() else {
        return;
    };
    let _ = Query::<HashMap<String, String>>::try_from_uri(&uri);
}
