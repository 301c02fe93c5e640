//! The traits a game implements: a small required part ([`Game`]) and
//! optional capabilities that switch on faster solvers.
//!
//! A whole game in a few lines: a pile of counters, each move takes one or
//! two, and whoever cannot move loses. [`Game`] gives the rules, [`Indexed`]
//! numbers the positions, and [`Parents`] lists the positions a move leads
//! from; with those, retrograde analysis solves every pile without storing
//! a reverse graph, and any [`Solution`](crate::Solution) answers from the
//! table. Piles that are multiples of three are lost, in as many plies as
//! there are counters taken two by two.
//!
//! ```
//! use ply_core::solve::retro;
//! use ply_core::{Game, Indexed, NoProgress, Parents, PositionError, Solution, Value};
//!
//! struct Pile(u64);
//!
//! impl Game for Pile {
//!     type Position = u64;
//!     type Move = u64;
//!     fn name(&self) -> String { format!("pile:{}", self.0) }
//!     fn start(&self) -> u64 { self.0 }
//!     fn primitive(&self, _: &u64) -> Option<Value> { None }
//!     fn for_each_move(&self, pile: &u64, mut visit: impl FnMut(u64, u64)) {
//!         for take in 1..=2.min(*pile) {
//!             visit(take, pile - take);
//!         }
//!     }
//!     fn parse_position(&self, text: &str) -> Result<u64, PositionError> {
//!         text.parse().map_err(|_| PositionError::new(format!("not a pile: {text}")))
//!     }
//!     fn format_position(&self, pile: &u64) -> String { pile.to_string() }
//!     fn format_move(&self, _: &u64, take: u64) -> String { take.to_string() }
//! }
//!
//! impl Indexed for Pile {
//!     fn index_len(&self) -> u64 { self.0 + 1 }
//!     fn rank(&self, pile: &u64) -> u64 { *pile }
//!     fn unrank(&self, index: u64) -> Option<u64> { (index <= self.0).then_some(index) }
//! }
//!
//! impl Parents for Pile {
//!     fn for_each_parent(&self, pile: &u64, mut visit: impl FnMut(u64)) {
//!         for take in 1..=2 {
//!             if pile + take <= self.0 {
//!                 visit(pile + take);
//!             }
//!         }
//!     }
//! }
//!
//! let game = Pile(30);
//! let by_moves = retro::solve(&game, &NoProgress).unwrap();
//! let by_parents = retro::solve_with_parents(&game, &NoProgress).unwrap();
//! for pile in 0..=30 {
//!     // Through the Solution interface, as a database would answer.
//!     let outcome = Solution::outcome(&by_parents, game.rank(&pile)).unwrap().unwrap();
//!     assert_eq!(Some(outcome), by_moves.outcome_at(pile));
//!     let value = if pile % 3 == 0 { Value::Lose } else { Value::Win };
//!     assert_eq!(outcome.value, value, "pile {pile}");
//!     // The winner takes the pile to a multiple of three, then answers
//!     // each take of one with two and each two with one.
//!     assert_eq!(outcome.remoteness, Some((pile / 3 * 2 + u64::from(pile % 3 != 0)) as u32));
//! }
//! ```

mod wins_at_once;
pub use wins_at_once::{Count, MoveTally, WinsAtOnce, moves_into_class_of, stored_parent_classes};

use crate::board::Board;
use crate::octal_code::OctalCode;
use crate::progress::Progress;
use crate::tensor::Tensor;
use crate::value::{Outcome, Remoteness, Value};
use std::fmt::Debug;
use std::hash::Hash;

/// Why a position's text (or a game's parameters) could not be read, by
/// kind, each with a message for people that names what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PositionError {
    /// The text does not have the form the game writes positions in (a
    /// length, a separator or a character is wrong).
    Malformed(String),
    /// The text is well formed but describes no position of the game (too
    /// many pieces, both players with a line, a piece off its range).
    Illegal(String),
    /// The game's parameters (the text after `:` in its name) are not valid.
    Parameters(String),
    /// The position is valid but what answering it needs could not be
    /// computed: the computation was stopped or failed.
    Unavailable(String),
}

impl PositionError {
    /// A malformed text, with the given message.
    pub fn new(message: impl Into<String>) -> Self {
        Self::Malformed(message.into())
    }

    /// A well-formed text that is no position of the game.
    pub fn illegal(message: impl Into<String>) -> Self {
        Self::Illegal(message.into())
    }

    /// Parameters the game does not take.
    pub fn parameters(message: impl Into<String>) -> Self {
        Self::Parameters(message.into())
    }

    /// A valid position whose answer could not be computed.
    pub fn unavailable(message: impl Into<String>) -> Self {
        Self::Unavailable(message.into())
    }

    /// The message, for people.
    pub fn message(&self) -> &str {
        match self {
            Self::Malformed(m) | Self::Illegal(m) | Self::Parameters(m) | Self::Unavailable(m) => m,
        }
    }
}

impl std::fmt::Display for PositionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.message())
    }
}

impl std::error::Error for PositionError {}

