//! Sessions for games solved tier by tier ([`ply_core::tier`]): `ply
//! analyze --save` writes a shard per tier into the database directory as
//! each is solved (a rerun keeps the finished ones), within `--memory`;
//! queries are answered from the shards, read as one database. A game
//! small enough is built into a private directory on first use when the
//! store holds no complete database of it.

use super::once::Once;
use super::rows::{Row, Rows, Want};
use super::store::{self, Store};
use super::{Cutting, Serving, Session, Solver};
use crate::error::PlyError;
use crate::report::AnalyzeReport;
use ply_core::db::{Database, Expect};
use ply_core::team::Team;
use ply_core::tier::{self, Options, Plan, Shards, TierError};
use ply_core::{Cell, Census, NamedTiers, Outcome, Progress, Solution, Source};
use serde_json::json;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

/// The most positions a game may have to be built privately for a query,
/// without a database in the store.
pub const PRIVATE_BUILD_POSITIONS: u64 = 1 << 28;

/// The most positions a query builds privately without being called long:
/// more (quixo:4x4, morris:5, teeko) take tens of seconds, for one answer
/// (morris:4, 7.4 million, takes about 2 s).
pub const QUICK_BUILD_POSITIONS: u64 = 1 << 25;

/// A directory removed when dropped: where a private build's shards live.
struct Private(PathBuf);

impl Drop for Private {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Answers from the tier shards of a game.
struct Held {
    /// Every tier's shard as one database, or only some tiers' shards.
    db: Shelf,
    /// The private directory the shards are in, if not the store's.
    private: Option<Private>,
}

/// The shards a session answers from.
enum Shelf {
    /// Every tier's, read as one database.
    Whole(Database),
    /// Only some tiers' (the end tiers of a game too large to build
    /// whole, a build stopped part way, a shard removed or damaged): a
    /// piece per step of the plan; the directory is named in errors.
    Some(Vec<Piece>, PathBuf),
}

/// The shard of one step of the plan, as the database directory holds it.
enum Piece {
    /// Sound, and read.
    Held(Database),
    /// No file at this path.
    Missing(PathBuf),
    /// A file that cannot be read as this tier's shard: the error says why.
    Damaged(String),
}

/// A game's own build of every tier of its whole plan, in place of the
/// generic tier solver ([`TierSession::with_own_build`]): given the game,
/// the plan, the shards to write, a directory for its work files, whether
/// the shards are to leave out a side's remoteness (as
/// [`TierSession::leave_out`] would make them) and the memory budget, it
/// builds every unfinished tier, or gives `None` where it does not take
/// this game (the generic build runs then).
pub type OwnBuild<G> = fn(
    &G,
    &Plan<<G as NamedTiers>::Tier>,
    (&Shards, &Path, bool),
    Option<u64>,
    &dyn Progress,
) -> Option<Result<tier::Built, TierError>>;

/// A game solved tier by tier.
pub struct TierSession<G: NamedTiers> {
    game: G,
    plan: Plan<G::Tier>,
    held: Once<Held>,
    /// The game's own build of its whole plan, if it has one.
    own: Option<OwnBuild<G>>,
}

impl<G: NamedTiers + 'static> TierSession<G> {
    /// A session over `game`; fails if its tiers are inconsistent.
    pub fn new(game: G) -> Result<Self, PlyError> {
        let plan = Plan::new(&game).map_err(|e| tier_error(&game, e))?;
        Ok(Self {
            game,
            plan,
            held: Once::default(),
            own: None,
        })
    }

    /// The same session, building its whole plan alone by `own` rather
    /// than by the generic tier solver (a team's build and a build of
    /// some tiers stay generic).
    pub fn with_own_build(self, own: OwnBuild<G>) -> Self {
        Self {
            own: Some(own),
            ..self
        }
    }

    fn shards(&self, dir: &Path) -> Shards {
        Shards::new(dir, Expect::of(&self.game))
    }

