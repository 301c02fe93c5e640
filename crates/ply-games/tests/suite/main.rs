//! The integration tests of `ply-games`, one module per former test file,
//! in one test binary (one link instead of one per file). Run one file's
//! tests with `cargo test --release -p ply-games --test suite MODULE::`.

mod conformance;
mod connect4_streams;
mod connect4_tiers;
mod dist;
mod dobutsu;
mod euler_facts;
mod euler_table;
mod lgame;
mod morris_facts;
mod morris_whole;
mod position_errors;
mod retro_euler;
mod retro_vs_tables;
mod teeko;
mod teeko_tiers;
mod tictactoe;
mod treblecross;
mod yehr;
mod yehr_theory;