/// A two-player, perfect-information game without chance.
///
/// A position holds everything needed to continue, including who moves.
/// Play ends where [`Game::primitive`] says so; a position that is not
/// primitive but has no moves is a loss for the player to move (normal play).
pub trait Game: Send + Sync {
    /// Everything needed to continue the game, including who moves.
    type Position: Clone + Eq + Hash + Debug + Send + Sync;
    /// A move, as small as the game allows.
    type Move: Copy + Eq + Debug + Send + Sync;

    /// The game's full name with parameters, as accepted on the command line.
    fn name(&self) -> String;

    /// The version of the rules and index a solved database of this game
    /// was built under: bump it whenever a change to the rules, the index or
    /// the text form would change what a stored table means, so that older
    /// databases are refused instead of misread.
    fn rules_version(&self) -> u32 {
        1
    }

    /// The usual start position.
    fn start(&self) -> Self::Position;

    /// The value for the player to move if play has ended, else `None`.
    fn primitive(&self, position: &Self::Position) -> Option<Value>;

    /// Calls `visit` with every legal move and the position it leads to.
    /// Only called on positions that are not primitive.
    fn for_each_move(
        &self,
        position: &Self::Position,
        visit: impl FnMut(Self::Move, Self::Position),
    );

    /// Reads a position in the game's text form (boards as rows joined by `/`).
    fn parse_position(&self, text: &str) -> Result<Self::Position, PositionError>;

    /// Writes a position in the form [`Game::parse_position`] reads.
    fn format_position(&self, position: &Self::Position) -> String;

    /// Appends the text [`Game::format_position`] gives to `text`: what a
    /// bulk writer calls, reusing one buffer (a game may write it without
    /// the allocation).
    fn write_position(&self, position: &Self::Position, text: &mut String) {
        text.push_str(&self.format_position(position));
    }

    /// Names a move made from `position`, in the game's own move notation.
    fn format_move(&self, position: &Self::Position, mv: Self::Move) -> String;

    /// Appends the name [`Game::format_move`] gives to `text`: what a bulk
    /// writer calls, reusing one buffer (a game may write it without the
    /// allocation).
    fn write_move(&self, position: &Self::Position, mv: Self::Move, text: &mut String) {
        text.push_str(&self.format_move(position, mv));
    }

    /// Draws a position for a person, over several lines. By default the rows
    /// of the text form, one per line.
    fn render(&self, position: &Self::Position) -> String {
        self.format_position(position).replace('/', "\n")
    }

    /// Describes a position for a page to draw and play by clicks: its
    /// cells, pieces and hands, and every legal move as the cells it
    /// touches. By default the rows of the text form as a grid of lettered
    /// pieces, each move being the squares it changes, clicked in any order.
    fn board(&self, position: &Self::Position) -> Board {
        let mut board = Board::from_text(&self.format_position(position));
        let mut moves = Vec::new();
        if self.primitive(position).is_none() {
            self.for_each_move(position, |mv, child| {
                let after = Board::from_text(&self.format_position(&child));
                moves.push(crate::board::BoardMove {
                    name: self.format_move(position, mv),
                    clicks: vec![board.changed(&after)],
                });
            });
        }
        board.moves = moves;
        board
    }

    /// How the game's boards are written as numbers (see
    /// [`crate::tensor`]), or `None`, the default, for a game whose
    /// positions are not written so (no `board` column in an export).
    fn tensor(&self) -> Option<Tensor> {
        None
    }

    /// Writes the codes of `position`'s board into `cells`, which holds
    /// [`Tensor::cells`] of them, as [`Game::tensor`] says; only called
    /// for a game with a tensor. By default the board description
    /// encoded (slow: it lists the moves); a game with a tensor writes its
    /// own, and [`crate::check::Check::board`] holds it to the description.
    fn fill_tensor(&self, position: &Self::Position, cells: &mut [i8]) {
        let codes = self
            .tensor()
            .and_then(|tensor| tensor.encode(&self.board(position)).ok())
            .unwrap_or_default();
        for (cell, code) in cells
            .iter_mut()
            .zip(codes.into_iter().chain(std::iter::repeat(0)))
        {
            *cell = code;
        }
    }
}

/// A dense index: every position maps to a number in `0..len`, distinct
/// but for positions that play alike and share an index on purpose (a game
/// indexed as the mover sees it gives the turned image one index; then
/// [`Indexed::unrank`] gives one of them). A position where play is over
/// may rank to `len`, outside the index, and so may one the game's rules
/// decide otherwise ([`Indexed::unindexed`]). Switches on table-based
/// solvers and on-disk tables.
pub trait Indexed: Game {
    /// The size of the index space.
    fn index_len(&self) -> u64;

    /// The index of a position.
    fn rank(&self, position: &Self::Position) -> u64;

    /// The position with the given index, or `None` where no legal position
    /// has that index.
    fn unrank(&self, index: u64) -> Option<Self::Position>;

    /// Calls `visit` with each index in `range` that names a position, and
    /// that position, in increasing order of index: by default one
    /// [`Indexed::unrank`] each. A game whose index lets it step from one
    /// position to the next more cheaply than it unranks says so here.
    fn for_each_unranked(
        &self,
        range: std::ops::Range<u64>,
        mut visit: impl FnMut(u64, &Self::Position),
    ) {
        for index in range {
            if let Some(position) = self.unrank(index) {
                visit(index, &position);
            }
        }
    }