    /// Builds every unfinished tier of `plan` into `dir`: all of them, or
    /// those dealt to this process of `team`; as drafts if they are to be
    /// rewritten leaving out a side's remoteness ([`Self::leave_out`]).
    fn build(
        &self,
        plan: &Plan<G::Tier>,
        dir: &Path,
        (memory, team, drafts): (Option<u64>, Option<(&Team, Cutting)>, bool),
        progress: &dyn Progress,
    ) -> Result<tier::Built, PlyError> {
        if let (Some(own), None, true) = (self.own, team, plan.steps.len() == self.plan.steps.len())
        {
            let shards = self.shards(dir);
            let work = dir.join(format!(
                "{}.work",
                ply_core::db::file_name(&self.game.name())
            ));
            if let Some(built) = own(&self.game, plan, (&shards, &work, drafts), memory, progress) {
                return built.map_err(|e| tier_error(&self.game, e));
            }
        }
        let options = Options {
            dir: dir.to_path_buf(),
            memory,
            stop_after: None,
            team: team.map(|(team, _)| team.clone()),
            at_once: None,
            cut_from: team.and_then(|(_, cut)| cut.from),
            cut_classes: team.is_some_and(|(_, cut)| cut.classes),
            drafts,
        };
        tier::build(&self.game, plan, &options, progress).map_err(|e| tier_error(&self.game, e))
    }

    /// The database answering queries: the store's, else a private build.
    fn held(&self, progress: &dyn Progress) -> Result<&Held, PlyError> {
        self.held
            .get_or_build(progress, "the tiers being solved", || {
                if let Some(held) = self.store_held() {
                    return Ok(held);
                }
                // Where the directory holds some shards, answer from them
                // and name the missing or damaged ones, rather than build
                // again what was stored.
                if let Some(store) = store::current().filter(|s| s.read)
                    && let Some(some) = self.some_shards(&store.dir)
                {
                    return Ok(Held {
                        db: some,
                        private: None,
                    });
                }
                let positions = self.plan.positions();
                if positions > PRIVATE_BUILD_POSITIONS {
                    let largest = self.plan.largest(&self.game).map_or(0, |(_, bytes)| bytes);
                    return Err(PlyError::argument(format!(
                        "{name} has {positions} positions: too many to solve for one query, and \
                         no complete database of it is in the database directory; \
                         `ply analyze {name} --save` builds one tier by tier (its largest tier \
                         needs {})",
                        ply_core::limits::human_bytes(largest),
                        name = self.game.name()
                    )));
                }
                let dir = std::env::temp_dir().join(format!(
                    "ply-tiers-{}-{}",
                    std::process::id(),
                    ply_core::db::file_name(&self.game.name())
                ));
                let private = Private(dir);
                self.build(&self.plan, &private.0, (None, None, false), progress)?;
                let db = self.named(self.shards(&private.0).open(&self.plan)?);
                Ok(Held {
                    db: Shelf::Whole(db),
                    private: Some(private),
                })
            })
    }

    /// `db` (shards of this game) with the game's test of which indices
    /// each of its shards of present keys holds.
    fn named(&self, db: Database) -> Database {
        self.plan.with_presence(&self.game, db)
    }

    /// Whether the game is small enough to build for one query, with no
    /// database stored.
    pub fn buildable(&self) -> bool {
        self.plan.positions() <= PRIVATE_BUILD_POSITIONS
    }

    /// Whether the database directory holds every tier's shard, sound and
    /// over its keys; if it does, the session answers from them from now
    /// on. Never builds: without a complete database this is false.
    pub fn holds_stored(&self, progress: &dyn Progress) -> Result<bool, PlyError> {
        let whole_store =
            |held: &Held| held.private.is_none() && matches!(held.db, Shelf::Whole(_));
        if let Some(held) = self.held.get() {
            return Ok(whole_store(held));
        }
        let Some(held) = self.store_held() else {
            return Ok(false);
        };
        self.held
            .get_or_build(progress, "the tiers being opened", || Ok(held))
            .map(whole_store)
    }

