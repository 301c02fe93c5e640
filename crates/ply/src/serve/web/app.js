// ply's page: play and explore every game against the perfect player.
//
// Everything comes from GET /api/solve (the JSON of `ply solve --json`): a
// board is drawn from the position's text, and a click is turned into a move
// by comparing the board with each move's resulting position, never by
// reading move names.
'use strict';

const SVG = 'http://www.w3.org/2000/svg';
const $ = (id) => document.getElementById(id);

function el(tag, attrs, parent) {
  const node = document.createElementNS(SVG, tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (key === 'text') node.textContent = value;
    else node.setAttribute(key, value);
  }
  if (parent) parent.appendChild(node);
  return node;
}

// ---------------------------------------------------------------- values

const flip = (value) => (value === 'win' ? 'lose' : value === 'lose' ? 'win' : value);

/** What a move means for the player making it. */
function forMover(move) {
  return { value: flip(move.value), remoteness: move.remoteness === null ? null : move.remoteness + 1 };
}

/** The colour class of a value: ties and draws share one. */
const tone = (value) => (value === 'draw' ? 'tie' : value);

function describe(outcome) {
  return outcome.remoteness === null ? outcome.value : `${outcome.value} in ${outcome.remoteness}`;
}

/** Larger is better for the player to move: fastest win, ties, draws, slowest loss. */
function preference(outcome) {
  const r = outcome.remoteness ?? 0;
  switch (outcome.value) {
    case 'win': return [3, -r];
    case 'tie': return [2, -r];
    case 'draw': return [1, 0];
    default: return [0, r];
  }
}

function compare(a, b) {
  const [ka, kb] = [preference(a), preference(b)];
  return ka[0] - kb[0] || ka[1] - kb[1];
}

function best(outcomes) {
  return outcomes.reduce((a, b) => (a === null || compare(b, a) > 0 ? b : a), null);
}

/** Every move as good as the best one, for the player to move. */
function bestMoves(moves) {
  const top = best(moves.map((m) => m.mover));
  return moves.filter((m) => compare(m.mover, top) === 0);
}

// ---------------------------------------------------------------- API

const answers = new Map();

async function solve(game, position) {
  const key = `${game}\n${position ?? ''}`;
  if (answers.has(key)) return answers.get(key);
  const params = new URLSearchParams({ game });
  if (position !== undefined && position !== null) params.set('position', position);
  const response = await fetch(`/api/solve?${params}`);
  const body = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
  answers.set(key, body);
  return body;
}

// ---------------------------------------------------------------- state

const state = {
  games: [],
  spec: null, // the full game name, e.g. euler:4x4
  history: [], // reports of the positions played; redo keeps those past the cursor
  cursor: 0,
  ui: {}, // the board's own state between clicks; reset when the position changes
  focus: null, // the name of the move under the pointer in the move list
  busy: false,
};

const current = () => state.history[state.cursor];
const baseName = (spec) => (spec || '').split(':')[0];

function annotated(report) {
  return report.moves.map((m) => ({ ...m, mover: forMover(m) }));
}

// ---------------------------------------------------------------- boards

/** A board as rows of equal length, or null. */
function parseRows(text) {
  const rows = text.split('/');
  if (rows.length === 0 || rows[0].length === 0 || rows.some((r) => r.length !== rows[0].length)) return null;
  return rows;
}

/** The squares (row-major) where two boards of one shape differ, or null. */
function diffRows(a, b) {
  if (!a || !b || a.length !== b.length || a.some((r, i) => r.length !== b[i].length)) return null;
  const out = [];
  const cols = a[0].length;
  a.forEach((row, r) => {
    for (let c = 0; c < cols; c++) if (row[c] !== b[r][c]) out.push(r * cols + c);
  });
  return out;
}

const squareName = (i, cols) => `${String.fromCharCode(97 + (i % cols))}${Math.floor(i / cols) + 1}`;

