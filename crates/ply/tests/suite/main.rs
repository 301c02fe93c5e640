//! The integration tests of `ply`, one module per former test file, in
//! one test binary: each test binary is compiled and linked on its own
//! against all of ply (tokio, axum, arrow, parquet...), and building one
//! per file took most of CI's release build. Run one file's tests with
//! `cargo test --release -p ply --test suite MODULE::`.
//!
//! The tests here share a process and run on parallel threads: a test
//! that changes process-wide state (a setting of `ply_core::limits`, the
//! session store) has a test binary of its own instead (`search_memory`,
//! `serve_tiers`).

#[path = "../common/mod.rs"]
mod common;

mod api_vs_cli;
mod benchmarks_doc;
mod cancel_kinds;
mod connect4_cli;
mod db;
mod dist_cli;
mod dobutsu_cli;
mod euler_cli;
mod examples;
mod export;
mod fuzz_corpus;
mod hostile_input;
mod limits_text;
mod morris_cli;
mod netns_cluster;
mod one_voice;
mod packing_cli;
mod peer_scripts;
mod play_cli;
mod play_match;
mod quixo_cli;
mod readme;
mod retro;
mod serve_api;
mod serve_db;
mod serve_limits;
mod serve_memory;
mod serve_placing;
mod table_session;
mod teeko_cli;
mod tictactoe;
mod tier_team_cli;
mod treblecross;
mod uva10536;
mod yehr;