    /// Every tier's shard in the database directory, if it holds them all,
    /// sound and over their keys.
    fn store_held(&self) -> Option<Held> {
        let store = store::current().filter(|s| s.read)?;
        let db = self.named(self.shards(&store.dir).open(&self.plan).ok()?);
        Some(Held {
            db: Shelf::Whole(db),
            private: None,
        })
    }

    /// The shards of the tiers found in `dir`, each read alone, a missing
    /// or damaged one kept as such to be named when a query needs it;
    /// `None` if there is no shard of the game at all.
    fn some_shards(&self, dir: &Path) -> Option<Shelf> {
        let shards = self.shards(dir);
        let expect = Expect::of(&self.game);
        let pieces: Vec<Piece> = self
            .plan
            .steps
            .iter()
            .map(|step| {
                let path = shards.path(&step.name);
                if !path.exists() {
                    return Piece::Missing(path);
                }
                let db = match Database::open_piece(&path) {
                    Ok(db) => self.named(db),
                    Err(e) => return Piece::Damaged(e.to_string()),
                };
                let sound = db.game() == expect.game
                    && db.rules_version() == expect.rules_version
                    && db
                        .headers()
                        .all(|h| h.index_len == self.plan.index_len && h.range == step.keys);
                if sound {
                    Piece::Held(db)
                } else {
                    Piece::Damaged(format!(
                        "{} is not the shard of tier {} of {} that this build of ply writes",
                        path.display(),
                        step.name,
                        expect.game
                    ))
                }
            })
            .collect();
        pieces
            .iter()
            .any(|p| !matches!(p, Piece::Missing(_)))
            .then(|| Shelf::Some(pieces, dir.to_path_buf()))
    }

    /// The shard files of the game in the database directory, if it may be
    /// read: how many of the plan's steps have one, and the directory.
    fn stored_count(&self) -> Option<(usize, PathBuf)> {
        let store = store::current().filter(|s| s.read)?;
        let shards = self.shards(&store.dir);
        let present = self
            .plan
            .steps
            .iter()
            .filter(|step| shards.path(&step.name).exists())
            .count();
        (present > 0).then_some((present, store.dir))
    }

    /// The census of every position, mirror tiers counted through their
    /// canonical tier; examples are positions as text. A step the build
    /// counted as it wrote it (`counted`, with no mirror tier) is taken
    /// from there, not read again. Beside it, each step's own census (its
    /// mirror tiers counted in), in the plan's order.
    fn census(
        &self,
        plan: &Plan<G::Tier>,
        dbs: &[Database],
        counted: &BTreeMap<usize, Census<u64>>,
    ) -> Result<(Census<String>, Vec<Census<u64>>), PlyError> {
        let mut census = Census::new();
        let mut by_step = Vec::with_capacity(plan.steps.len());
        for (at, (db, step)) in dbs.iter().zip(&plan.steps).enumerate() {
            let mirrors = step.mirrors;
            let own = match (counted.get(&at), mirrors) {
                (Some(counted), 1) => counted.clone(),
                _ => {
                    let mut own = db.census_by(step.keys.clone(), &|_| mirrors)?;
                    for left_out in db.headers().filter_map(|h| h.left_out.as_ref()) {
                        own = own.merge(left_out.census(mirrors));
                    }
                    own
                }
            };
            census = census.merge(own.clone());
            by_step.push(own);
        }
        let census = census.map_examples(|key| {
            self.plan
                .steps
                .iter()
                .find(|s| s.keys.contains(&key))
                .and_then(|s| self.game.tier_unrank(s.tier, key - s.keys.start))
                .map(|p| self.game.format_position(&p))
                .unwrap_or_default()
        });
        Ok((census, by_step))
    }
}