/** The index of the board square under a pointer event, or null. */
function squareAt(event) {
  const target = document.elementFromPoint(event.clientX, event.clientY);
  const index = target && target.dataset ? target.dataset.index : undefined;
  return index === undefined ? null : Number(index);
}

/** Marks a square as playing `move`, for people (colour, remoteness) and tests (data). */
function offer(rect, move) {
  rect.classList.add('playable');
  rect.dataset.move = move.move;
  rect.dataset.value = move.mover.value;
  rect.dataset.remoteness = move.mover.remoteness === null ? '' : String(move.mover.remoteness);
}

function hint(svg, x, y, size, move) {
  el('rect', { x: x + 3, y: y + 3, width: size - 6, height: size - 6, rx: 5, class: `hint ${tone(move.mover.value)}` }, svg);
  el('text', {
    x: x + size - 6, y: y + 16, 'text-anchor': 'end', class: 'rem',
    text: move.mover.remoteness === null ? 'D' : String(move.mover.remoteness),
  }, svg);
}

function ring(svg, x, y, size, kind) {
  el('rect', { x: x + 2, y: y + 2, width: size - 4, height: size - 4, rx: 6, class: `ring ${kind}` }, svg);
}

function sizeSvg(svg, width, height) {
  svg.setAttribute('width', width);
  svg.setAttribute('height', height);
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
}

/** Boards with no drawing of their own: the text, one row per line. */
function drawText(svg, report) {
  const lines = report.position.split('/');
  sizeSvg(svg, Math.max(200, 14 * Math.max(...lines.map((l) => l.length)) + 20), 28 * lines.length + 16);
  lines.forEach((line, i) => el('text', { x: 10, y: 28 * (i + 1), class: 'text-board', text: line }, svg));
}

const glyphs = {
  euler(svg, ch, x, y, s) {
    if (ch !== 'X') return;
    el('rect', { x, y, width: s, height: s, fill: '#c9b78f', class: 'glyph' }, svg);
    el('circle', { cx: x + s / 2, cy: y + s / 2, r: s * 0.28, class: 'pin glyph' }, svg);
  },
  tictactoe(svg, ch, x, y, s) {
    const m = s * 0.24;
    if (ch === 'x') {
      el('line', { x1: x + m, y1: y + m, x2: x + s - m, y2: y + s - m, class: 'mark-x glyph' }, svg);
      el('line', { x1: x + s - m, y1: y + m, x2: x + m, y2: y + s - m, class: 'mark-x glyph' }, svg);
    } else if (ch === 'o') {
      el('circle', { cx: x + s / 2, cy: y + s / 2, r: s / 2 - m, class: 'mark-o glyph' }, svg);
    }
  },
  treblecross(svg, ch, x, y, s) {
    if (ch === 'X') el('text', { x: x + s / 2, y: y + s / 2 + 12, 'text-anchor': 'middle', class: 'treble glyph', text: 'X' }, svg);
  },
  plain(svg, ch, x, y, s) {
    if (ch !== '.') el('text', { x: x + s / 2, y: y + s / 2 + 7, 'text-anchor': 'middle', class: 'text-board glyph', text: ch }, svg);
  },
};

/**
 * Boards of squares where a move changes one square (a click) or a line of
 * squares (a drag from one end to the other): Euler, tic-tac-toe,
 * Treblecross, and any unknown game written as rows.
 */