    /// Calls `visit` with each of `indices` that names a position, and that
    /// position, in the order given: by default one [`Indexed::unrank`]
    /// each. A game that unranks an index more cheaply near the one before
    /// (so for increasing indices) says so here.
    fn for_each_unranked_of(
        &self,
        indices: impl IntoIterator<Item = u64>,
        mut visit: impl FnMut(u64, &Self::Position),
    ) {
        for index in indices {
            if let Some(position) = self.unrank(index) {
                visit(index, &position);
            }
        }
    }

    /// Whether `position` may rank to `len`, outside the index: by default
    /// where play is over. A game whose index also leaves out positions its
    /// rules decide (Dobutsu Shogi: the mover catches the Lion) says so.
    fn unindexed(&self, position: &Self::Position) -> bool {
        self.primitive(position).is_some()
    }
}

/// Symmetries of the board: positions in one class have equal values.
pub trait Symmetric: Game {
    /// Calls `visit` with every image of `position` under the game's
    /// symmetry group, the identity included. By default the identity
    /// alone: a game without symmetries implements `Symmetric` with no
    /// methods.
    fn for_each_symmetric(&self, position: &Self::Position, mut visit: impl FnMut(Self::Position)) {
        visit(position.clone());
    }

    /// The one representative of the class of `position` that every member
    /// maps to. By default the image with the least index.
    fn canonical(&self, position: &Self::Position) -> Self::Position
    where
        Self: Indexed,
    {
        let mut best = position.clone();
        let mut best_rank = self.rank(position);
        self.for_each_symmetric(position, |image| {
            let rank = self.rank(&image);
            if rank < best_rank {
                best_rank = rank;
                best = image;
            }
        });
        best
    }

    /// The index of [`Symmetric::canonical`]`(position)`. Games with a
    /// faster way than building the representative override it.
    fn canonical_index(&self, position: &Self::Position) -> u64
    where
        Self: Indexed,
    {
        self.rank(&self.canonical(position))
    }

    /// Whether `index` is the key of its class ([`Symmetric::canonical_index`]),
    /// `position` being the position [`Indexed::unrank`] gives for it. Games
    /// whose index tells without ranking override it.
    fn is_key(&self, index: u64, position: &Self::Position) -> bool
    where
        Self: Indexed,
    {
        self.canonical_index(position) == index
    }

    /// [`Symmetric::class_size`] if `index` is its class's key
    /// ([`Symmetric::is_key`]), else `None`: what a solver that keeps one
    /// position per class asks of each index. By default the two asked in
    /// turn; a game that tells both from one look overrides it.
    fn key_size(&self, index: u64, position: &Self::Position) -> Option<u64>
    where
        Self: Indexed,
    {
        self.is_key(index, position)
            .then(|| self.class_size(index, position))
    }

    /// How many positions the class of `position` holds, `index` being its
    /// [`Symmetric::canonical_index`] and `position` the position with that
    /// index: what a solver that keeps one position per class weighs it by
    /// when it counts positions. By default from the orbit-stabiliser
    /// theorem: the images [`Symmetric::for_each_symmetric`] visits (one per
    /// symmetry) over those with the position's own index.
    fn class_size(&self, index: u64, position: &Self::Position) -> u64
    where
        Self: Indexed,
    {
        let (mut images, mut fixed) = (0u64, 0u64);
        self.for_each_symmetric(position, |image| {
            images += 1;
            fixed += u64::from(self.rank(&image) == index);
        });
        images / fixed.max(1)
    }

    /// Calls `visit` with every legal move, the position it leads to, and
    /// the index of that position's canonical form. Solvers over canonical
    /// positions call this in their inner loop, so games may compute the
    /// indexes together (from the parent's images, say). By default
    /// [`Game::for_each_move`] with [`Symmetric::canonical`] and
    /// [`Indexed::rank`].
    fn for_each_canonical_move(
        &self,
        position: &Self::Position,
        mut visit: impl FnMut(Self::Move, Self::Position, u64),
    ) where
        Self: Indexed,
    {
        self.for_each_move(position, |mv, child| {
            let rank = self.rank(&self.canonical(&child));
            visit(mv, child, rank);
        });
    }
}

/// Tiers as numbers, for the solvers in memory: tiers are `0..tier_count()`
/// and every move leads from a tier to a strictly higher one (pieces on the
/// board, squares covered, ...). An acyclic game with tiers can be solved
/// tier by tier, last tier first, each tier in parallel ([`TableWalk`]).
/// Not to be confused with [`NamedTiers`], the tiers of a game too large for
/// memory, which may loop inside a tier.
pub trait NumberedTiers: Game {
    /// The number of tiers; tiers are numbered `0..tier_count()`.
    fn tier_count(&self) -> usize;

    /// The tier of a position.
    fn tier(&self, position: &Self::Position) -> usize;

    /// An upper bound on the positions play from the start can reach, one
    /// per symmetry class, if the game knows one far below its index size:
    /// then a table of the positions reached ([`crate::SparseTable`]) may
    /// fit where a cell per index does not ([`crate::choose`]).
    fn reachable_bound(&self) -> Option<u64> {
        None
    }
}