impl<G: NamedTiers + 'static> Solver for TierSession<G> {
    type Game = G;

    fn game(&self) -> &G {
        &self.game
    }

    /// The outcome of `position`. Where the shards leave out its side's
    /// remoteness, it is found from its children's stored cells.
    fn outcome_within(
        &self,
        position: &G::Position,
        progress: &dyn Progress,
    ) -> Result<Outcome, PlyError> {
        let stored = self.stored(position, progress)?;
        let outcome = ply_core::derive::complete(&self.game, position, stored, |child| {
            self.stored(child, progress)
        })?;
        outcome.ok_or_else(|| match stored.left_out_value() {
            None => self.missing(position),
            Some(value) => super::not_derived(
                &self.game.name(),
                &self.game.format_position(position),
                value,
            ),
        })
    }
}

impl<G: NamedTiers + 'static> TierSession<G> {
    /// The error for a position in no tier the plan or the shards hold.
    fn missing(&self, position: &G::Position) -> PlyError {
        PlyError::argument(format!(
            "{} is not in any tier of {}",
            self.game.format_position(position),
            self.game.name()
        ))
    }

    /// The cell the shards hold for `position`. A shard of the database
    /// directory found damaged (a block whose checksum fails, say) is named
    /// with the command that builds it again, as a missing one is: the
    /// other tiers are still answered.
    fn stored(&self, position: &G::Position, progress: &dyn Progress) -> Result<Cell, PlyError> {
        let missing = || self.missing(position);
        // The class's representative: a shard of present keys holds no
        // other (the others' cells, where stored, are the same).
        let folded;
        let position = if G::IN_TIER_SYMMETRY {
            folded = self.game.fold_in_tier(position);
            &folded
        } else {
            position
        };
        let key = self.plan.key(&self.game, position).ok_or_else(missing)?;
        let held = self.held(progress)?;
        let dir = match (&held.private, store::current()) {
            (None, Some(store)) => Some(store.dir),
            _ => None,
        };
        let damaged = |error: ply_core::DbError| match &dir {
            Some(dir) => {
                let name = self.game.name();
                let tier = self
                    .game
                    .tier_name(self.game.canonical_tier(self.game.tier_of(position)));
                PlyError::Unavailable(format!(
                    "{} is in tier {tier} of {name}, whose shard is damaged: {error}; remove it \
                     and run `ply analyze {name} --save --db-dir {}`",
                    self.game.format_position(position),
                    dir.display()
                ))
            }
            None => error.into(),
        };
        let db = match &held.db {
            Shelf::Whole(db) => db,
            Shelf::Some(pieces, dir) => {
                let tier = self.game.canonical_tier(self.game.tier_of(position));
                let at = self.plan.position_of(tier).ok_or_else(missing)?;
                let name = self.game.name();
                let held = pieces
                    .iter()
                    .filter(|p| matches!(p, Piece::Held(_)))
                    .count();
                let text = self.game.format_position(position);
                let tier = self.game.tier_name(tier);
                match &pieces[at] {
                    Piece::Held(db) => db,
                    Piece::Missing(path) => {
                        return Err(PlyError::Unavailable(format!(
                            "{text} is in tier {tier} of {name}, whose shard {} is not in the \
                             database directory {} (it holds {held} of the game's {} tiers); \
                             `ply analyze {name} --save --db-dir {}` builds the missing ones",
                            path.display(),
                            dir.display(),
                            pieces.len(),
                            dir.display()
                        )));
                    }
                    Piece::Damaged(why) => {
                        return Err(PlyError::Unavailable(format!(
                            "{text} is in tier {tier} of {name}, whose shard is damaged: {why}; \
                             remove it and run `ply analyze {name} --save --db-dir {}`",
                            dir.display()
                        )));
                    }
                }
            }
        };
        db.cell(key).map_err(damaged)
    }
}