function gridRenderer(kind, howto, moverLabel) {
  return {
    howto,
    moverLabel,
    draw(svg, ctx) {
      const rows = parseRows(ctx.report.position);
      if (!rows) return drawText(svg, ctx.report);
      const [R, C] = [rows.length, rows[0].length];
      const size = Math.max(30, Math.min(72, Math.floor(600 / Math.max(R, C))));
      const pad = 22;
      const numbered = kind === 'treblecross';
      sizeSvg(svg, pad + C * size + 2, pad + R * size + 2);
      const moves = ctx.moves.map((m) => ({ m, diff: diffRows(rows, parseRows(m.position)) }));
      const single = new Map();
      for (const { m, diff } of moves) if (diff && diff.length === 1) single.set(diff[0], m);
      const lines = moves.filter(({ diff }) => diff && diff.length > 1);
      // The move covering both ends with the fewest squares: a pin from `a` to `b`.
      const between = (a, b) => {
        const fits = lines.filter(({ diff }) => diff.includes(a) && diff.includes(b));
        fits.sort((x, y) => x.diff.length - y.diff.length);
        return fits.length ? fits[0].m : null;
      };
      const moveFor = (from, to) => (from === to ? single.get(from) || null : between(from, to));
      const ui = ctx.ui;
      const at = (i) => [pad + (i % C) * size, pad + Math.floor(i / C) * size];

      for (let c = 0; c < C; c++) {
        el('text', { x: pad + c * size + size / 2, y: 15, 'text-anchor': 'middle', class: 'label', text: numbered ? String(c + 1) : String.fromCharCode(97 + c) }, svg);
      }
      if (!numbered) {
        for (let r = 0; r < R; r++) el('text', { x: 8, y: pad + r * size + size / 2 + 5, 'text-anchor': 'middle', class: 'label', text: String(r + 1) }, svg);
      }
      const dragging = ui.from !== undefined && ui.from !== null;
      const shown = dragging && ui.over !== null ? moveFor(ui.from, ui.over) : null;
      // Where a drag would start: the pins from there are ringed at their far ends.
      const anchor = dragging ? ui.from : ui.hover ?? null;
      for (let i = 0; i < R * C; i++) {
        const [x, y] = at(i);
        const ch = rows[Math.floor(i / C)][i % C];
        const rect = el('rect', { x, y, width: size, height: size, class: 'cell' }, svg);
        rect.dataset.index = String(i);
        rect.dataset.square = numbered ? String(i + 1) : squareName(i, C);
        (glyphs[kind] || glyphs.plain)(svg, ch, x, y, size);
        const move = single.get(i);
        if (move) offer(rect, move);
        if (!dragging && move) hint(svg, x, y, size, move);
        // A corner dot: the best of the longer moves through this square.
        const through = lines.filter(({ diff }) => diff.includes(i)).map(({ m }) => m.mover);
        if (through.length && !dragging) {
          el('circle', { cx: x + 9, cy: y + size - 9, r: 5, class: `hint pins ${tone(best(through).value)}` }, svg);
        }
        if (anchor !== null && (dragging || i !== anchor)) {
          const option = moveFor(anchor, i);
          if (option && (dragging || option !== move)) ring(svg, x, y, size, tone(option.mover.value));
        }
      }
      if (shown) {
        const diff = diffRows(rows, parseRows(shown.position)) || [];
        for (const i of diff) hint(svg, ...at(i), size, shown);
      }
      if (ctx.focus) {
        for (const i of diffRows(rows, parseRows(ctx.focus.position)) || []) ring(svg, ...at(i), size, 'focus');
      }

      svg.onpointerdown = (event) => {
        const i = squareAt(event);
        if (i === null || state.busy) return;
        svg.setPointerCapture(event.pointerId);
        ui.from = i;
        ui.over = i;
        ctx.redraw();
      };
      svg.onpointermove = (event) => {
        const i = squareAt(event);
        if (ui.from === undefined || ui.from === null) {
          if (lines.length && i !== (ui.hover ?? null)) {
            ui.hover = i;
            ctx.redraw();
          }
        } else if (i !== ui.over) {
          ui.over = i;
          ctx.redraw();
        }
      };
      svg.onpointerleave = () => {
        if (ui.hover !== undefined && ui.hover !== null && (ui.from === undefined || ui.from === null)) {
          ui.hover = null;
          ctx.redraw();
        }
      };
      svg.onpointerup = (event) => {
        const from = ui.from;
        ui.from = null;
        const to = squareAt(event);
        const move = from === null || from === undefined || to === null ? null : moveFor(from, to);
        if (move) ctx.play(move);
        else ctx.redraw();
      };
      svg.onpointercancel = () => {
        ui.from = null;
        ctx.redraw();
      };
    },
  };
}

