// ply's page: play and explore every game against the perfect player.
//
// Everything comes from GET /api/board: the solve of `ply solve --json`, the
// board's description (drawn by board.js, whatever the game), and the moves
// best first with their clicks, values for the mover and colours. The page
// knows no game.

import { board as fetchBoard, describe, games as fetchGames } from './api.js';
import { drawBoard } from './board.js';
import { drawChart } from './chart.js';

const $ = (id) => document.getElementById(id);

const state = {
  games: [],
  spec: null, // the full game name, e.g. euler:4x4
  history: [], // board answers of the positions played; redo keeps those past the cursor
  cursor: 0,
  ui: {}, // the board's own state between clicks; reset when the position changes
  focus: null, // the name of the move under the pointer in the move list
  busy: false,
  pending: null, // the computer's reply, waiting for its pause
};

const current = () => state.history[state.cursor];

// ---------------------------------------------------------------- players

/** Who moves at ply `i` of the history: the board's name for them, else by order. */
function player(i) {
  const view = state.history[i];
  const mover = view ? view.board.mover : null;
  return mover === null || mover === undefined ? `player ${(i % 2) + 1}` : view.board.players[mover];
}

/** The names of the player who moved first in this history and of the other one. */
function sides() {
  const first = state.history[0];
  const mover = first ? first.board.mover : null;
  if (mover === null || mover === undefined) return ['player 1', 'player 2'];
  return [first.board.players[mover], first.board.players[1 - mover]];
}

// ---------------------------------------------------------------- drawing the page

function render() {
  const view = current();
  if (!view) return;
  const report = view.solve;
  const showing = $('show').checked;
  document.body.classList.toggle('hide-values', !showing);
  renderStatus(view);
  renderBoard();
  renderMoves(view);
  renderPlayers();
  renderPlayed();
  renderLegend(view);
  renderRules();
  // Hidden values hide the chart too: its dots would give them away.
  $('chart').style.display = showing ? '' : 'none';
  if (showing) drawChart($('chart'), state.history.map((v, i) => ({ value: v.solve.value, remoteness: v.solve.remoteness, player: player(i) })), state.cursor, sides());
  $('undo').disabled = state.cursor === 0;
  $('redo').disabled = state.cursor >= state.history.length - 1;
  $('computer').disabled = view.moves.length === 0;
  if (document.activeElement !== $('position')) $('position').value = report.position;
  $('howto').textContent = `${view.board.howto} Colours say what each move means for you (green wins, yellow ties or draws, red loses); the number is its remoteness.`;
  const hash = new URLSearchParams({ game: state.spec, position: report.position });
  history.replaceState(null, '', `#${hash}`);
  scheduleComputer();
}

/** Whether side `i % 2` (0: who moved first in this history) is the computer's. */
function computerPlays(i) {
  return $(`side${i % 2}`).value === 'computer';
}

/** The computer replies on its own, after a short pause, when it is its turn at the end of the history. */
function scheduleComputer() {
  const view = current();
  if (state.busy || !view || view.moves.length === 0) return;
  if (state.cursor !== state.history.length - 1 || !computerPlays(state.cursor)) return;
  clearTimeout(state.pending);
  state.pending = setTimeout(() => {
    if (current() === view && !state.busy && computerPlays(state.cursor)) computerMove();
  }, 500);
}

function renderPlayers() {
  const [first, second] = sides();
  $('side0-name').textContent = first;
  $('side1-name').textContent = second;
}

/** The name of the move from history position `i - 1` to `i`, and its entry there. */
function movePlayed(i) {
  const before = state.history[i - 1];
  const after = state.history[i];
  return before.moves.find((m) => m.position === after.solve.position) || { move: '?', value: null, remoteness: null, tone: '' };
}

function renderPlayed() {
  const list = $('played');
  list.replaceChildren();
  const showing = $('show').checked;
  state.history.forEach((view, i) => {
    const item = document.createElement('li');
    item.dataset.index = String(i);
    if (i === state.cursor) item.className = 'here';
    if (i === 0) {
      item.textContent = '0. the start';
    } else {
      const move = movePlayed(i);
      item.append(`${i}. ${player(i - 1)}: ${move.move}`);
      if (showing && move.value) {
        const span = document.createElement('span');
        span.className = `value ${move.tone}`;
        span.textContent = ` (${describe(move.value, move.remoteness)})`;
        item.append(span);
      }
    }
    item.onclick = () => jump(i);
    list.append(item);
  });
}