impl<G: NamedTiers + 'static> Session for TierSession<G> {
    super::solver_session!();

    /// The larger of what building the largest tier takes and what the
    /// database answering queries keeps decoded (every block, at a byte a
    /// cell or less, when they fit its cache).
    fn memory_bound(&self) -> u64 {
        let build = self.plan.largest(&self.game).map_or(0, |(_, bytes)| bytes);
        let decoded = self.plan.positions().min(ply_core::db::block_cache_bytes());
        build.max(decoded)
    }

    fn prepare(&self, progress: &dyn Progress) -> Result<(), PlyError> {
        self.held(progress).map(|_| ())
    }

    /// From the shards in the database directory where it holds any,
    /// with no memory besides the shared block cache; else by a private
    /// build if the game is small enough; else not at all.
    fn serving(&self) -> Serving {
        let name = self.game.name();
        if let Some((present, dir)) = self.stored_count() {
            return Serving::Database {
                what: format!(
                    "{present} of its {} tier shards in {}",
                    self.plan.steps.len(),
                    dir.display()
                ),
                bytes: 0,
                search: None,
            };
        }
        if self.plan.positions() > PRIVATE_BUILD_POSITIONS {
            return Serving::Refused(format!(
                "{name} has no database in the database directory, and it is too large to \
                 solve for a query; `ply analyze {name} --save` builds one tier by tier"
            ));
        }
        Serving::Solving {
            bytes: self.memory_bound(),
        }
    }

    fn long_without_database(&self) -> Option<String> {
        let positions = self.plan.positions();
        (self.stored_count().is_none()
            && self.held.get().is_none()
            && positions > QUICK_BUILD_POSITIONS)
            .then(|| {
                format!(
                    "{} has no database in the database directory, and one answer would first \
                     solve all its {positions} positions tier by tier",
                    self.game.name()
                )
            })
    }

    /// Whether a shard answering queries changed on disk, or a missing
    /// one has appeared since.
    fn stale(&self) -> bool {
        match self.held.get().map(|held| &held.db) {
            Some(Shelf::Whole(db)) => !db.is_current(),
            Some(Shelf::Some(pieces, _)) => pieces.iter().any(|piece| match piece {
                Piece::Held(db) => !db.is_current(),
                Piece::Missing(path) => path.exists(),
                Piece::Damaged(_) => false,
            }),
            None => false,
        }
    }

    /// Every tier's shard, stored or built privately as a query would, read
    /// key by key (see [`TierRows`]); refused where the database directory
    /// holds only some tiers' shards.
    fn rows(&self, progress: &dyn Progress) -> Result<Option<Box<dyn Rows + '_>>, PlyError> {
        match &self.held(progress)?.db {
            Shelf::Whole(db) => Ok(Some(Box::new(TierRows { session: self, db }))),
            Shelf::Some(pieces, dir) => {
                let held = pieces
                    .iter()
                    .filter(|p| matches!(p, Piece::Held(_)))
                    .count();
                let name = self.game.name();
                Err(PlyError::Unavailable(format!(
                    "the database directory {} holds {held} of the {} tier shards of {name}: \
                     a table of every position needs them all; `ply analyze {name} --save \
                     --db-dir {}` builds the missing ones",
                    dir.display(),
                    pieces.len(),
                    dir.display()
                )))
            }
        }
    }

    fn source(&self) -> Option<Source> {
        self.held.get().map(|held| match held.private {
            Some(_) => Source::Solved,
            None => Source::Database,
        })
    }

    fn analyze(&self, progress: &dyn Progress) -> Result<AnalyzeReport, PlyError> {
        self.analyze_saving(None, None, progress)
    }

    fn tiered(&self) -> bool {
        true
    }

    /// Builds the tiers into the store (with `save`) or a private
    /// directory, then counts every position from the shards.
    fn analyze_saving(
        &self,
        save: Option<&Store>,
        memory: Option<u64>,
        progress: &dyn Progress,
    ) -> Result<AnalyzeReport, PlyError> {
        self.analyze_plan(&self.plan, save, memory, progress)
    }

    fn analyze_end_tiers(
        &self,
        height: u32,
        save: Option<&Store>,
        memory: Option<u64>,
        progress: &dyn Progress,
    ) -> Result<AnalyzeReport, PlyError> {
        let plan = self.plan.end_tiers(height);
        let mut report = self.analyze_plan(&plan, save, memory, progress)?;
        end_tiers_noted(&mut report, height);
        Ok(report)
    }

    /// Builds the tiers (or the end tiers up to `end_tiers`) into `save`
    /// together with the other processes of `team`; process 0 counts them
    /// once every tier is there, and reports.
    fn analyze_shared(
        &self,
        team: &Team,
        end_tiers: Option<u32>,
        save: &Store,
        (memory, cut): (Option<u64>, Cutting),
        progress: &dyn Progress,
    ) -> Result<Option<AnalyzeReport>, PlyError> {
        let plan = match end_tiers {
            Some(height) => self.plan.end_tiers(height),
            None => self.plan.clone(),
        };
        save.create()?;
        let whole = end_tiers.is_none();
        let built = self.build(
            &plan,
            &save.dir,
            (memory, Some((team, cut)), whole),
            progress,
        )?;
        if team.process != 0 {
            return Ok(None);
        }
        if whole {
            self.leave_out(&plan, &save.dir, progress)?;
        }
        let mut report = self.report(&plan, &save.dir, &built, true)?;
        if let Some(height) = end_tiers {
            end_tiers_noted(&mut report, height);
        }
        report
            .extra
            .insert("processes".into(), json!(team.processes));
        // Each process solves a slice of every cut tier: process 0's
        // slices solved are the tiers cut in this run.
        report.extra.insert("tiers_cut".into(), json!(built.slices));
        report.note_traffic(&built.traffic);
        Ok(Some(report))
    }
}