/// How a table solver walks a game with a dense index and tiers: which
/// indices make up a tier, and which indices a position's moves lead to.
///
/// Every method has a default built from [`Indexed`] and [`NumberedTiers`], so
/// `impl TableWalk for MyGame {}` is enough; a game overrides a method where
/// it knows a faster way (enumerating a tier directly, or computing child
/// indices without building child positions).
pub trait TableWalk: Indexed + NumberedTiers {
    /// Calls `visit` with every index in `range` whose position lies in
    /// `tier`, in increasing order, together with that position. By default
    /// it unranks every index in `range`.
    fn for_each_index_in_tier(
        &self,
        tier: usize,
        range: std::ops::Range<u64>,
        mut visit: impl FnMut(u64, Self::Position),
    ) {
        for index in range {
            if let Some(position) = self.unrank(index)
                && self.tier(&position) == tier
            {
                visit(index, position);
            }
        }
    }

    /// Calls `visit` with the index of the position every legal move from
    /// `position` leads to (a child reached by several moves may be visited
    /// more than once). Only called on positions that are not primitive. By
    /// default it ranks every child [`Game::for_each_move`] builds.
    fn for_each_child_index(&self, position: &Self::Position, mut visit: impl FnMut(u64)) {
        self.for_each_move(position, |_, child| visit(self.rank(&child)));
    }
}

/// Un-moves: the positions with a move to a given one. Retrograde analysis
/// of a game with parents needs no stored reverse graph.
pub trait Parents: Game {
    /// Calls `visit` with every position that has a legal move to
    /// `position`, each at least once. Primitive positions have no moves, so
    /// they are never parents.
    fn for_each_parent(&self, position: &Self::Position, visit: impl FnMut(Self::Position));
}

/// What alpha-beta search needs beyond the rules: a compact key for its
/// transposition table, a bound on how long play can last, and the moves
/// worth searching, best first. For acyclic games whose play ends in a win,
/// a loss or a tie.
pub trait Searchable: Game {
    /// A number naming the position, below [`Searchable::key_space`].
    /// Positions with one key must have the same outcome: a key may name a
    /// single position or, say, a whole class of symmetric positions.
    fn key(&self, position: &Self::Position) -> u64;

    /// One more than the greatest key.
    fn key_space(&self) -> u64;

    /// The most plies play can last from `position`. Play that ends level
    /// lasts exactly this many (as in games where only a full board ties).
    fn plies_left(&self, position: &Self::Position) -> crate::value::Remoteness;

    /// Calls `visit` with the moves worth searching from a position that is
    /// not primitive, the most promising first. Every legal move left out
    /// must be no better for the mover than some move visited. By default
    /// every move, in the order of [`Game::for_each_move`].
    fn for_each_search_move(
        &self,
        position: &Self::Position,
        visit: impl FnMut(Self::Move, Self::Position),
    ) {
        self.for_each_move(position, visit);
    }
}