/** de Bono's L Game: pick the four squares of your L, then move a neutral or keep them. */
const lgame = (() => {
  const parse = (text) => {
    const parts = text.split('/');
    if (parts.length < 4 || parts.slice(0, 4).some((r) => r.length !== 4)) return null;
    return { rows: parts.slice(0, 4), mover: parts[4] || '#' };
  };
  const squaresOf = (rows, ch) => {
    const out = [];
    rows.forEach((row, r) => [...row].forEach((c, k) => c === ch && out.push(r * 4 + k)));
    return out;
  };
  const pieceClass = (ch) => (ch === '#' ? 'l-a' : 'l-b');
  return {
    howto: 'Click the four squares your L should stand on (it may overlap where it is now, and must change). '
      + 'Then click a neutral piece and the square to move it to, or "Keep the neutrals". '
      + 'Rings and squares are coloured by what the move means for you.',
    moverLabel(text) {
      const p = parse(text);
      return p ? (p.mover === '#' ? '# (blue)' : '* (orange)') : null;
    },
    draw(svg, ctx) {
      const p = parse(ctx.report.position);
      if (!p) return drawText(svg, ctx.report);
      const size = 84;
      const pad = 22;
      sizeSvg(svg, pad + 4 * size + 2, pad + 4 * size + 2);
      const at = (i) => [pad + (i % 4) * size, pad + Math.floor(i / 4) * size];
      const mover = p.mover;
      const neutrals = squaresOf(p.rows, 'x');
      const options = ctx.moves.map((m) => {
        const child = parse(m.position);
        if (!child) return null;
        const L = squaresOf(child.rows, mover);
        const moved = squaresOf(child.rows, 'x');
        const from = neutrals.find((i) => !moved.includes(i));
        const to = moved.find((i) => !neutrals.includes(i));
        return { m, L, key: L.join(','), from: from ?? null, to: to ?? null };
      }).filter(Boolean);
      const ui = ctx.ui;
      ui.picked = ui.picked || [];
      const chosen = ui.placement ? options.filter((o) => o.key === ui.placement) : null;
      const newL = chosen ? ui.placement.split(',').map(Number) : [];

      for (let c = 0; c < 4; c++) el('text', { x: pad + c * size + size / 2, y: 15, 'text-anchor': 'middle', class: 'label', text: String.fromCharCode(97 + c) }, svg);
      for (let r = 0; r < 4; r++) el('text', { x: 8, y: pad + r * size + size / 2 + 5, 'text-anchor': 'middle', class: 'label', text: String(r + 1) }, svg);
      const rects = [];
      for (let i = 0; i < 16; i++) {
        const [x, y] = at(i);
        const rect = el('rect', { x, y, width: size, height: size, class: 'cell' }, svg);
        rect.dataset.index = String(i);
        rect.dataset.square = squareName(i, 4);
        rects.push(rect);
        const ch = p.rows[Math.floor(i / 4)][i % 4];
        const movedAway = chosen && ch === mover;
        if ((ch === '#' || ch === '*') && !movedAway) {
          el('rect', { x: x + 1, y: y + 1, width: size - 2, height: size - 2, class: `${pieceClass(ch)} glyph` }, svg);
        }
        if (chosen && newL.includes(i)) {
          el('rect', { x: x + 1, y: y + 1, width: size - 2, height: size - 2, class: `${pieceClass(mover)} glyph` }, svg);
        } else if (ui.picked.includes(i)) {
          el('rect', { x: x + 4, y: y + 4, width: size - 8, height: size - 8, class: `${pieceClass(mover)} l-ghost glyph` }, svg);
        }
        if (ch === 'x') el('circle', { cx: x + size / 2, cy: y + size / 2, r: size * 0.26, class: 'neutral glyph' }, svg);
      }
      const actions = ctx.actions;
      const button = (label, onclick, cls) => {
        const b = document.createElement('button');
        b.textContent = label;
        if (cls) b.className = cls;
        b.onclick = onclick;
        actions.appendChild(b);
        return b;
      };

      if (!chosen) {
        // First the L: every square that still fits some placement is ringed
        // with the best value among the moves through it.
        const fitting = options.filter((o) => ui.picked.every((i) => o.L.includes(i)));
        for (let i = 0; i < 16; i++) {
          if (ui.picked.includes(i)) continue;
          const through = fitting.filter((o) => o.L.includes(i));
          if (through.length) {
            rects[i].classList.add('playable');
            ring(svg, ...at(i), size, tone(best(through.map((o) => o.m.mover)).value));
          }
        }
        svg.onclick = (event) => {
          const i = squareAt(event);
          if (i === null || state.busy) return;
          if (ui.picked.includes(i)) ui.picked = ui.picked.filter((k) => k !== i);
          else if (fitting.some((o) => o.L.includes(i))) ui.picked = [...ui.picked, i];
          const key = [...ui.picked].sort((a, b) => a - b).join(',');
          if (ui.picked.length === 4 && options.some((o) => o.key === key)) ui.placement = key;
          ctx.redraw();
        };
        if (ui.picked.length) button('Clear', () => { ctx.ui.picked = []; ctx.redraw(); });
      } else {
        const keep = chosen.find((o) => o.from === null);
        if (keep) {
          const b = button('Keep the neutrals', () => ctx.play(keep.m), `offer ${tone(keep.m.mover.value)}`);
          const value = document.createElement('span');
          value.className = 'val';
          value.textContent = `: ${describe(keep.m.mover)}`;
          b.append(value);
          b.dataset.move = keep.m.move;
          b.dataset.value = keep.m.mover.value;
        }
        button('Place the L again', () => { ctx.ui.picked = []; ctx.ui.placement = null; ctx.ui.neutral = null; ctx.redraw(); });
        for (const n of neutrals) {
          const moves = chosen.filter((o) => o.from === n);
          if (!moves.length) continue;
          rects[n].classList.add('playable');
          ring(svg, ...at(n), size, n === ui.neutral ? 'focus' : tone(best(moves.map((o) => o.m.mover)).value));
        }
        const targets = new Map();
        if (ui.neutral !== null && ui.neutral !== undefined) {
          for (const o of chosen.filter((k) => k.from === ui.neutral)) {
            targets.set(o.to, o.m);
            offer(rects[o.to], o.m);
            hint(svg, ...at(o.to), size, o.m);
          }
        }
        svg.onclick = (event) => {
          const i = squareAt(event);
          if (i === null || state.busy) return;
          if (targets.has(i)) return ctx.play(targets.get(i));
          if (neutrals.includes(i)) ui.neutral = ui.neutral === i ? null : i;
          ctx.redraw();
        };
      }
      if (ctx.focus) {
        const o = options.find((k) => k.m === ctx.focus);
        if (o) for (const i of [...o.L, ...(o.to === null ? [] : [o.to])]) ring(svg, ...at(i), size, 'focus');
      }
    },
  };
})();