impl<G: NamedTiers + 'static> TierSession<G> {
    /// Builds the tiers of `plan` into the store (with `save`) or a
    /// private directory, then counts their positions from the shards.
    fn analyze_plan(
        &self,
        plan: &Plan<G::Tier>,
        save: Option<&Store>,
        memory: Option<u64>,
        progress: &dyn Progress,
    ) -> Result<AnalyzeReport, PlyError> {
        let private;
        let dir = match save {
            Some(store) => {
                store.create()?;
                store.dir.clone()
            }
            None => {
                private = Private(std::env::temp_dir().join(format!(
                    "ply-tiers-analyze-{}-{}",
                    std::process::id(),
                    ply_core::db::file_name(&self.game.name())
                )));
                private.0.clone()
            }
        };
        let whole = save.is_some() && plan.steps.len() == self.plan.steps.len();
        let built = self.build(plan, &dir, (memory, None, whole), progress)?;
        if whole {
            self.leave_out(plan, &dir, progress)?;
        }
        self.report(plan, &dir, &built, save.is_some())
    }

    /// Rewrites the shards of the whole game, all solved, in `dir` to
    /// leave out the remoteness of one side, the one a sample of blocks
    /// says saves more ([`ply_core::derive`]); queries find it again by a
    /// search of one ply. Shards already rewritten are kept, so a killed
    /// run resumes. Only the whole game's shards: a build of more tiers
    /// would read these as child tiers only by finding each left-out cell
    /// again, one ply per cell.
    fn leave_out(
        &self,
        plan: &Plan<G::Tier>,
        dir: &Path,
        progress: &dyn Progress,
    ) -> Result<(), PlyError> {
        let shards = self.shards(dir);
        let paths: Vec<PathBuf> = plan.steps.iter().map(|s| shards.path(&s.name)).collect();
        let mut sides = Vec::new();
        for path in &paths {
            sides.extend(
                Database::open_piece(path)?
                    .headers()
                    .filter_map(|h| h.left_out.as_ref().map(|l| l.value)),
            );
        }
        let side = match sides.first() {
            Some(&side) => side,
            None => ply_core::db::smaller_side(&paths, ply_core::db::SAMPLE_EVERY)?.0,
        };
        progress.begin("leaving out remoteness", paths.len() as u64);
        for path in &paths {
            if progress.cancelled() {
                progress.end();
                return Err(PlyError::Cancelled(format!(
                    "leaving out remoteness in the shards of {}",
                    self.game.name()
                )));
            }
            ply_core::db::leave_out(path, side, &ply_core::NoProgress)?;
            progress.advance(1);
        }
        progress.end();
        Ok(())
    }

    /// The report of a build of `plan` into `dir`: every position counted
    /// from the shards, and what the build did.
    fn report(
        &self,
        plan: &Plan<G::Tier>,
        dir: &Path,
        built: &tier::Built,
        saved: bool,
    ) -> Result<AnalyzeReport, PlyError> {
        let shards = self.shards(dir);
        let dbs = plan
            .steps
            .iter()
            .map(|step| Database::open_piece(&shards.path(&step.name)).map(|db| self.named(db)))
            .collect::<Result<Vec<_>, _>>()?;
        let (census, by_step) = self.census(plan, &dbs, &built.counted)?;
        let mut report = AnalyzeReport::from_census(self.game.name(), census);
        let by_tier: Vec<_> = plan
            .steps
            .iter()
            .zip(&by_step)
            .map(|(step, c)| {
                json!({"tier": step.name, "positions": c.positions, "win": c.win,
                       "lose": c.lose, "draw": c.draw, "tie": c.tie})
            })
            .collect();
        report.extra.insert("by_tier".into(), json!(by_tier));
        report
            .extra
            .insert("counted".into(), json!("every position"));
        report.extra.insert("tiers".into(), json!(built.tiers));
        report
            .extra
            .insert("tiers_found_done".into(), json!(built.found_done));
        if built.taken > 0 {
            report
                .extra
                .insert("tiers_taken".into(), json!(built.taken));
        }
        report
            .extra
            .insert("tiers_solved".into(), json!(built.solved));
        report
            .extra
            .insert("largest_tier_bytes".into(), json!(built.peak_bytes));
        if saved {
            let bytes: u64 = dbs.iter().map(Database::bytes).sum();
            report
                .extra
                .insert("saved".into(), json!(dir.display().to_string()));
            report.extra.insert("saved_bytes".into(), json!(bytes));
        }
        Ok(report)
    }
}