/** What each mark on the board means: only the marks this position uses. */
function renderLegend(view) {
  const lines = [];
  const clicks = view.moves.filter((m) => m.clicks.length);
  if ($('show').checked) {
    if (clicks.some((m) => m.clicks.flat().length === 1)) lines.push('a coloured square or point: a move of one click there, coloured by what it means for the player making it (green wins, yellow ties or draws, red loses), with its remoteness (D: a draw)');
    if (clicks.some((m) => m.clicks.flat().length > 1)) lines.push('a dot in a corner: the best move that starts by clicking there, in its colour; click it to see where it can go');
  } else {
    lines.push('values are hidden: moves are listed by name, and the chart is hidden');
  }
  const pieces = view.board.cells.flatMap((c) => c.pieces).concat(view.board.areas.flatMap((a) => a.pieces.map((p) => p.piece)));
  if (pieces.some((p) => p.dots && p.dots.length)) lines.push('the small dots on a piece: the directions it may step');
  if (view.board.areas.length) lines.push('the boxes above and below the board are the players\' hands: click a piece there to drop it');
  if (view.board.lines && view.board.lines.length) lines.push('the points are where the lines meet; stones sit on points');
  if (view.board.aliases && view.board.aliases.length) lines.push('a click on a shaded cell plays the move of the ringed cell it stands in for (pointing at it shows them)');
  $('legend').textContent = lines.length ? `On the board: ${lines.join('; ')}.` : '';
}

function renderRules() {
  const base = state.spec ? state.spec.split(':')[0] : null;
  const game = state.games.find((g) => g.name === base);
  const box = $('rules');
  box.replaceChildren();
  if (!game) return;
  const para = (text) => { const p = document.createElement('p'); p.textContent = text; box.append(p); };
  para(game.summary);
  para(`Variants: ${game.variants}`);
  if (current()) para(current().board.howto);
}

function jump(i) {
  if (state.busy || i < 0 || i >= state.history.length) return;
  state.cursor = i;
  state.ui = {};
  state.focus = null;
  render();
}

function renderStatus(view) {
  const report = view.solve;
  const status = $('status');
  status.textContent = '';
  status.dataset.value = report.value;
  status.dataset.remoteness = report.remoteness === null ? '' : String(report.remoteness);
  status.dataset.over = String(report.moves.length === 0);
  const me = player(state.cursor);
  const span = document.createElement('span');
  span.className = `value ${view.tone}`;
  if (report.moves.length === 0) {
    status.append(`Move ${state.cursor}, game over: `, span);
    span.textContent = result(view);
  } else if ($('show').checked) {
    span.textContent = describe(report.value, report.remoteness);
    status.append(`Move ${state.cursor}, ${me} to move: `, span);
  } else {
    status.append(`Move ${state.cursor}, ${me} to move`);
  }
}

/** Who won a finished game, or how it ended. */
function result(view) {
  const me = player(state.cursor);
  const [first, second] = sides();
  const other = me === first ? second : first;
  const value = view.solve.value;
  const winner = value === 'win' ? me : value === 'lose' ? other : null;
  return winner ? `${winner} wins` : `a ${value}`;
}

function renderBoard() {
  const view = current();
  const svg = $('board');
  svg.replaceChildren();
  svg.onpointerdown = svg.onpointermove = svg.onpointerup = svg.onpointercancel = svg.onpointerleave = svg.onclick = null;
  $('board-actions').replaceChildren();
  drawBoard(svg, $('board-actions'), view, {
    ui: state.ui,
    focus: view.moves.find((m) => m.move === state.focus) || null,
    busy: () => state.busy,
    play: (move) => playMove(move),
    redraw: () => renderBoard(),
  });
}

function renderMoves(view) {
  const body = $('moves').tBodies[0];
  body.replaceChildren();
  const showing = $('show').checked;
  if (view.moves.length === 0) {
    const row = body.insertRow();
    row.className = 'over';
    const cell = row.insertCell();
    cell.colSpan = 3;
    cell.textContent = `Game over: ${result(view)}.`;
    return;
  }
  // The server lists the moves best first; with values hidden, by name,
  // so that the order gives nothing away.
  const order = showing ? view.moves : [...view.moves].sort((a, b) => a.move.localeCompare(b.move, 'en', { numeric: true }));
  for (const move of order) {
    const row = body.insertRow();
    row.dataset.move = move.move;
    row.dataset.value = move.value;
    row.dataset.rank = String(move.rank);
    row.dataset.remoteness = move.remoteness === null ? '' : String(move.remoteness);
    row.insertCell().textContent = move.move;
    row.insertCell().textContent = showing ? move.value : '?';
    row.insertCell().textContent = !showing ? '?' : move.remoteness === null ? '-' : String(move.remoteness);
    row.cells[0].className = 'move';
    row.cells[1].className = `value ${move.tone}`;
    row.cells[2].className = 'remoteness';
    row.onclick = () => playMove(move);
    row.onmouseenter = () => { state.focus = move.move; renderBoard(); };
    row.onmouseleave = () => { state.focus = null; renderBoard(); };
  }
}

// ---------------------------------------------------------------- actions

function showError(error) {
  const box = $('error');
  box.textContent = error ? String(error.message || error) : '';
  box.hidden = !error;
}

/** How long the page keeps asking for a pending search before it shows the server's words as an error. */
const PENDING_LIMIT_MS = 5 * 60 * 1000;

/** Thrown when the person stops waiting for a pending search: not an error. */
class Stopped extends Error {}

/** Waits `ms`, or less if `signal` aborts first (then throws Stopped). */
function pause(ms, signal) {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => { clearTimeout(timer); reject(new Stopped()); }, { once: true });
  });
}