/** The Yehr Game: four columns, ten rows, one piece per side in each column. */
const yehr = (() => {
  const parse = (text) => {
    const parts = text.split('/');
    if (parts.length !== 3 || !['R', 'B'].includes(parts[0])) return null;
    const red = parts[1].split(',').map(Number);
    const black = parts[2].split(',').map(Number);
    if (red.length !== 4 || black.length !== 4 || [...red, ...black].some((n) => !Number.isInteger(n))) return null;
    return { mover: parts[0], red, black };
  };
  const names = ['acm', 'bahamas', 'cab', 'daze'];
  return {
    howto: 'Click a coloured square to move your piece in that column there. '
      + 'Red\'s acm (A) steps up and its daze (D) steps down; Black\'s the reverse; '
      + 'B and C slide either way up to the other side\'s piece. Landing on the other acm wins.',
    moverLabel(text) {
      const p = parse(text);
      return p ? (p.mover === 'R' ? 'Red' : 'Black') : null;
    },
    draw(svg, ctx) {
      const p = parse(ctx.report.position);
      if (!p) return drawText(svg, ctx.report);
      const H = Math.max(10, ...p.red, ...p.black);
      const size = 46;
      const [padX, padY] = [26, 22];
      sizeSvg(svg, padX + 4 * size + 2, padY + H * size + 22);
      const at = (col, row) => [padX + col * size, padY + (H - row) * size];
      const own = p.mover === 'R' ? 'red' : 'black';
      const targets = new Map();
      for (const m of ctx.moves) {
        const child = parse(m.position);
        if (!child) continue;
        const changed = [0, 1, 2, 3].filter((k) => child[own][k] !== p[own][k]);
        if (changed.length === 1) targets.set(`${changed[0]},${child[own][changed[0]]}`, m);
      }
      for (let c = 0; c < 4; c++) {
        el('text', { x: padX + c * size + size / 2, y: 15, 'text-anchor': 'middle', class: 'label', text: 'ABCD'[c] }, svg);
        el('text', { x: padX + c * size + size / 2, y: padY + H * size + 16, 'text-anchor': 'middle', class: 'label', text: names[c] }, svg);
      }
      for (let row = 1; row <= H; row++) el('text', { x: 11, y: at(0, row)[1] + size / 2 + 5, 'text-anchor': 'middle', class: 'label', text: String(row) }, svg);
      for (let c = 0; c < 4; c++) {
        for (let row = 1; row <= H; row++) {
          const [x, y] = at(c, row);
          const rect = el('rect', { x, y, width: size, height: size, class: 'cell' }, svg);
          rect.dataset.index = String((H - row) * 4 + c);
          rect.dataset.column = String(c);
          rect.dataset.row = String(row);
          rect.dataset.square = `${'ABCD'[c]}${row}`;
          const move = targets.get(`${c},${row}`);
          if (move) {
            offer(rect, move);
            hint(svg, x, y, size, move);
            if (ctx.focus === move) ring(svg, x, y, size, 'focus');
          }
        }
      }
      for (const side of ['red', 'black']) {
        for (let c = 0; c < 4; c++) {
          const row = p[side][c];
          const shared = p.red[c] === p.black[c];
          const [x, y] = at(c, row);
          const dx = shared ? (side === 'red' ? -8 : 8) : 0;
          el('circle', { cx: x + size / 2 + dx, cy: y + size / 2, r: size * 0.34, class: `piece-${side} glyph` }, svg);
          el('text', { x: x + size / 2 + dx, y: y + size / 2 + 6, 'text-anchor': 'middle', class: 'piece-text', text: 'ABCD'[c] }, svg);
        }
      }
      svg.onclick = (event) => {
        const target = document.elementFromPoint(event.clientX, event.clientY);
        if (!target || !target.dataset || target.dataset.column === undefined || state.busy) return;
        const move = targets.get(`${target.dataset.column},${target.dataset.row}`);
        if (move) ctx.play(move);
      };
    },
  };
})();