/// A [`TierSession`]'s shards read key by key, as [`Rows`] and as the
/// [`Solution`] behind them: a key is a tier's index shifted by the tier's
/// place in the plan, over the canonical tiers only (a tier stored as its
/// mirror tier, Morris's colours swapped, has no rows of its own). Where the shards
/// leave out a side's remoteness, each such cell is found again from its
/// children, as queries find it, so that every row has its remoteness.
struct TierRows<'a, G: NamedTiers> {
    session: &'a TierSession<G>,
    db: &'a Database,
}

impl<G: NamedTiers + 'static> TierRows<'_, G> {
    /// The position stored at `key`, if any.
    fn at(&self, key: u64) -> Option<G::Position> {
        let steps = &self.session.plan.steps;
        let step = steps.iter().find(|s| s.keys.contains(&key))?;
        self.session
            .game
            .tier_unrank(step.tier, key - step.keys.start)
    }

    /// The outcome of `position` as `ply solve` answers it.
    fn outcome(&self, position: &G::Position) -> Result<Outcome, PlyError> {
        self.session.outcome_within(position, &ply_core::NoProgress)
    }
}

impl<G: NamedTiers + 'static> Solution for TierRows<'_, G> {
    fn keys(&self) -> ply_core::Keys {
        self.db.keys()
    }

    fn index_len(&self) -> u64 {
        self.db.index_len()
    }

    fn cell(&self, key: u64) -> Result<Cell, ply_core::db::DbError> {
        let cell = self.db.cell(key)?;
        self.completed(key, cell)
    }