/// Positions that split into independent components, each an impartial
/// game under normal play, so that a position's value follows from the XOR
/// of its components' nimbers without walking the product space (see
/// [`crate::solve_sum`]).
///
/// A position may instead hold moves that win at once (completing a line,
/// capturing); the game promises that then those are its only winning
/// moves, and every other move lets the opponent win at once. Otherwise
/// every winning move is a move inside one component, and any move outside
/// the components (a *dead* move) lets the opponent win at once.
///
/// The components are heaps of one octal game, and a component's moves
/// leave heaps as that game's moves would: the engine takes their values
/// and remoteness from the octal game ([`crate::SumSearch`]), so the
/// game only says where its heaps are.
///
/// Kayles, say: rows of pins; a move knocks down one pin or two neighbours,
/// maybe splitting a row in two; who knocks down the last pin wins. A row
/// of `n` pins is a heap of octal game 0.77:
///
/// ```
/// use ply_core::{
///     Decompose, Game, HeapValues, MemoSolver, NoProgress, OctalCode, PositionError, SumSearch,
///     Value, largest_heap, solve_sum, sum_remoteness,
/// };
///
/// struct Kayles;
/// /// A move: the row, the pins knocked down, the pins left on their left.
/// type Knock = (usize, usize, usize);
///
/// impl Game for Kayles {
///     type Position = Vec<usize>;
///     type Move = Knock;
///     fn name(&self) -> String { "kayles".into() }
///     fn start(&self) -> Vec<usize> { vec![3, 5] }
///     fn primitive(&self, _: &Vec<usize>) -> Option<Value> { None }
///     fn for_each_move(&self, rows: &Vec<usize>, mut visit: impl FnMut(Knock, Vec<usize>)) {
///         for (i, &n) in rows.iter().enumerate() {
///             for take in 1..=2.min(n) {
///                 for left in 0..=n - take {
///                     let mut next = rows.clone();
///                     next[i] = left;
///                     next.push(n - take - left);
///                     next.retain(|&r| r > 0);
///                     next.sort_unstable();
///                     visit((i, take, left), next);
///                 }
///             }
///         }
///     }
///     fn parse_position(&self, _: &str) -> Result<Vec<usize>, PositionError> {
///         Err(PositionError::new("not read here"))
///     }
///     fn format_position(&self, rows: &Vec<usize>) -> String { format!("{rows:?}") }
///     fn format_move(&self, _: &Vec<usize>, knock: Knock) -> String { format!("{knock:?}") }
/// }
///
/// impl Decompose for Kayles {
///     type Component = (usize, usize);
///     fn octal_code(&self) -> OctalCode { OctalCode::parse("0.77").unwrap() }
///     fn most_tokens(&self) -> usize { 64 }
///     fn for_each_immediate_win(&self, _: &Vec<usize>, _: impl FnMut(Knock)) {}
///     fn for_each_component(&self, rows: &Vec<usize>, visit: impl FnMut((usize, usize))) {
///         rows.iter().copied().enumerate().for_each(visit);
///     }
///     fn heap(&self, &(_, n): &(usize, usize)) -> usize { n }
///     fn for_each_component_move(&self, &(i, n): &(usize, usize), mut visit: impl FnMut(Knock, [usize; 2])) {
///         for take in 1..=2.min(n) {
///             for left in 0..=n - take {
///                 visit((i, take, left), [left, n - take - left]);
///             }
///         }
///     }
///     fn for_each_dead_move(&self, _: &Vec<usize>, _: impl FnMut(Knock)) {}
///     fn count_moves(&self, rows: &Vec<usize>) -> usize {
///         let mut count = 0;
///         self.for_each_move(rows, |_, _| count += 1);
///         count
///     }
/// }
///
/// let game = Kayles;
/// let rows = game.start();
/// let heaps = HeapValues::new(game.octal_code(), game.most_tokens());
/// let values = heaps.up_to(largest_heap(&game, &rows), &NoProgress).unwrap();
/// let theory = solve_sum(&game, &values, &rows);
/// // Rows of 3 and 5 are worth 3 and 4: a win, by moves that leave 3 ^ 3.
/// assert_eq!((theory.value, theory.nimber), (Value::Win, Some(3 ^ 4)));
/// let mut search = SumSearch::new(game.octal_code());
/// let remoteness = sum_remoteness(&game, &mut search, &rows);
/// // Plain search of the whole game agrees.
/// let truth = MemoSolver::new(&game).solve(&rows).unwrap();
/// assert_eq!((theory.value, remoteness), (truth.value, truth.remoteness));
/// ```
pub trait Decompose: Game {
    /// One independent part of a position.
    type Component;

    /// Calls `visit` with every move that wins at once.
    fn for_each_immediate_win(&self, position: &Self::Position, visit: impl FnMut(Self::Move));

    /// The octal game whose heaps the components are: the engine finds
    /// their nimbers ([`crate::HeapValues`]).
    fn octal_code(&self) -> OctalCode;

    /// The most tokens a component's heap can hold, over every position
    /// the game accepts: what the engine may have to compute values for.
    fn most_tokens(&self) -> usize;

    /// Calls `visit` with every component of a position that is not
    /// primitive and has no immediate win.
    fn for_each_component(&self, position: &Self::Position, visit: impl FnMut(Self::Component));

    /// The heap a component is, in tokens.
    fn heap(&self, component: &Self::Component) -> usize;

    /// Calls `visit` with every move inside `component` and the heaps it
    /// leaves of it (0 for none), as a move of the octal game would.
    fn for_each_component_move(
        &self,
        component: &Self::Component,
        visit: impl FnMut(Self::Move, [usize; 2]),
    );

    /// Calls `visit` with every dead move of a position that is not
    /// primitive and has no immediate win, in the order of
    /// [`Game::for_each_move`], without making the positions they lead to.
    fn for_each_dead_move(&self, position: &Self::Position, visit: impl FnMut(Self::Move));

    /// The number of legal moves, without making the positions they lead to.
    fn count_moves(&self, position: &Self::Position) -> usize;

    /// Once no component has a move, the plies until play ends: 0 when
    /// the player left without a component move has lost, more when play
    /// goes on (Treblecross: a forced X on a dead square, then the
    /// opponent's completing X).
    fn plies_when_played_out(&self) -> Remoteness {
        0
    }
}

