//! A game written in Python, solved by the engine. Its positions are
//! explored from the start by calling the object's `primitive`, `moves` and
//! `play` (positions are told apart by Python's `hash` and `==`), which
//! gives an explicit graph of the positions reached; the graph is then a
//! [`Game`] with a dense index, solved by memoised search
//! ([`MemoSolver`]) when it has no cycle and by retrograde analysis
//! ([`ply_core::solve::retro`]) when it has.

use crate::native::codes;
use crate::{errors, interrupt};
use ply_core::solve::retro;
use ply_core::{Census, Game, Indexed, MemoSolver, Outcome, PositionError, Value};
use pyo3::intern;
use pyo3::prelude::*;
use pyo3::types::{PyDict, PyList};
use std::time::Instant;

/// Positions explored between two looks for Ctrl-C.
const SIGNAL_EVERY: usize = 1 << 12;

/// Stack for memoised search: a base plus this much per ply of the
/// longest line of play.
const STACK_BASE: usize = 16 << 20;
const STACK_PER_PLY: usize = 1 << 10;
/// The most stack memoised search may take; deeper games are solved by
/// retrograde analysis.
const MAX_STACK: usize = 1 << 30;

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
    /// The length in plies of the longest line of play, or `None` if the
    /// graph has a cycle (Kahn's algorithm).
    fn longest_line(&self) -> Option<usize> {
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
        if order.len() < n {
            return None;
        }
        let mut depth = vec![0usize; n];
        for &p in order.iter().rev() {
            let p = p as usize;
            depth[p] = self.targets[self.offsets[p]..self.offsets[p + 1]]
                .iter()
                .map(|&t| depth[t as usize] + 1)
                .max()
                .unwrap_or(0);
        }
        Some(depth.into_iter().max().unwrap_or(0))
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

/// A game written in Python, explored and solved.
pub struct PythonGame {
    name: String,
    positions: Vec<Py<PyAny>>,
    ids: Py<PyDict>,
    moves: Vec<Py<PyAny>>,
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
        let method = |m: &str| {
            game.getattr(m).map_err(|_| {
                errors::argument(format!(
                    "a game written in Python needs start(), moves(p), play(p, m) and \
                     primitive(p); {name} has no {m}"
                ))
            })
        };
        let (start, moves_of, play, primitive_of) = (
            method("start")?,
            method("moves")?,
            method("play")?,
            method("primitive")?,
        );
        let ids = PyDict::new(py);
        let start = start.call0()?;
        ids.set_item(&start, 0u32)?;
        let mut positions = vec![start.unbind()];
        let mut moves = Vec::new();
        let mut graph = Graph {
            primitive: Vec::new(),
            offsets: vec![0],
            targets: Vec::new(),
        };
        let mut at = 0;
        while at < positions.len() {
            if at % SIGNAL_EVERY == 0 {
                py.check_signals()?;
            }
            let position = positions[at].bind(py).clone();
            let value = primitive_value(&primitive_of.call1((&position,))?, &name)?;
            graph.primitive.push(value);
            if value.is_none() {
                for mv in moves_of.call1((&position,))?.try_iter()? {
                    let mv = mv?;
                    let child = play.call1((&position, &mv))?;
                    let id = match ids.get_item(&child)? {
                        Some(id) => id.extract::<u32>()?,
                        None => {
                            let id = u32::try_from(positions.len()).map_err(|_| {
                                errors::argument(format!("{name} reaches more than 2^32 positions"))
                            })?;
                            ids.set_item(&child, id)?;
                            positions.push(child.unbind());
                            id
                        }
                    };
                    graph.targets.push(id);
                    moves.push(mv.unbind());
                }
            }
            graph.offsets.push(graph.targets.len());
            at += 1;
        }
        let (outcomes, method) = interrupt::run(py, |progress| solve_graph(&graph, progress))?;
        Ok(Self {
            name,
            positions,
            ids: ids.unbind(),
            moves,
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
        self.positions.len()
    }

    /// The position numbered `id` (0 is the start).
    pub fn position<'py>(&self, py: Python<'py>, id: usize) -> Bound<'py, PyAny> {
        self.positions[id].bind(py).clone()
    }

    /// The number of `position`, or an error saying it was not reached.
    fn id_of(&self, position: &Bound<'_, PyAny>) -> PyResult<usize> {
        let py = position.py();
        match self.ids.bind(py).get_item(position)? {
            Some(id) => Ok(id.extract::<u32>()? as usize),
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
        let moves = PyList::empty(py);
        for edge in self.graph.offsets[id]..self.graph.offsets[id + 1] {
            let child = self.graph.targets[edge] as usize;
            let entry = self.outcome_dict(py, self.outcomes[child])?;
            entry.set_item("move", self.moves[edge].bind(py))?;
            entry.set_item("position", self.position(py, child))?;
            moves.append(entry)?;
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
            None => PyList::new(py, self.positions.iter().map(|p| p.bind(py))),
            Some(keys) => {
                let ids = keys
                    .iter()
                    .map(|&k| self.checked(k))
                    .collect::<PyResult<Vec<_>>>()?;
                PyList::new(py, ids.into_iter().map(|i| self.positions[i].bind(py)))
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
        let census = census.map_examples(|id| match self.positions[id].bind(py).repr() {
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

/// Solves every position of `graph`: memoised search without cycles (on a
/// thread with stack for the longest line), retrograde analysis with.
fn solve_graph(
    graph: &Graph,
    progress: &dyn ply_core::Progress,
) -> Result<(Vec<Outcome>, Method), ply::PlyError> {
    let n = graph.primitive.len();
    let stack = graph
        .longest_line()
        .map(|plies| STACK_BASE.saturating_add(plies.saturating_mul(STACK_PER_PLY)))
        .filter(|&bytes| bytes <= MAX_STACK);
    if let Some(stack) = stack {
        let solved = std::thread::scope(|scope| {
            std::thread::Builder::new()
                .stack_size(stack)
                .spawn_scoped(scope, || {
                    let mut memo = MemoSolver::new(graph);
                    (0..n as u32)
                        .map(|p| memo.solve(&p))
                        .collect::<Result<Vec<Outcome>, _>>()
                })
                .map(|worker| worker.join())
        });
        return match solved {
            Ok(Ok(Ok(outcomes))) => Ok((outcomes, Method::Memo)),
            Ok(Ok(Err(cycle))) => Err(ply::PlyError::argument(cycle.to_string())),
            Ok(Err(_)) => Err(ply::PlyError::argument("memoised search failed")),
            Err(e) => Err(ply::PlyError::Io(e)),
        };
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