/**
 * The board answer for `position` of `spec`, asking again while the server
 * says its search is pending (it stopped at its time limit and goes on
 * where it stopped each time it is asked): meanwhile the page says it is
 * searching, with a button to stop waiting, and shows no error.
 */
async function answer(spec, position) {
  const stop = new AbortController();
  $('stop-waiting').onclick = () => stop.abort();
  const began = Date.now();
  try {
    for (let asked = 1; ; asked += 1) {
      try {
        return await fetchBoard(spec, position, stop.signal);
      } catch (error) {
        if (stop.signal.aborted) throw new Stopped();
        if (!error.pending || Date.now() - began > PENDING_LIMIT_MS) throw error;
        showError(null);
        $('spinner').hidden = true;
        $('pending').hidden = false;
        $('pending-text').textContent = `Searching this position: ${Math.round((Date.now() - began) / 1000)} s so far, `
          + `asked ${asked} ${asked === 1 ? 'time' : 'times'}. The server stops a search at its time limit and keeps `
          + 'what it found, so each time the page asks again the search goes on from there.';
        await pause(error.retryAfter * 1000, stop.signal);
      }
    }
  } finally {
    $('pending').hidden = true;
  }
}

async function busy(work) {
  if (state.busy) return;
  state.busy = true;
  document.body.classList.add('busy');
  // A spinner for any request longer than 300 ms, unless a pending search says more.
  const spinner = setTimeout(() => { $('spinner').hidden = !$('pending').hidden; }, 300);
  try {
    await work();
    showError(null);
  } catch (error) {
    showError(error instanceof Stopped ? null : error);
  } finally {
    clearTimeout(spinner);
    $('spinner').hidden = true;
    state.busy = false;
    document.body.classList.remove('busy');
    render();
  }
}

function playMove(move) {
  return busy(async () => {
    const view = await answer(state.spec, move.position);
    state.history = state.history.slice(0, state.cursor + 1);
    state.history.push(view);
    state.cursor += 1;
    state.ui = {};
    state.focus = null;
  });
}

function start(spec, position) {
  return busy(async () => {
    const view = await answer(spec, position);
    state.spec = view.solve.game;
    state.history = [view];
    state.cursor = 0;
    state.ui = {};
    state.focus = null;
    const base = state.spec.split(':')[0];
    if ([...$('game').options].some((o) => o.value === base)) $('game').value = base;
    showVariants(base);
  });
}

/** Lists `base`'s variants (from GET /api/games) and shows the one played. */
function showVariants(base) {
  const game = state.games.find((g) => g.name === base);
  const list = game ? [...(game.variant_list || [])] : [];
  if (!list.includes(state.spec)) list.push(state.spec);
  const select = $('variants');
  select.replaceChildren();
  for (const name of list) {
    const option = document.createElement('option');
    option.value = name;
    option.textContent = name;
    select.append(option);
  }
  select.value = state.spec;
  $('variant').value = state.spec;
  $('variant').placeholder = list.slice(0, 3).join(', ');
}

/** One of the best moves, chosen at random: the server ranks them 0. */
function computerMove() {
  const moves = current().moves.filter((m) => m.rank === 0);
  if (moves.length) playMove(moves[Math.floor(Math.random() * moves.length)]);
}

function step(delta) {
  const next = state.cursor + delta;
  if (state.busy || next < 0 || next >= state.history.length) return;
  state.cursor = next;
  state.ui = {};
  state.focus = null;
  render();
}

async function init() {
  try {
    state.games = await fetchGames();
  } catch (error) {
    showError(error);
    return;
  }
  for (const game of state.games) {
    const option = document.createElement('option');
    option.value = game.name;
    option.textContent = game.name;
    option.title = `${game.summary}\nvariants: ${game.variants}`;
    $('game').appendChild(option);
  }
  $('choose').onsubmit = (event) => {
    event.preventDefault();
    start($('variant').value.trim() || $('game').value);
  };
  $('game').onchange = () => {
    $('variant').value = '';
    start($('game').value);
  };
  $('variants').onchange = () => start($('variants').value);
  $('side0').onchange = $('side1').onchange = () => render();
  $('goto').onsubmit = (event) => {
    event.preventDefault();
    start(state.spec, $('position').value.trim());
  };
  $('undo').onclick = () => step(-1);
  $('redo').onclick = () => step(1);
  $('computer').onclick = () => computerMove();
  $('show').onchange = () => render();
  window.onresize = () => render();
  document.onkeydown = (event) => {
    if (event.target instanceof HTMLInputElement) return;
    if (event.key === 'Escape') { state.ui = {}; renderBoard(); }
  };
  // The page keeps its address current with replaceState, which fires no
  // hashchange: this only answers a link followed or an address typed.
  const startFromAddress = () => {
    const wanted = new URLSearchParams(location.hash.slice(1));
    const fallback = state.games.length ? state.games[0].name : 'euler';
    return start(wanted.get('game') || fallback, wanted.get('position') || undefined);
  };
  window.onhashchange = () => startFromAddress();
  await startFromAddress();
}

init();
