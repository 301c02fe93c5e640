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
  document.body.classList.toggle('hide-values', !$('show').checked);
  renderStatus(view);
  renderBoard();
  renderMoves(view);
  drawChart($('chart'), state.history.map((v, i) => ({ value: v.solve.value, remoteness: v.solve.remoteness, player: player(i) })), state.cursor, sides());
  $('undo').disabled = state.cursor === 0;
  $('redo').disabled = state.cursor >= state.history.length - 1;
  $('computer').disabled = view.moves.length === 0;
  if (document.activeElement !== $('position')) $('position').value = report.position;
  $('howto').textContent = `${view.board.howto} Colours say what each move means for you (green wins, yellow ties or draws, red loses); the number is its remoteness.`;
  const hash = new URLSearchParams({ game: state.spec, position: report.position });
  history.replaceState(null, '', `#${hash}`);
}

function renderStatus(view) {
  const report = view.solve;
  const status = $('status');
  status.textContent = '';
  status.dataset.value = report.value;
  status.dataset.remoteness = report.remoteness === null ? '' : String(report.remoteness);
  status.dataset.over = String(report.moves.length === 0);
  const me = player(state.cursor);
  const [first, second] = sides();
  const other = me === first ? second : first;
  const span = document.createElement('span');
  span.className = `value ${view.tone}`;
  if (report.moves.length === 0) {
    const winner = report.value === 'win' ? me : report.value === 'lose' ? other : null;
    span.textContent = winner ? `${winner} wins` : `a ${report.value}`;
    status.append(`Move ${state.cursor}, game over: `, span);
  } else {
    span.textContent = describe(report.value, report.remoteness);
    status.append(`Move ${state.cursor}, ${me} to move: `, span);
  }
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
  // The server lists the moves best first.
  for (const move of view.moves) {
    const row = body.insertRow();
    row.dataset.move = move.move;
    row.dataset.value = move.value;
    row.dataset.rank = String(move.rank);
    row.dataset.remoteness = move.remoteness === null ? '' : String(move.remoteness);
    row.insertCell().textContent = move.move;
    row.insertCell().textContent = move.value;
    row.insertCell().textContent = move.remoteness === null ? '-' : String(move.remoteness);
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

async function busy(work) {
  if (state.busy) return;
  state.busy = true;
  document.body.classList.add('busy');
  try {
    await work();
    showError(null);
  } catch (error) {
    showError(error);
  } finally {
    state.busy = false;
    document.body.classList.remove('busy');
    render();
  }
}

function playMove(move) {
  return busy(async () => {
    const view = await fetchBoard(state.spec, move.position);
    state.history = state.history.slice(0, state.cursor + 1);
    state.history.push(view);
    state.cursor += 1;
    state.ui = {};
    state.focus = null;
  });
}

function start(spec, position) {
  return busy(async () => {
    const view = await fetchBoard(spec, position);
    state.spec = view.solve.game;
    state.history = [view];
    state.cursor = 0;
    state.ui = {};
    state.focus = null;
    const base = state.spec.split(':')[0];
    if ([...$('game').options].some((o) => o.value === base)) $('game').value = base;
  });
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