/// Named tiers for the tier solver ([`crate::tier`]): a game too large to
/// hold in memory, cut into tiers, each a label of its own type
/// ([`NamedTiers::Tier`]) with a name, that moves never climb back up. Unlike
/// [`NumberedTiers`] (acyclic games, every move to another tier), moves may stay
/// inside a tier and play may loop there; a move that leaves a tier leads to
/// one of its [`NamedTiers::child_tiers`], and the tiers and their children form
/// an acyclic graph. The solver solves tiers children first, each by
/// retrograde analysis inside the tier seeded with its child tiers' values,
/// and writes each as a database shard at once; in memory it holds only the
/// tier being solved and the child tiers it reads.
///
/// What a game gives:
/// - the tiers ([`NamedTiers::tiers`]), each a small label ([`NamedTiers::Tier`]: a
///   pair of counts, a number of pieces dropped) with a name for files and
///   messages ([`NamedTiers::tier_name`]);
/// - the tier of a position ([`NamedTiers::tier_of`]);
/// - a dense index inside each tier: [`NamedTiers::tier_size`],
///   [`NamedTiers::tier_rank`] and [`NamedTiers::tier_unrank`] (an index may name no
///   legal position: `unrank` says `None` and the solver skips it);
/// - the child tiers of a tier ([`NamedTiers::child_tiers`]): every tier other
///   than itself that a move from it can lead to;
/// - optionally, mirror tiers: [`NamedTiers::canonical_tier`] names the one tier
///   of a mirror class that is solved, and [`NamedTiers::to_canonical_tier`] maps
///   a position onto its image there, of the same value and remoteness
///   (Quixo: swap the colours and the mover). Only canonical tiers are
///   solved and stored;
/// - optionally, un-moves inside a tier ([`NamedTiers::IN_TIER_PARENTS`] and
///   [`NamedTiers::for_each_parent_in_tier`]), which let the solver work back
///   from decided positions instead of rescanning the tier for each
///   remoteness;
/// - optionally, a faster [`NamedTiers::for_each_child`] (the tier and index of
///   every child, without building child positions one by one).
///
/// Children are counted once per distinct child position, as in
/// [`crate::solve::retro`]; parents may be visited more than once.
///
/// A pile of counters where a move takes one or two, tiered by tens:
///
/// ```
/// use ply_core::{Game, PositionError, NamedTiers, Value};
///
/// struct Pile;
/// impl Game for Pile {
///     type Position = u32;
///     type Move = u32;
///     fn name(&self) -> String { "pile".into() }
///     fn start(&self) -> u32 { 29 }
///     fn primitive(&self, _: &u32) -> Option<Value> { None }
///     fn for_each_move(&self, pile: &u32, mut visit: impl FnMut(u32, u32)) {
///         for take in 1..=2.min(*pile) { visit(take, pile - take) }
///     }
///     fn parse_position(&self, text: &str) -> Result<u32, PositionError> {
///         text.parse().map_err(|_| PositionError::new("not a pile"))
///     }
///     fn format_position(&self, pile: &u32) -> String { pile.to_string() }
///     fn format_move(&self, _: &u32, take: u32) -> String { take.to_string() }
/// }
/// impl NamedTiers for Pile {
///     type Tier = u32;
///     fn tiers(&self) -> Vec<u32> { vec![0, 1, 2] }
///     fn tier_name(&self, tier: u32) -> String { format!("tens-{tier}") }
///     fn tier_of(&self, pile: &u32) -> u32 { pile / 10 }
///     fn tier_size(&self, _: u32) -> u64 { 10 }
///     fn tier_rank(&self, _: u32, pile: &u32) -> u64 { u64::from(pile % 10) }
///     fn tier_unrank(&self, tier: u32, index: u64) -> Option<u32> { Some(tier * 10 + index as u32) }
///     fn child_tiers(&self, tier: u32) -> Vec<u32> { tier.checked_sub(1).into_iter().collect() }
/// }
/// assert_eq!(Pile.child_tiers(2), vec![1]);
/// ```
pub trait NamedTiers: Game {
    /// A tier's label: small, copied freely, ordered (so lists of tiers
    /// sort the same way on every run).
    type Tier: Copy + Eq + Ord + Hash + Debug + Send + Sync;

    /// Whether [`NamedTiers::for_each_parent_in_tier`] lists un-moves.
    const IN_TIER_PARENTS: bool = false;

    /// Whether [`NamedTiers::fold_in_tier`] maps positions onto representatives
    /// of symmetry classes inside their tier: the solver then solves one
    /// position per class and copies its answer to the others.
    const IN_TIER_SYMMETRY: bool = false;

    /// Every tier of the game, each once, in any order.
    fn tiers(&self) -> Vec<Self::Tier>;

    /// Whether every move from a position of `tier` leaves it (no move
    /// stays inside): then each position is decided from its child tiers
    /// alone, and a team of processes cuts a large such tier's indices
    /// between them, each solving a slice ([`crate::tier::build()`]). By
    /// default false; a build that meets a move inside a tier said to have
    /// none fails, naming it.
    fn leaves_tier(&self, tier: Self::Tier) -> bool {
        let _ = tier;
        false
    }

    /// A short name of `tier` for file names and messages, unique among the
    /// game's tiers: ASCII letters, digits, `-` and `_` only (e.g. `x3-o2`).
    fn tier_name(&self, tier: Self::Tier) -> String;

    /// The tier of `position`.
    fn tier_of(&self, position: &Self::Position) -> Self::Tier;

    /// The size of `tier`'s dense index: its indices are `0..tier_size`.
    fn tier_size(&self, tier: Self::Tier) -> u64;

    /// The index inside `tier` of `position`, which lies in `tier`.
    fn tier_rank(&self, tier: Self::Tier, position: &Self::Position) -> u64;

    /// The position of `tier` with index `index`, or `None` where no legal
    /// position has that index.
    fn tier_unrank(&self, tier: Self::Tier, index: u64) -> Option<Self::Position>;

