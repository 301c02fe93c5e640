//! `ply solve --memory` sizes the transposition table of every search it
//! opens, not only Morris's placing phase. Alone in its test binary: the
//! table size is a process-wide setting.

use ply::registry;
use ply_core::limits::{SEARCH_TABLE_BYTES, search_table_bytes, set_search_table_bytes};

#[test]
fn an_alpha_beta_session_takes_its_table_from_the_memory_setting() {
    // tictactoe:5x5x4 is too big to tabulate, so it is searched.
    let default = registry::open("tictactoe:5x5x4").expect("opens");
    assert_eq!(search_table_bytes(), SEARCH_TABLE_BYTES);
    let default_bound = default.memory_bound();
    set_search_table_bytes(SEARCH_TABLE_BYTES * 4);
    let bigger = registry::open("tictactoe:5x5x4").expect("opens");
    set_search_table_bytes(SEARCH_TABLE_BYTES);
    // The table is most of the bound: four times the table, at least
    // three times the bound (the entries round up to a prime).
    assert!(
        bigger.memory_bound() >= 3 * default_bound,
        "{} against {default_bound}",
        bigger.memory_bound()
    );
    assert!(default_bound >= SEARCH_TABLE_BYTES, "{default_bound}");
}