function tictactoeMover(text) {
  const count = (ch) => [...text].filter((c) => c === ch).length;
  return count('x') === count('o') ? 'x' : 'o';
}

const renderers = {
  euler: gridRenderer('euler',
    'Click an uncovered square to push a pin onto it; drag from one end of a line of uncovered squares '
    + 'at the edge to the other to slide in a longer pin. Colours say what each move means for you '
    + '(green wins, yellow ties or draws, red loses); the number is its remoteness. A corner dot shows '
    + 'the best longer pin through a square; point at the square to see where those pins end.',
    null),
  tictactoe: gridRenderer('tictactoe', 'Click an empty square to play there. Colours say what each move means for you; the number is its remoteness.', tictactoeMover),
  treblecross: gridRenderer('treblecross', 'Click an empty square to put an X there; three in a row wins. Colours say what each move means for you; the number is its remoteness.', null),
  lgame,
  yehr,
};

function rendererFor(spec) {
  return renderers[baseName(spec)] || gridRenderer('plain', 'Click a square a move changes, or pick a move from the list.', null);
}

// ---------------------------------------------------------------- players

/** Who moves at ply `i` of the history: a name the game gives, else by order. */
function player(i) {
  const renderer = rendererFor(state.spec);
  const report = state.history[i];
  const named = renderer.moverLabel && report ? renderer.moverLabel(report.position) : null;
  return named || (i % 2 === 0 ? 'player 1' : 'player 2');
}

