//! A game written in Python, solved by the engine. Its positions are
//! explored from the start by calling the object's `primitive`, and
//! `moves` and `play` or its optional `children` (positions are told apart
//! by Python's `hash` and `==`, and move objects are not kept), which
//! gives an explicit graph of the positions reached; the graph is then a
//! [`Game`] with a dense index, solved by memoised search when it has no
//! cycle (bottom-up: each position after its children, in reverse
//! topological order) and by retrograde analysis
//! ([`ply_core::solve::retro`]) when it has.

use crate::native::codes;
use crate::{errors, interrupt};
use hashbrown::HashTable;
use hashbrown::hash_table::Entry;
use ply_core::solve::retro;
use ply_core::{Census, Game, Indexed, Outcome, PositionError, Value};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::time::Instant;

/// Positions explored between two looks for Ctrl-C.
const SIGNAL_EVERY: usize = 1 << 12;

/// The positions a Python game reaches from its start and the moves
/// between them: position `i` has the moves `offsets[i]..offsets[i + 1]`
/// into `targets`.
struct Graph {
    primitive: Vec<Option<Value>>,
    offsets: Vec<usize>,
    targets: Vec<u32>,
}

impl Game for Graph {
    type Position = u32;
    type Move = u32;

    fn name(&self) -> String {
        "python".into()
    }

    fn start(&self) -> u32 {
        0
    }

    fn primitive(&self, position: &u32) -> Option<Value> {
        self.primitive[*position as usize]
    }

    fn for_each_move(&self, position: &u32, mut visit: impl FnMut(u32, u32)) {
        let p = *position as usize;
        for edge in self.offsets[p]..self.offsets[p + 1] {
            visit(edge as u32, self.targets[edge]);
        }
    }

    fn parse_position(&self, text: &str) -> Result<u32, PositionError> {
        text.parse()
            .ok()
            .filter(|&p: &u32| (p as usize) < self.primitive.len())
            .ok_or_else(|| PositionError::new("the number of a position reached"))
    }

    fn format_position(&self, position: &u32) -> String {
        position.to_string()
    }

    fn format_move(&self, _position: &u32, mv: u32) -> String {
        mv.to_string()
    }
}

impl Indexed for Graph {
    fn index_len(&self) -> u64 {
        self.primitive.len() as u64
    }

    fn rank(&self, position: &u32) -> u64 {
        u64::from(*position)
    }

    fn unrank(&self, index: u64) -> Option<u32> {
        (index < self.index_len()).then_some(index as u32)
    }
}

impl Graph {
    /// The positions in an order where each comes after every position
    /// with a move into it, or `None` if the graph has a cycle (Kahn's
    /// algorithm).
    fn topological_order(&self) -> Option<Vec<u32>> {
        let n = self.primitive.len();
        let mut parents_left = vec![0u32; n];
        for &t in &self.targets {
            parents_left[t as usize] += 1;
        }
        let mut order: Vec<u32> = (0..n as u32)
            .filter(|&p| parents_left[p as usize] == 0)
            .collect();
        let mut next = 0;
        while next < order.len() {
            let p = order[next] as usize;
            next += 1;
            for &t in &self.targets[self.offsets[p]..self.offsets[p + 1]] {
                parents_left[t as usize] -= 1;
                if parents_left[t as usize] == 0 {
                    order.push(t);
                }
            }
        }
        (order.len() == n).then_some(order)
    }

    /// The outcome of every position of an acyclic graph, each found from
    /// its children's (as memoised search finds it), taken in the reverse
    /// of `order`.
    fn outcomes_in(&self, order: &[u32]) -> Vec<Outcome> {
        let mut outcomes = vec![Outcome::DRAW; self.primitive.len()];
        for &p in order.iter().rev() {
            let p = p as usize;
            outcomes[p] = match self.primitive[p] {
                Some(value) => Outcome::terminal(value),
                None => Outcome::from_children(
                    self.targets[self.offsets[p]..self.offsets[p + 1]]
                        .iter()
                        .map(|&t| outcomes[t as usize]),
                )
                .unwrap_or(Outcome::terminal(Value::Lose)),
            };
        }
        outcomes
    }
}

/// How a Python game was solved.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
enum Method {
    Memo,
    Retro,
}

impl Method {
    fn as_str(self) -> &'static str {
        match self {
            Method::Memo => "memoised search",
            Method::Retro => "retrograde analysis",
        }
    }
}

/// How a Python game gives the positions after a position: its optional
/// `children(p)`, pairs `(move, child)` in one call, else `moves(p)` and a
/// `play(p, m)` call per move.
enum Rules {
    Children(Py<PyAny>),
    MovesPlay { moves: Py<PyAny>, play: Py<PyAny> },
}