    /// The board at `index` of `tier`, whether or not legal play reaches
    /// it (`None` where the index names no board at all). Read where a
    /// position's legality is known another way: a tier solved a cell per
    /// symmetry class finds the other positions' cells through their
    /// representatives, and an image of no representative is no position.
    /// By default [`NamedTiers::tier_unrank`]; a game whose legality costs far
    /// more than its unranking (Connect Four's search for an order of
    /// play) overrides it.
    fn tier_board(&self, tier: Self::Tier, index: u64) -> Option<Self::Position> {
        self.tier_unrank(tier, index)
    }

    /// The tiers other than `tier` that moves from `tier` lead to, each once.
    fn child_tiers(&self, tier: Self::Tier) -> Vec<Self::Tier>;

    /// The tier of `tier`'s mirror class that is solved and stored: `tier`
    /// itself (the default) or another tier whose positions map one to one
    /// onto `tier`'s by [`NamedTiers::to_canonical_tier`].
    fn canonical_tier(&self, tier: Self::Tier) -> Self::Tier {
        tier
    }

    /// The image of `position` in the canonical tier of its tier, with the
    /// same value and remoteness. Called only on positions whose tier is not
    /// its own canonical tier; by default the position itself.
    fn to_canonical_tier(&self, position: &Self::Position) -> Self::Position {
        position.clone()
    }

    /// The representative of `position`'s class under the game's
    /// symmetries inside a tier (used only when [`NamedTiers::IN_TIER_SYMMETRY`]
    /// is true): every member of the class maps to the same position, which
    /// lies in the same tier and has the same value and remoteness. The
    /// symmetries must map moves onto moves (a position and its image have
    /// images of each other's children as children), so that the
    /// representatives of the un-move parents of a representative are the
    /// representatives with a child in its class. By default the position
    /// itself.
    fn fold_in_tier(&self, position: &Self::Position) -> Self::Position {
        position.clone()
    }

    /// Which indices of `tier` its shard holds where the shard holds only
    /// those the game names ([`crate::Keys::Present`], written by a build
    /// of the game's own): the game's test of them, which every reader of
    /// such a shard needs. By default none: the game writes no such shard.
    fn tier_presence(
        &self,
        tier: Self::Tier,
    ) -> Option<std::sync::Arc<dyn crate::solution::Presence>> {
        let _ = tier;
        None
    }

    /// Another game whose shard of `tier` holds the cells this game's
    /// would, over the same keys of the same index: its name and rules
    /// version. The tier solver takes that shard, written again under this
    /// game's name, rather than solve the tier (a whole game reusing the
    /// tiers of its moving phase, say). By default none.
    fn counterpart(&self, tier: Self::Tier) -> Option<(String, u32)> {
        let _ = tier;
        None
    }

    /// Whether `position` is its class's representative: by default
    /// whether [`NamedTiers::fold_in_tier`] leaves it as it is; games override
    /// it to stop at the first image that is less.
    fn is_representative(&self, position: &Self::Position) -> bool {
        self.fold_in_tier(position) == *position
    }

    /// Like [`NamedTiers::for_each_child`], but a child whose canonical tier is
    /// that of `position` is given by the index of its representative
    /// ([`NamedTiers::fold_in_tier`]) there. By default [`NamedTiers::for_each_child`]
    /// when the game has no symmetry inside tiers, else from
    /// [`Game::for_each_move`]; games override it to be faster.
    fn for_each_folded_child(
        &self,
        position: &Self::Position,
        mut visit: impl FnMut(Self::Tier, u64),
    ) {
        if !Self::IN_TIER_SYMMETRY {
            return self.for_each_child(position, visit);
        }
        let own = self.canonical_tier(self.tier_of(position));
        self.for_each_move(position, |_, child| {
            let tier = self.tier_of(&child);
            let canonical = self.canonical_tier(tier);
            let image = if canonical == tier {
                child
            } else {
                self.to_canonical_tier(&child)
            };
            let image = if canonical == own {
                self.fold_in_tier(&image)
            } else {
                image
            };
            visit(canonical, self.tier_rank(canonical, &image));
        });
    }

    /// The first pass's view of `position`'s children: as
    /// [`NamedTiers::for_each_folded_child`], except that a game may leave out
    /// every child inside `position`'s own tier when it knows those
    /// children to be distinct (no two moves lead to one child, or to one
    /// representative): it then visits only the children in other tiers
    /// and returns `Some` of how many it left out, so that the solver
    /// counts them without ranking them. `None` means every child was
    /// visited; so it is by default.
    fn for_each_child_outside(
        &self,
        position: &Self::Position,
        visit: impl FnMut(Self::Tier, u64),
    ) -> Option<usize> {
        self.for_each_folded_child(position, visit);
        None
    }

    /// Calls `visit` with every position of the same tier as `position`
    /// that has a legal move to it, each at least once, and with no
    /// position of another tier; positions where play is over may be
    /// listed (the solver decided them before any un-move reaches them).
    /// Called only when [`NamedTiers::IN_TIER_PARENTS`] is true; by default it
    /// visits nothing.
    fn for_each_parent_in_tier(
        &self,
        _position: &Self::Position,
        _visit: impl FnMut(Self::Position),
    ) {
    }