/** The names of the player who moved first in this history and of the other one. */
function sides() {
  const renderer = rendererFor(state.spec);
  const first = state.history[0];
  const child = first && first.moves[0];
  const label = (text) => (renderer.moverLabel && text ? renderer.moverLabel(text) : null);
  return [label(first && first.position) || 'player 1', label(child && child.position) || 'player 2'];
}

// ---------------------------------------------------------------- drawing the page

function render() {
  const report = current();
  if (!report) return;
  document.body.classList.toggle('hide-values', !$('show').checked);
  renderStatus(report);
  renderBoard();
  renderMoves(report);
  renderChart();
  $('undo').disabled = state.cursor === 0;
  $('redo').disabled = state.cursor >= state.history.length - 1;
  $('computer').disabled = report.moves.length === 0;
  if (document.activeElement !== $('position')) $('position').value = report.position;
  $('howto').textContent = rendererFor(state.spec).howto;
  const hash = new URLSearchParams({ game: state.spec, position: report.position });
  history.replaceState(null, '', `#${hash}`);
}

function renderStatus(report) {
  const status = $('status');
  status.textContent = '';
  status.dataset.value = report.value;
  status.dataset.remoteness = report.remoteness === null ? '' : String(report.remoteness);
  status.dataset.over = String(report.moves.length === 0);
  const [me, other] = state.cursor % 2 === 0 ? sides() : sides().reverse();
  const span = document.createElement('span');
  span.className = `value ${tone(report.value)}`;
  if (report.moves.length === 0) {
    const winner = report.value === 'win' ? me : report.value === 'lose' ? other : null;
    span.textContent = winner ? `${winner} wins` : `a ${report.value}`;
    status.append(`Move ${state.cursor}, game over: `, span);
  } else {
    span.textContent = describe(report);
    status.append(`Move ${state.cursor}, ${me} to move: `, span);
  }
}

function renderBoard() {
  const report = current();
  const svg = $('board');
  svg.replaceChildren();
  svg.onpointerdown = svg.onpointermove = svg.onpointerup = svg.onpointercancel = svg.onpointerleave = svg.onclick = null;
  $('board-actions').replaceChildren();
  const moves = annotated(report);
  rendererFor(state.spec).draw(svg, {
    report,
    moves,
    ui: state.ui,
    focus: moves.find((m) => m.move === state.focus) || null,
    actions: $('board-actions'),
    play: (move) => playMove(move),
    redraw: () => renderBoard(),
  });
}

function renderMoves(report) {
  const body = $('moves').tBodies[0];
  body.replaceChildren();
  const moves = annotated(report).sort((a, b) => compare(b.mover, a.mover) || a.move.localeCompare(b.move, undefined, { numeric: true }));
  for (const move of moves) {
    const row = body.insertRow();
    row.dataset.move = move.move;
    row.dataset.value = move.mover.value;
    row.dataset.remoteness = move.mover.remoteness === null ? '' : String(move.mover.remoteness);
    row.insertCell().textContent = move.move;
    row.insertCell().textContent = move.mover.value;
    row.insertCell().textContent = move.mover.remoteness === null ? '-' : String(move.mover.remoteness);
    row.cells[0].className = 'move';
    row.cells[1].className = `value ${tone(move.mover.value)}`;
    row.cells[2].className = 'remoteness';
    row.onclick = () => playMove(move);
    row.onmouseenter = () => { state.focus = move.move; renderBoard(); };
    row.onmouseleave = () => { state.focus = null; renderBoard(); };
  }
}

