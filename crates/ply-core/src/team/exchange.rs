//! How a table team exchanges a table's tiers over TCP: each process's
//! *part* of a tier (the cells it solved, see the `part` module) sent to
//! every other process, through a [`Member`] of the team.
//! [`crate::Table::build_symmetric_team`] (euler) and
//! [`crate::SparseTable::build_team`] (tictactoe) are its users.
//!
//! Each tier's chunks of positions are dealt out in turn: process `I`
//! solves chunks `I`, `I + P`, `I + 2P`, ... (neighbouring chunks cost
//! alike, so the shares are even). Once its share of a tier is solved, a
//! process sends the cells it set, in index order, as one message to each
//! of the others, then reads each other process's part of the tier into
//! its own cells before the next tier (an all-gather per tier). A move
//! climbs a tier, so a tier needs only the tiers solved before it: one
//! pass and one exchange per tier, and every process ends with every cell.
//!
//! The processes are connected as a tier team's are (the `crew` module:
//! a data connection and a heartbeat connection per pair, at the
//! addresses of the team's hosts); no directory is shared and no file
//! written for the exchange. A peer killed, frozen or cut off is named
//! ([`TeamError::Lost`]) within the peer timeout; a part that does not
//! read back names its sender ([`TeamError::Garbled`]).
//!
//! **No resume inside a build.** The parts live only in the processes'
//! memory: a team that stops before its last tier leaves nothing behind,
//! and a rerun solves every tier again. What persists is the table's
//! database, which process 0 saves once every process has every cell.

use super::part::{self, Run};
use super::{Crew, Team, TeamError, Traffic, tag_of};
use crate::game::Indexed;
use crate::progress::Progress;
use crate::value::Cell;
use rayon::prelude::*;

/// Cells per run of a part a sparse table's tier is coded in.
const RUN: usize = 1 << 16;

/// What a team's process did beside solving its share.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Exchanged {
    /// Tiers, each one exchange.
    pub rounds: usize,
    /// Bytes of the parts this process sent, counted once per peer.
    pub bytes_sent: u64,
    /// Bytes of every process's parts as this process saw them: its own
    /// (once) and each peer's it read.
    pub bytes_all: u64,
    /// What each process sent the others over TCP, frames and all, by
    /// process: this process's own, and at process 0 every process's
    /// (`None` for one that did not tell it).
    pub traffic: Vec<Option<Traffic>>,
}

/// Reads a part's cells in: given a key and its cell, false if there is
/// no such key. Called from several threads at once.
pub(crate) type Apply<'a> = &'a (dyn Fn(u64, Cell) -> bool + Sync);

/// One process of a team building a table tier by tier.
pub(crate) struct Member<'a> {
    crew: Crew,
    team: Team,
    progress: &'a dyn Progress,
    exchanged: Exchanged,
}

impl<'a> Member<'a> {
    /// Process `team.process` of `team`, building `game`'s table:
    /// connected to every other process (within the team's connect
    /// timeout), with its heartbeat (which beats until dropped).
    pub(crate) fn join(
        game: &impl Indexed,
        team: &Team,
        progress: &'a dyn Progress,
    ) -> Result<Member<'a>, TeamError> {
        Ok(Member {
            crew: Crew::join(team, tag(game, team.processes))?,
            team: team.clone(),
            progress,
            exchanged: Exchanged::default(),
        })
    }

    /// Whether this process solves chunk (or task) number `chunk` of every
    /// tier: they are dealt out in turn.
    pub(crate) fn deals(&self, chunk: u64) -> bool {
        chunk % self.team.processes as u64 == self.team.process as u64
    }

    /// Sends `runs` (in key order), the cells this process solved in
    /// `tier`, to every peer as its part, then reads each peer's part of
    /// `tier` with `apply`; stops when a peer is lost or sends a part
    /// that does not read back, or when the build is cancelled.
    pub(crate) fn share_runs(
        &mut self,
        tier: usize,
        runs: Vec<Run>,
        apply: Apply,
    ) -> Result<(), TeamError> {
        let message = part::encode(&runs);
        drop(runs);
        let peers = (self.team.processes - 1) as u64;
        self.crew.send(tier as u64, &message);
        self.exchanged.bytes_sent += message.len() as u64 * peers;
        self.exchanged.bytes_all += message.len() as u64;
        drop(message);
        let me = self.team.process;
        let progress = self.progress;
        let cancelled = || progress.cancelled();
        for peer in (0..self.team.processes).filter(|&p| p != me) {
            let what = format!("its part of tier {tier}");
            let bytes = self.crew.receive(peer, tier as u64, &what, &cancelled)?;
            part::decode(&bytes, apply).map_err(|why| TeamError::Garbled {
                process: peer,
                host: self.team.host(peer).map(str::to_string),
                why: format!("{what}: {why}"),
            })?;
            self.exchanged.bytes_all += bytes.len() as u64;
        }
        Ok(())
    }

    /// [`Member::share_runs`] of `entries` (increasing keys).
    pub(crate) fn share(
        &mut self,
        tier: usize,
        entries: &[(u64, Cell)],
        apply: Apply,
    ) -> Result<(), TeamError> {
        let runs = entries
            .par_chunks(RUN)
            .filter_map(|run| Run::code(run.iter().copied()))
            .collect();
        self.share_runs(tier, runs, apply)
    }

    /// Says this process has every cell of the `tiers` tiers and waits
    /// for the others to say so too (or to end), so that nothing it sent
    /// is left unread when it closes its connections; returns what it
    /// exchanged.
    pub(crate) fn finish(mut self, tiers: usize) -> Exchanged {
        self.exchanged.rounds = tiers;
        self.crew.finish();
        self.exchanged.traffic = self.crew.traffic();
        self.exchanged
    }
}