    /// Calls `visit` with the index in `tier` of every parent that
    /// [`NamedTiers::for_each_parent_in_tier`] lists for `position` (a position
    /// of `tier`), folded by [`NamedTiers::fold_in_tier`] where
    /// [`NamedTiers::IN_TIER_SYMMETRY`] holds: what the tier solver's layers
    /// need. By default by ranking those parents; games override it to
    /// rank parents without building them.
    ///
    /// Returns whether the indices visited are known to be distinct: the
    /// solver then need not sort them to drop repeats (by default false).
    fn for_each_parent_index_in_tier(
        &self,
        tier: Self::Tier,
        position: &Self::Position,
        mut visit: impl FnMut(u64),
    ) -> bool {
        self.for_each_parent_in_tier(position, |parent| {
            let parent = if Self::IN_TIER_SYMMETRY {
                self.fold_in_tier(&parent)
            } else {
                parent
            };
            visit(self.tier_rank(tier, &parent));
        });
        false
    }

    /// Calls `visit` with every index in `range` (within `0..tier_size`)
    /// that names a position of `tier`, in increasing order, together with
    /// that position. By default by [`NamedTiers::tier_unrank`]; games that can
    /// step from one position to the next override it.
    fn for_each_in_tier(
        &self,
        tier: Self::Tier,
        range: std::ops::Range<u64>,
        mut visit: impl FnMut(u64, Self::Position),
    ) {
        for index in range {
            if let Some(position) = self.tier_unrank(tier, index) {
                visit(index, position);
            }
        }
    }

    /// Calls `visit` with the canonical tier and the index there of the
    /// position every legal move from `position` leads to: the child's own
    /// tier and index when its tier is canonical, else those of its image
    /// under [`NamedTiers::to_canonical_tier`] (a child may be visited more than
    /// once). Called only on positions that are not primitive. By default
    /// from [`Game::for_each_move`] and the methods above.
    fn for_each_child(&self, position: &Self::Position, mut visit: impl FnMut(Self::Tier, u64)) {
        self.for_each_move(position, |_, child| {
            let tier = self.tier_of(&child);
            let canonical = self.canonical_tier(tier);
            if canonical == tier {
                visit(tier, self.tier_rank(tier, &child));
            } else {
                visit(
                    canonical,
                    self.tier_rank(canonical, &self.to_canonical_tier(&child)),
                );
            }
        });
    }
}

/// Why a game's own search ([`Searched::search`]) gave no answer; `E` is
/// what reading a stored position failed with.
#[derive(Debug)]
pub enum SearchStop<E> {
    /// The caller asked it to stop.
    Cancelled,
    /// A stored position it read could not be answered.
    Leaf(E),
}

/// How a game answers a position that no stored tier holds: by a search of
/// its own, reading stored positions through the `stored` callback where
/// it needs them (the placing phase of Nine Men's Morris over its stored
/// moving phase), or alone (Connect Four on a board too large to store).
/// The engine answers a position from the game's database where one is
/// stored or small enough to build for the query, and by this search
/// otherwise; where the game names a variant that stores every position
/// ([`Searched::storing_all`]) and its database is stored, from that.
pub trait Searched: NamedTiers {
    /// The search's state kept between queries (its transposition table).
    type Searcher: Send;

    /// Whether `position` lies outside every tier the game stores, so that
    /// only the search answers it. By default false: every position is in
    /// some tier.
    fn searched_only(&self, position: &Self::Position) -> bool {
        let _ = position;
        false
    }

    /// Whether the search reads stored positions: then it is no substitute
    /// for the game's database, and a position the tiers hold is answered
    /// from them (or refused as they refuse it) even where none is stored.
    /// By default false: the search stands alone.
    fn search_reads_stored(&self) -> bool {
        false
    }

    /// The variant of this game that stores every position this one
    /// searches (Morris's whole game beside its moving phase), read
    /// instead of searching where its database is stored. By default none.
    fn storing_all(&self) -> Option<Self>
    where
        Self: Sized,
    {
        None
    }

    /// A searcher whose tables take at most `bytes`, searching on
    /// `threads` threads.
    fn searcher(&self, bytes: u64, threads: usize) -> Self::Searcher;

    /// The outcome of `position`, legal in this game, by search; `stored`
    /// answers a position that some stored tier holds. The search reports
    /// the positions it visits to `progress` and stops soon after it says
    /// [`Progress::cancelled`].
    fn search<E: Send>(
        &self,
        searcher: &mut Self::Searcher,
        position: &Self::Position,
        stored: &(dyn Fn(&Self::Position) -> Result<Outcome, E> + Sync),
        progress: &dyn Progress,
    ) -> Result<Outcome, SearchStop<E>>;

    /// The outcomes of `positions` (a position's moves, say), each as
    /// [`Searched::search`] finds it. By default one after the other; a
    /// game may search them at once, on the searcher's threads.
    fn search_each<E: Send>(
        &self,
        searcher: &mut Self::Searcher,
        positions: &[Self::Position],
        stored: &(dyn Fn(&Self::Position) -> Result<Outcome, E> + Sync),
        progress: &dyn Progress,
    ) -> Result<Vec<Outcome>, SearchStop<E>> {
        positions
            .iter()
            .map(|position| self.search(searcher, position, stored, progress))
            .collect()
    }

    /// The positions `searcher` has looked at so far.
    fn searched_nodes(&self, searcher: &Self::Searcher) -> u64;
}