    fn for_each_cell(
        &self,
        range: std::ops::Range<u64>,
        visit: &mut dyn FnMut(u64, Cell),
    ) -> Result<(), ply_core::db::DbError> {
        let mut failed = None;
        self.db.for_each_cell(range, &mut |key, cell| {
            if failed.is_some() {
                return;
            }
            match self.completed(key, cell) {
                Ok(cell) => visit(key, cell),
                Err(e) => failed = Some(e),
            }
        })?;
        failed.map_or(Ok(()), Err)
    }

    fn source(&self) -> Source {
        self.db.source()
    }
}

impl<G: NamedTiers + 'static> TierRows<'_, G> {
    /// `cell`, stored at `key`, with a left-out remoteness found again.
    fn completed(&self, key: u64, cell: Cell) -> Result<Cell, ply_core::db::DbError> {
        if cell.left_out_value().is_none() {
            return Ok(cell);
        }
        let found = self
            .at(key)
            .ok_or_else(|| format!("no position has key {key}, whose cell is stored"))
            .and_then(|p| self.outcome(&p).map_err(|e| e.to_string()));
        found.map(Cell::pack).map_err(|why| {
            ply_core::db::DbError::new(
                self.db.paths().next().unwrap_or(Path::new("")),
                ply_core::db::Problem::Corrupt(format!(
                    "the left-out remoteness at key {key} cannot be found again: {why}"
                )),
            )
        })
    }
}

impl<G: NamedTiers + 'static> Rows for TierRows<'_, G> {
    fn name(&self) -> String {
        self.session.game.name()
    }

    fn solution(&self) -> &dyn Solution {
        self
    }

    fn tensor(&self) -> Option<ply_core::Tensor> {
        self.session.game.tensor()
    }

    fn row(&self, key: u64, outcome: Outcome, want: Want, row: &mut Row) -> Result<bool, PlyError> {
        let game = &self.session.game;
        let Some(position) = self.at(key) else {
            return Ok(false);
        };
        row.position.clear();
        game.write_position(&position, &mut row.position);
        if want.board {
            game.fill_tensor(&position, &mut row.board);
        }
        row.clear_best_moves();
        if want.best && game.primitive(&position).is_none() {
            let mut failed = None;
            game.for_each_move(&position, |mv, child| {
                if failed.is_some() {
                    return;
                }
                match self.outcome(&child) {
                    Ok(o) if o.through_move() == outcome => {
                        row.push_best_move(|text| game.write_move(&position, mv, text));
                    }
                    Ok(_) => {}
                    Err(e) => failed = Some(e),
                }
            });
            if let Some(e) = failed {
                return Err(e);
            }
        }
        Ok(true)
    }

    fn position(&self, key: u64) -> Option<String> {
        self.at(key).map(|p| self.session.game.format_position(&p))
    }

    fn key_of(&self, text: &str) -> Result<u64, PlyError> {
        let position = super::parse_or_start(&self.session.game, Some(text))?;
        self.session
            .plan
            .key(&self.session.game, &position)
            .ok_or_else(|| self.session.missing(&position))
    }

    fn outcome_of(&self, text: &str) -> Result<Outcome, PlyError> {
        let position = super::parse_or_start(&self.session.game, Some(text))?;
        self.outcome(&position)
    }
}

/// Notes in `report` that it counts the end tiers up to `height` only.
fn end_tiers_noted(report: &mut AnalyzeReport, height: u32) {
    report.extra.insert(
        "counted".into(),
        json!(format!("the end tiers, of height {height} at most")),
    );
    report.extra.insert("end_tiers".into(), json!(height));
}

/// A tier solver's error, for the command line.
fn tier_error<G: NamedTiers>(game: &G, error: TierError) -> PlyError {
    match error {
        TierError::Cancelled => {
            PlyError::Cancelled(format!("solving the tiers of {}", game.name()))
        }
        other => PlyError::argument(format!("{}: {other}", game.name())),
    }
}