/**
 * The value history, as in GamesmanUni: x is the move number, y the
 * remoteness. Wins of the player who moved first are drawn above the
 * middle line and the other player's below, remoteness 0 at the outer
 * edges; ties and draws sit on the middle line. Each dot is coloured by the
 * value for the player to move there.
 */
function renderChart() {
  const svg = $('chart');
  svg.replaceChildren();
  const width = Math.max(320, svg.clientWidth || 560);
  const height = 250;
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  const [left, right, top, bottom] = [44, 16, 24, 44];
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const mid = top + plotH / 2;
  const half = plotH / 2;
  const points = state.history.map((r, i) => ({ i, value: r.value, r: r.remoteness, future: i > state.cursor }));
  const maxR = Math.max(4, ...points.map((p) => p.r ?? 0));
  const n = Math.max(8, state.history.length - 1);
  const x = (i) => left + (i * plotW) / n;
  const y = (p) => {
    const winner = p.value === 'win' ? p.i % 2 : p.value === 'lose' ? 1 - (p.i % 2) : null;
    if (winner === null) return mid;
    const f = p.r / (maxR + 1);
    return winner === 0 ? top + f * half : top + plotH - f * half;
  };
  const step = Math.max(1, Math.ceil(maxR / 4));
  // Labels stop short of the middle line, where theirs would collide.
  for (let r = 0; r / (maxR + 1) < 0.8; r += step) {
    for (const yy of [top + (r / (maxR + 1)) * half, top + plotH - (r / (maxR + 1)) * half]) {
      el('line', { x1: left, x2: left + plotW, y1: yy, y2: yy, class: 'grid' }, svg);
      el('text', { x: left - 6, y: yy + 4, 'text-anchor': 'end', class: 'axis', text: String(r) }, svg);
    }
  }
  el('line', { x1: left, x2: left + plotW, y1: mid, y2: mid, class: 'mid' }, svg);
  el('text', { x: left - 6, y: mid + 4, 'text-anchor': 'end', class: 'axis', text: 'T/D' }, svg);
  const xStep = Math.max(1, Math.ceil(n / 10));
  for (let i = 0; i <= n; i += xStep) {
    el('text', { x: x(i), y: top + plotH + 16, 'text-anchor': 'middle', class: 'axis', text: String(i) }, svg);
  }
  const [p1, p2] = sides();
  el('text', { x: left + 6, y: top - 8, class: 'side', text: `${p1} wins (remoteness)` }, svg);
  el('text', { x: left + 6, y: height - 6, class: 'side', text: `${p2} wins` }, svg);
  el('text', { x: left + plotW, y: height - 6, 'text-anchor': 'end', class: 'axis', text: 'move number' }, svg);
  const played = points.filter((p) => !p.future);
  if (played.length > 1) {
    el('polyline', { points: played.map((p) => `${x(p.i)},${y(p)}`).join(' '), class: 'path' }, svg);
  }
  for (const p of points) {
    const dot = el('circle', { cx: x(p.i), cy: y(p), r: p.i === state.cursor ? 6 : 4.5, class: `dot ${p.value}${p.future ? ' future' : ''}` }, svg);
    el('title', { text: `move ${p.i}: ${player(p.i)} to move, ${describe({ value: p.value, remoteness: p.r })}` }, dot);
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
    const report = await solve(state.spec, move.position);
    state.history = state.history.slice(0, state.cursor + 1);
    state.history.push(report);
    state.cursor += 1;
    state.ui = {};
    state.focus = null;
  });
}

function start(spec, position) {
  return busy(async () => {
    const report = await solve(spec, position);
    state.spec = report.game;
    state.history = [report];
    state.cursor = 0;
    state.ui = {};
    state.focus = null;
    const base = baseName(report.game);
    if ([...$('game').options].some((o) => o.value === base)) $('game').value = base;
  });
}

function computerMove() {
  const moves = bestMoves(annotated(current()));
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
    const response = await fetch('/api/games');
    const body = await response.json();
    if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
    state.games = body.games;
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
  window.onresize = () => renderChart();
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