impl Rules {
    /// The rules of `game`, from its methods.
    fn of(game: &Bound<'_, PyAny>, name: &str) -> PyResult<Self> {
        let py = game.py();
        if let Some(children) = game.getattr_opt(intern!(py, "children"))? {
            return Ok(Rules::Children(children.unbind()));
        }
        Ok(Rules::MovesPlay {
            moves: method(game, "moves", name)?.unbind(),
            play: method(game, "play", name)?.unbind(),
        })
    }

    /// Calls `visit(move, child)` for each move from `position`, in the
    /// game's order.
    fn for_each<'py>(
        &self,
        position: &Bound<'py, PyAny>,
        name: &str,
        mut visit: impl FnMut(Bound<'py, PyAny>, Bound<'py, PyAny>) -> PyResult<()>,
    ) -> PyResult<()> {
        let py = position.py();
        match self {
            Rules::Children(children) => {
                for pair in children.bind(py).call1((position,))?.try_iter()? {
                    let pair = pair?;
                    let (mv, child) = pair.extract().map_err(|_| {
                        errors::argument(format!(
                            "{name}.children must give (move, position) pairs; it gave {}",
                            pair.repr().map_or_else(|_| "?".into(), |r| r.to_string())
                        ))
                    })?;
                    visit(mv, child)?;
                }
            }
            Rules::MovesPlay { moves, play } => {
                let play = play.bind(py);
                for mv in moves.bind(py).call1((position,))?.try_iter()? {
                    let mv = mv?;
                    let child = play.call1((position, &mv))?;
                    visit(mv, child)?;
                }
            }
        }
        Ok(())
    }
}

/// The positions reached, numbered in the order reached and told apart by
/// Python's `hash` and `==` (an object is first compared by identity): a
/// table of numbers by hash, so that each child costs one `hash` call and
/// one probe, and no Python int per position.
struct Positions {
    objects: Vec<Py<PyAny>>,
    table: HashTable<(u64, u32)>,
}

impl Positions {
    fn new() -> Self {
        Self {
            objects: Vec::new(),
            table: HashTable::new(),
        }
    }

    /// The number of `position`, if it was reached.
    fn get(&self, position: &Bound<'_, PyAny>) -> PyResult<Option<u32>> {
        let hash = spread(position.hash()?);
        let mut failed = None;
        let found = self
            .table
            .find(hash, |&(h, id)| {
                h == hash
                    && self.same(id, position).unwrap_or_else(|e| {
                        failed = Some(e);
                        false
                    })
            })
            .map(|&(_, id)| id);
        failed.map_or(Ok(found), Err)
    }

    /// The number of `position`, numbered next if it is new.
    fn intern(&mut self, position: Bound<'_, PyAny>, name: &str) -> PyResult<u32> {
        let hash = spread(position.hash()?);
        let mut failed = None;
        let objects = &self.objects;
        let entry = self.table.entry(
            hash,
            |&(h, id)| {
                h == hash
                    && Self::same_in(objects, id, &position).unwrap_or_else(|e| {
                        failed = Some(e);
                        false
                    })
            },
            |&(h, _)| h,
        );
        if let Some(e) = failed {
            return Err(e);
        }
        match entry {
            Entry::Occupied(found) => Ok(found.get().1),
            Entry::Vacant(slot) => {
                let id = u32::try_from(self.objects.len()).map_err(|_| {
                    errors::argument(format!("{name} reaches more than 2^32 positions"))
                })?;
                slot.insert((hash, id));
                self.objects.push(position.unbind());
                Ok(id)
            }
        }
    }

    /// Whether the position numbered `id` is `position`.
    fn same(&self, id: u32, position: &Bound<'_, PyAny>) -> PyResult<bool> {
        Self::same_in(&self.objects, id, position)
    }

    fn same_in(objects: &[Py<PyAny>], id: u32, position: &Bound<'_, PyAny>) -> PyResult<bool> {
        let known = objects[id as usize].bind(position.py());
        Ok(known.is(position) || known.eq(position)?)
    }
}

/// Python's hash spread over all 64 bits (a folded multiply): the table
/// takes its slot from the low bits and a tag from the high ones, and
/// small ints hash to themselves.
fn spread(hash: isize) -> u64 {
    let product = u128::from(hash as u64) * 0x9e37_79b9_7f4a_7c15;
    (product as u64) ^ ((product >> 64) as u64)
}

/// A game written in Python, explored and solved.
pub struct PythonGame {
    name: String,
    rules: Rules,
    positions: Positions,
    graph: Graph,
    outcomes: Vec<Outcome>,
    method: Method,
    seconds: f64,
}

