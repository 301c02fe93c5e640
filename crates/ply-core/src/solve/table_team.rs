//! A table built tier by tier by a team of processes connected over TCP
//! (`ply analyze GAME --save --processes P --process I` for a game solved
//! into a table): [`Table::build_symmetric_team`] (euler); the team's
//! exchange itself is [`crate::team`]'s (`Member`: an all-gather of each
//! tier's cells, no shared directory, no resume inside a build), which
//! [`crate::SparseTable::build_team`] (tictactoe) uses too.

use super::table::{Hooks, Table};
use crate::game::{Symmetric, TableWalk};
use crate::progress::Progress;
use crate::solve::reach::IndexSet;
use crate::team::{Exchanged, Member, Run, Team, TeamError};
use crate::value::Cell;
use std::sync::atomic::{AtomicU16, Ordering::Relaxed};

impl Table {
    /// Builds the table of `game` as process `team.process` of a team
    /// connected over TCP at the team's hosts (see the module
    /// documentation): every process returns the whole table. Stops,
    /// naming it, when a peer is killed or its heartbeat stops for the
    /// team's timeout.
    pub fn build_symmetric_team<G: TableWalk + Symmetric>(
        game: &G,
        team: &Team,
        progress: &dyn Progress,
    ) -> Result<(Table, Exchanged), TeamError> {
        let member = Member::join(game, team, progress)?;
        let mut hooks = Marked {
            member,
            written: IndexSet::new(game.index_len()),
            game,
        };
        let table = Table::fill_symmetric(game, progress, &mut hooks)?;
        Ok((table, hooks.member.finish(game.tier_count())))
    }
}

/// A member building a [`Table`] of a game with symmetries: it marks the
/// one position of each class it solves, and codes its part of a tier
/// from the marks; a reader sets the cells of each class's images.
struct Marked<'a, G> {
    member: Member<'a>,
    /// The positions this process solved in the tier being solved.
    written: IndexSet,
    game: &'a G,
}

impl<G: TableWalk + Symmetric> Hooks for Marked<'_, G> {
    type Error = TeamError;

    #[inline]
    fn record(&self, index: u64) {
        self.written.insert(index);
    }

    fn mine(&self, chunk: u64) -> bool {
        self.member.deals(chunk)
    }

    /// Codes the cells of the positions this process solved in `tier`,
    /// found in index order by their marks (which it clears), as its part;
    /// then reads the peers'.
    fn solved(&mut self, tier: usize, cells: &[AtomicU16]) -> Result<(), TeamError> {
        let runs = self.written.drain_runs(|indices| {
            Run::code(
                indices
                    .iter()
                    .map(|&i| (i, Cell::from_bits(cells[i as usize].load(Relaxed)))),
            )
        });
        let runs = runs.into_iter().flatten().collect();
        self.member.share_runs(tier, runs, &into(self.game, cells))
    }
}

/// Stores each cell read at its key in `cells`, and at the key of each
/// image of its position (the class shares the cell).
fn into<'a, G: TableWalk + Symmetric>(
    game: &'a G,
    cells: &'a [AtomicU16],
) -> impl Fn(u64, Cell) -> bool + Sync + 'a {
    move |key, cell| {
        let Some(position) = game.unrank(key) else {
            return false;
        };
        let mut known = true;
        game.for_each_symmetric(&position, |image| {
            match cells.get(game.rank(&image) as usize) {
                Some(slot) => slot.store(cell.bits(), Relaxed),
                None => known = false,
            }
        });
        known
    }
}