/// The tag of a table team's handshake for `game` with `processes`
/// processes: processes of another game, rules, index or team size are
/// refused when they connect.
fn tag(game: &impl Indexed, processes: usize) -> u64 {
    tag_of(&format!(
        "table team {} {} {} {processes}",
        game.name(),
        game.rules_version(),
        game.index_len()
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::progress::NoProgress;
    use crate::team::free_hosts;
    use std::sync::Mutex;
    use std::time::Duration;

    /// A game of `len` indices, for its name and index alone.
    struct Line(u64);

    impl crate::Game for Line {
        type Position = u64;
        type Move = u64;
        fn name(&self) -> String {
            format!("line:{}", self.0)
        }
        fn start(&self) -> u64 {
            0
        }
        fn primitive(&self, _: &u64) -> Option<crate::Value> {
            None
        }
        fn for_each_move(&self, _: &u64, _: impl FnMut(u64, u64)) {}
        fn parse_position(&self, text: &str) -> Result<u64, crate::PositionError> {
            text.parse()
                .map_err(|_| crate::PositionError::new(format!("not a point: {text}")))
        }
        fn format_position(&self, p: &u64) -> String {
            p.to_string()
        }
        fn format_move(&self, _: &u64, m: u64) -> String {
            m.to_string()
        }
    }

    impl Indexed for Line {
        fn index_len(&self) -> u64 {
            self.0
        }
        fn rank(&self, p: &u64) -> u64 {
            *p
        }
        fn unrank(&self, i: u64) -> Option<u64> {
            (i < self.0).then_some(i)
        }
    }

    #[test]
    fn every_member_reads_every_part_and_the_tags_tell_games_apart() {
        let hosts = free_hosts(3);
        let cell = |k: u64| Cell::from_bits(0x2000 | (k % 97) as u16);
        let members: Vec<_> = (0..3)
            .map(|process| {
                let team =
                    Team::on_hosts(hosts.clone(), process, Duration::from_secs(5)).expect("a team");
                std::thread::spawn(move || {
                    let mut member = Member::join(&Line(1000), &team, &NoProgress).expect("joined");
                    let got = Mutex::new(Vec::new());
                    for tier in 0..2usize {
                        let mine: Vec<_> = (0..1000u64)
                            .filter(|k| member.deals(k / 10) && k % 2 == tier as u64)
                            .map(|k| (k, cell(k)))
                            .collect();
                        member
                            .share(tier, &mine, &|k, c| {
                                got.lock().unwrap().push((k, c));
                                k < 1000
                            })
                            .expect("shared");
                        got.lock().unwrap().extend(mine);
                    }
                    let mut got = got.into_inner().unwrap();
                    got.sort_by_key(|&(k, _)| k);
                    (got, member.finish(2))
                })
            })
            .collect();
        let every: Vec<_> = (0..1000).map(|k| (k, cell(k))).collect();
        for member in members {
            let (got, exchanged) = member.join().expect("no panic");
            assert_eq!(got, every);
            assert_eq!(exchanged.rounds, 2);
            assert!(
                exchanged.bytes_all > exchanged.bytes_sent / 2,
                "{exchanged:?}"
            );
        }
        assert_ne!(tag(&Line(1000), 2), tag(&Line(1001), 2));
        assert_ne!(tag(&Line(1000), 2), tag(&Line(1000), 3));
    }

    #[test]
    fn a_part_that_does_not_read_and_a_peer_gone_are_named() {
        let hosts = free_hosts(2);
        let team = |process| {
            Team::on_hosts(hosts.clone(), process, Duration::from_secs(5)).expect("a team")
        };
        let other = team(1);
        let peer = std::thread::spawn(move || {
            // Process 1 sends junk as its part of tier 0, then ends without
            // a word (as if killed).
            let mut crew = Crew::join(&other, tag(&Line(1000), 2)).expect("joined");
            crew.send(0, b"not a part");
            drop(crew);
        });
        let mut member = Member::join(&Line(1000), &team(0), &NoProgress).expect("joined");
        let error = member.share(0, &[(1, Cell::from_bits(0x2001))], &|_, _| true);
        let error = error.unwrap_err();
        assert!(
            matches!(error, TeamError::Garbled { process: 1, .. }),
            "{error}"
        );
        assert!(error.to_string().contains("part of tier 0"), "{error}");
        peer.join().expect("no panic");
        let error = member.share(1, &[], &|_, _| true).unwrap_err();
        assert!(
            matches!(error, TeamError::Lost { process: 1, .. }),
            "{error}"
        );
        assert!(error.to_string().contains("part of tier 1"), "{error}");
    }
}