impl PythonGame {
    /// Explores `game` from its start and solves every position reached.
    pub fn solve(py: Python<'_>, game: &Bound<'_, PyAny>) -> PyResult<Self> {
        let began = Instant::now();
        let name = match game.getattr_opt(intern!(py, "name"))? {
            Some(name) if !name.is_callable() => name.str()?.to_cow()?.into_owned(),
            _ => game.get_type().name()?.to_cow()?.into_owned(),
        };
        let start = method(game, "start", &name)?;
        let rules = Rules::of(game, &name)?;
        let primitive_of = method(game, "primitive", &name)?;
        let mut positions = Positions::new();
        positions.intern(start.call0()?, &name)?;
        let mut graph = Graph {
            primitive: Vec::new(),
            offsets: vec![0],
            targets: Vec::new(),
        };
        let mut at = 0;
        while at < positions.objects.len() {
            if at % SIGNAL_EVERY == 0 {
                py.check_signals()?;
            }
            let position = positions.objects[at].clone_ref(py).into_bound(py);
            let value = primitive_value(&primitive_of.call1((&position,))?, &name)?;
            graph.primitive.push(value);
            if value.is_none() {
                rules.for_each(&position, &name, |_, child| {
                    graph.targets.push(positions.intern(child, &name)?);
                    Ok(())
                })?;
            }
            graph.offsets.push(graph.targets.len());
            at += 1;
        }
        let (outcomes, method) = interrupt::run(py, |progress| solve_graph(&graph, progress))?;
        Ok(Self {
            name,
            rules,
            positions,
            graph,
            outcomes,
            method,
            seconds: began.elapsed().as_secs_f64(),
        })
    }

    /// The game's name: its `name` attribute, else its class's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// How many positions were reached.
    pub fn len(&self) -> usize {
        self.positions.objects.len()
    }

    /// The position numbered `id` (0 is the start).
    pub fn position<'py>(&self, py: Python<'py>, id: usize) -> Bound<'py, PyAny> {
        self.positions.objects[id].bind(py).clone()
    }

    /// The number of `position`, or an error saying it was not reached.
    fn id_of(&self, position: &Bound<'_, PyAny>) -> PyResult<usize> {
        match self.positions.get(position)? {
            Some(id) => Ok(id as usize),
            None => Err(errors::argument(format!(
                "position {} was not reached from the start of {}",
                position.repr()?,
                self.name
            ))),
        }
    }

    /// The dict `ply solve --json` prints, with position and move objects
    /// in place of texts.
    pub fn solve_dict<'py>(
        &self,
        py: Python<'py>,
        position: Option<&Bound<'py, PyAny>>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let id = position.map_or(Ok(0), |p| self.id_of(p))?;
        let report = self.outcome_dict(py, self.outcomes[id])?;
        report.set_item("game", &self.name)?;
        report.set_item("position", self.position(py, id))?;
        // Move objects are not kept (a game has several times more moves
        // than positions): the moves of this one position are asked again.
        let moves = PyList::empty(py);
        if self.graph.primitive[id].is_none() {
            let position = self.position(py, id);
            self.rules.for_each(&position, &self.name, |mv, child| {
                let Some(child_id) = self.positions.get(&child)? else {
                    return Err(errors::argument(format!(
                        "{}: a move from {} now leads to {}, not reached when the game \
                         was explored (its moves must not change)",
                        self.name,
                        position.repr()?,
                        child.repr()?
                    )));
                };
                let outcome = self.outcomes[child_id as usize];
                let entry = self.outcome_dict(py, outcome)?;
                entry.set_item("move", mv)?;
                entry.set_item("position", self.position(py, child_id as usize))?;
                // As `ply solve --json`: the move's outcome for its maker too.
                let mover = outcome.through_move();
                entry.set_item("mover_value", mover.value.as_str())?;
                entry.set_item("mover_remoteness", mover.remoteness)?;
                moves.append(entry)
            })?;
        }
        report.set_item("moves", moves)?;
        Ok(report.into_any())
    }

    /// A dict with an outcome's `value` and `remoteness`.
    fn outcome_dict<'py>(&self, py: Python<'py>, outcome: Outcome) -> PyResult<Bound<'py, PyDict>> {
        let dict = PyDict::new(py);
        dict.set_item("value", outcome.value.as_str())?;
        dict.set_item("remoteness", outcome.remoteness)?;
        Ok(dict)
    }

    /// Value codes and remoteness of the positions in `positions`.
    pub fn solve_many(&self, positions: &Bound<'_, PyAny>) -> PyResult<(Vec<i8>, Vec<i16>)> {
        let mut out = (Vec::new(), Vec::new());
        for position in positions.try_iter()? {
            let (v, r) = codes(Some(self.outcomes[self.id_of(&position?)?]));
            out.0.push(v);
            out.1.push(r);
        }
        Ok(out)
    }

    /// Value codes and remoteness of every position, by number.
    pub fn arrays(&self) -> (Vec<i8>, Vec<i16>) {
        self.outcomes.iter().map(|&o| codes(Some(o))).unzip()
    }

    /// Value codes and remoteness of the positions numbered `keys`.
    pub fn arrays_of(&self, keys: &[u64]) -> PyResult<(Vec<i8>, Vec<i16>)> {
        keys.iter()
            .map(|&k| Ok(codes(Some(self.outcomes[self.checked(k)?]))))
            .collect::<PyResult<Vec<_>>>()
            .map(|v| v.into_iter().unzip())
    }

    /// `key` as a position number, or an error if no position has it.
    fn checked(&self, key: u64) -> PyResult<usize> {
        if key < self.len() as u64 {
            Ok(key as usize)
        } else {
            Err(errors::argument(format!(
                "key {key} is outside the positions of {} (0 to {})",
                self.name,
                self.len().saturating_sub(1)
            )))
        }
    }

    /// The positions numbered `keys` (all if `None`).
    pub fn positions<'py>(
        &self,
        py: Python<'py>,
        keys: Option<&[u64]>,
    ) -> PyResult<Bound<'py, PyList>> {
        match keys {
            None => PyList::new(py, self.positions.objects.iter().map(|p| p.bind(py))),
            Some(keys) => {
                let ids = keys
                    .iter()
                    .map(|&k| self.checked(k))
                    .collect::<PyResult<Vec<_>>>()?;
                PyList::new(
                    py,
                    ids.into_iter().map(|i| self.positions.objects[i].bind(py)),
                )
            }
        }
    }

    /// The census `ply analyze --json` prints, over the positions reached,
    /// with how they were solved and how fast.
    pub fn analyze_json(&self, py: Python<'_>) -> PyResult<String> {
        let mut census = Census::new();
        for (id, &outcome) in self.outcomes.iter().enumerate() {
            census.add(outcome, || id);
        }
        let mut failed = None;
        let census = census.map_examples(|id| match self.positions.objects[id].bind(py).repr() {
            Ok(text) => text.to_string(),
            Err(e) => {
                failed = Some(e);
                String::new()
            }
        });
        if let Some(e) = failed {
            return Err(e);
        }
        let mut report = ply::report::AnalyzeReport::from_census(self.name.clone(), census);
        let extra = [
            (
                "counted",
                serde_json::json!("positions reached from the start"),
            ),
            ("method", serde_json::json!(self.method.as_str())),
            ("moves", serde_json::json!(self.graph.targets.len())),
            ("seconds", serde_json::json!(self.seconds)),
        ];
        for (key, value) in extra {
            report.extra.insert(key.into(), value);
        }
        serde_json::to_string(&report).map_err(|e| errors::PlyError::new_err(e.to_string()))
    }
}

/// The method `method` of `game` (named `name`), or an error saying what
/// a game written in Python needs.
fn method<'py>(game: &Bound<'py, PyAny>, method: &str, name: &str) -> PyResult<Bound<'py, PyAny>> {
    game.getattr(method).map_err(|_| {
        errors::argument(format!(
            "a game written in Python needs start(), primitive(p), and moves(p) with \
             play(p, m) or children(p); {name} has no {method}"
        ))
    })
}

/// The value `primitive(p)` returned: `None`, or `"win"`, `"lose"` or
/// `"tie"` for the player to move.
fn primitive_value(value: &Bound<'_, PyAny>, name: &str) -> PyResult<Option<Value>> {
    if value.is_none() {
        return Ok(None);
    }
    let text: Option<String> = value.extract().ok();
    match text.as_deref() {
        Some("win") => Ok(Some(Value::Win)),
        Some("lose") => Ok(Some(Value::Lose)),
        Some("tie") => Ok(Some(Value::Tie)),
        _ => Err(errors::argument(format!(
            "{name}.primitive returned {}; expected None, 'win', 'lose' or 'tie'",
            value.repr()?
        ))),
    }
}

/// Solves every position of `graph`: memoised search without cycles,
/// retrograde analysis with.
fn solve_graph(
    graph: &Graph,
    progress: &dyn ply_core::Progress,
) -> Result<(Vec<Outcome>, Method), ply::PlyError> {
    let n = graph.primitive.len();
    if let Some(order) = graph.topological_order() {
        return Ok((graph.outcomes_in(&order), Method::Memo));
    }
    let table = retro::solve(graph, progress)
        .map_err(|e| ply::PlyError::solve("solving a Python game", e))?;
    (0..n as u64)
        .map(|p| {
            table
                .outcome_at(p)
                .ok_or_else(|| ply::PlyError::argument(format!("position {p} was left unsolved")))
        })
        .collect::<Result<Vec<_>, _>>()
        .map(|outcomes| (outcomes, Method::Retro))
}
