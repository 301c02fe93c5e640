// Draws any game's board from the description GET /api/board gives, and
// turns clicks into moves: a move is the targets (cells, pieces in hand) it
// lists under `clicks`, step by step, each step's targets in any order. On
// a `drag` board a press and its release make a whole move (a click, or a
// drag from one end of a pin to the other); otherwise clicks add up until
// they name one move, and a move that others extend is offered as a button.
// A board's `aliases` let a cell stand in for another (a column's cells for
// the cell its disc lands on): a click on it is a click on that cell.

import { describe } from './api.js';
import { el } from './svg.js';

/**
 * How far `picked` goes into `move`'s clicks: null if it does not fit,
 * else whether it is complete and which targets may come next.
 */
export function progress(move, picked) {
  let k = 0;
  for (const step of move.clicks) {
    const taken = picked.slice(k, k + step.length);
    if (taken.some((t) => !step.includes(t)) || new Set(taken).size !== taken.length) return null;
    k += taken.length;
    if (taken.length < step.length) return { done: false, next: step.filter((t) => !taken.includes(t)) };
  }
  return k < picked.length ? null : { done: true, next: [] };
}

const sideClass = (side) => (side === null || side === undefined ? 'neutral' : `side${side}`);

/** Draws one piece in the square at (x, y) of size s, shifted by dx. */
function drawPiece(svg, piece, x, y, s, dx = 0, scale = 1) {
  const [cx, cy] = [x + s / 2 + dx, y + s / 2];
  const side = sideClass(piece.side);
  const letter = (size) => {
    if (piece.letter) el('text', { x: cx, y: cy + size * 0.36, 'text-anchor': 'middle', class: `piece-letter ${side} glyph`, 'font-size': size, text: piece.letter }, svg);
  };
  const m = s * 0.24;
  switch (piece.look) {
    case 'cross':
      el('line', { x1: x + m, y1: y + m, x2: x + s - m, y2: y + s - m, class: 'mark-x glyph' }, svg);
      el('line', { x1: x + s - m, y1: y + m, x2: x + m, y2: y + s - m, class: 'mark-x glyph' }, svg);
      break;
    case 'ring':
      el('circle', { cx, cy, r: s / 2 - m, class: 'mark-o glyph' }, svg);
      break;
    case 'disc':
      el('circle', { cx, cy, r: s * 0.3 * scale, class: `disc ${side} glyph` }, svg);
      if (piece.letter) el('text', { x: cx, y: cy + 6, 'text-anchor': 'middle', class: 'piece-text glyph', text: piece.letter }, svg);
      break;
    case 'tile': {
      const inset = s * 0.1;
      el('rect', { x: x + inset, y: y + inset, width: s - 2 * inset, height: s - 2 * inset, rx: s * 0.12, class: `tile ${side} glyph` }, svg);
      for (const [ddx, ddy] of piece.dots || []) {
        el('circle', { cx: cx + ddx * s * 0.29, cy: cy + ddy * s * 0.29, r: Math.max(2.5, s * 0.045), class: `step ${side} glyph` }, svg);
      }
      letter(s * 0.36);
      break;
    }
    case 'block':
      el('rect', { x: x + 1, y: y + 1, width: s - 2, height: s - 2, class: `block ${side} glyph` }, svg);
      letter(s * 0.4);
      break;
    case 'pin':
      el('rect', { x, y, width: s, height: s, class: 'pin-bed glyph' }, svg);
      el('circle', { cx, cy, r: s * 0.28, class: 'pin glyph' }, svg);
      break;
    default:
      letter(s * 0.5);
  }
}

/** Colours a target for `move`: a tint and its remoteness, and data for tests. */
function offer(svg, target, move) {
  const { rect, x, y, w, h } = target;
  rect.classList.add('playable');
  rect.dataset.move = move.move;
  rect.dataset.value = move.value;
  rect.dataset.remoteness = move.remoteness === null ? '' : String(move.remoteness);
  if (rect.classList.contains('point')) {
    // A point of a board of lines: a disc, not a square.
    el('circle', { cx: x + w / 2, cy: y + h / 2, r: w * 0.36, class: `hint ${move.tone}` }, svg);
  } else {
    el('rect', { x: x + 3, y: y + 3, width: w - 6, height: h - 6, rx: 5, class: `hint ${move.tone}` }, svg);
  }
  el('text', { x: x + w - 6, y: y + 16, 'text-anchor': 'end', class: 'rem', text: move.remoteness === null ? 'D' : String(move.remoteness) }, svg);
}

function ring(svg, target, kind) {
  const { x, y, w, h } = target;
  el('rect', { x: x + 2, y: y + 2, width: w - 4, height: h - 4, rx: 6, class: `ring ${kind}` }, svg);
}

function corner(svg, target, tone) {
  el('circle', { cx: target.x + 9, cy: target.y + target.h - 9, r: 5, class: `hint pins ${tone}` }, svg);
}

function sizeSvg(svg, width, height) {
  svg.setAttribute('width', width);
  svg.setAttribute('height', height);
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
}

/** The target (its name) under a pointer event, or null. */
function targetAt(event) {
  const node = document.elementFromPoint(event.clientX, event.clientY);
  return node && node.dataset && node.dataset.target !== undefined ? node.dataset.target : null;
}

/**
 * Draws `view` (an answer of GET /api/board) into `svg`, with buttons in
 * `actions`. `ctx` holds `ui` (the clicks so far, kept between redraws),
 * `focus` (a move to outline), `busy()`, `play(move)` and `redraw()`.
 */
export function drawBoard(svg, actions, view, ctx) {
  const b = view.board;
  const moves = view.moves.filter((m) => m.clicks.length > 0);
  const ui = ctx.ui;
  ui.picked = ui.picked || [];
  const size = Math.max(30, Math.min(84, Math.floor(560 / Math.max(b.rows, b.cols))));
  const padL = b.row_labels.length ? 28 : 6;
  const top = b.areas.filter((a) => a.side === 1);
  const bottom = b.areas.filter((a) => a.side !== 1);
  const slot = Math.round(size * 0.8);
  const areaH = slot + 22;
  const padT = top.length * areaH + (b.col_labels.length ? 22 : 6);
  const boardW = b.cols * size;
  const width = padL + Math.max(boardW, 4 * slot + 8) + 4;
  const height = padT + b.rows * size + bottom.length * areaH + 6;
  sizeSvg(svg, width, height);

  const targets = new Map();
  b.col_labels.forEach((label, c) => {
    el('text', { x: padL + c * size + size / 2, y: padT - 7, 'text-anchor': 'middle', class: 'label', text: label }, svg);
  });
  b.row_labels.forEach((label, r) => {
    el('text', { x: padL / 2, y: padT + r * size + size / 2 + 5, 'text-anchor': 'middle', class: 'label', text: label }, svg);
  });
  // A board of points joined by lines (its description lists the lines):
  // the lines, a point where they meet, and no square for any other cell.
  const lines = b.lines || [];
  const points = new Set(lines.flat());
  const centreOf = (id) => {
    const i = b.cells.findIndex((c) => c.id === id);
    return [padL + (i % b.cols) * size + size / 2, padT + Math.floor(i / b.cols) * size + size / 2];
  };
  if (lines.length) {
    el('rect', { x: padL, y: padT, width: b.cols * size, height: b.rows * size, rx: 6, class: 'board-back' }, svg);
    for (const [from, to] of lines) {
      const [[x1, y1], [x2, y2]] = [centreOf(from), centreOf(to)];
      el('line', { x1, y1, x2, y2, class: 'board-line' }, svg);
    }
  }
  b.cells.forEach((cell, i) => {
    const [x, y] = [padL + (i % b.cols) * size, padT + Math.floor(i / b.cols) * size];
    if (lines.length && !points.has(cell.id)) return;
    const rect = el('rect', { x, y, width: size, height: size, class: lines.length ? 'cell point' : 'cell' }, svg);
    if (lines.length) el('circle', { cx: x + size / 2, cy: y + size / 2, r: Math.max(4, size * 0.11), class: 'point-dot' }, svg);
    rect.dataset.target = cell.id;
    rect.dataset.square = cell.id;
    rect.dataset.index = String(i);
    targets.set(cell.id, { rect, x, y, w: size, h: size });
    const n = cell.pieces.length;
    cell.pieces.forEach((piece, k) => drawPiece(svg, piece, x, y, size, n > 1 ? (k - (n - 1) / 2) * size * 0.34 : 0, n > 1 ? 0.8 : 1));
  });
  const drawArea = (area, y0) => {
    el('text', { x: padL, y: y0 + 13, class: `label area-label ${sideClass(area.side)}`, text: area.pieces.length ? area.label : `${area.label}: empty` }, svg);
    area.pieces.forEach((entry, k) => {
      const [x, y] = [padL + k * (slot + 4), y0 + 18];
      const rect = el('rect', { x, y, width: slot, height: slot, rx: 4, class: 'cell hand' }, svg);
      rect.dataset.target = entry.id;
      rect.dataset.square = entry.id;
      targets.set(entry.id, { rect, x, y, w: slot, h: slot });
      drawPiece(svg, entry.piece, x, y, slot);
      if (entry.count > 1) el('text', { x: x + slot - 4, y: y + slot - 4, 'text-anchor': 'end', class: 'count glyph', text: `×${entry.count}` }, svg);
    });
  };
  top.forEach((area, k) => drawArea(area, k * areaH));
  bottom.forEach((area, k) => drawArea(area, padT + b.rows * size + 4 + k * areaH));

  // A cell that starts no move of its own stands in for its alias.
  const aliases = new Map(b.aliases || []);
  for (const from of aliases.keys()) if (targets.has(from)) targets.get(from).rect.classList.add('stand-in');
  const resolve = (t) => (t !== null && aliases.has(t) && !moves.some((m) => progress(m, [...ui.picked, t]))
    ? aliases.get(t) : t);

  const pressing = b.drag && ui.from !== undefined && ui.from !== null;
  const picked = pressing ? (ui.over !== null && ui.over !== ui.from ? [ui.from, ui.over] : [ui.from]) : ui.picked;
  const live = moves.filter((m) => progress(m, picked) !== null);
  const done = live.filter((m) => progress(m, picked).done);
  const longer = live.filter((m) => !progress(m, picked).done);

  if (pressing) {
    // A drag shows the move it would make.
    const shown = done[0];
    if (shown) for (const t of shown.clicks.flat()) if (targets.has(t)) offer(svg, targets.get(t), shown);
  } else if (picked.length === 0) {
    // Moves of one click are coloured on their target; a corner dot shows
    // the best move of several clicks starting at a target.
    const dotted = new Set();
    for (const m of moves) {
      const first = m.clicks[0];
      for (const t of first) {
        const target = targets.get(t);
        if (!target) continue;
        if (m.clicks.length === 1 && first.length === 1) {
          if (!target.rect.dataset.move) offer(svg, target, m);
        } else if (!dotted.has(t)) {
          dotted.add(t);
          corner(svg, target, m.tone);
        }
      }
    }
    const hovered = ui.hover === undefined ? null : ui.hover;
    if (!b.drag && hovered !== null && resolve(hovered) !== hovered && targets.has(resolve(hovered))) {
      // Pointing at a stand-in shades it and every cell standing in for the
      // same target, and rings the target: where the move puts its piece.
      const to = resolve(hovered);
      const move = moves.find((m) => progress(m, [to])?.done);
      for (const [from, alias] of aliases) {
        if (alias === to && targets.has(from)) {
          const { x, y, w, h } = targets.get(from);
          el('rect', { x: x + 2, y: y + 2, width: w - 4, height: h - 4, rx: 6, class: 'lane' }, svg);
        }
      }
      ring(svg, targets.get(to), move ? move.tone : 'focus');
    }
    if (b.drag && ui.hover !== undefined && ui.hover !== null) {
      // Pointing at a target rings where moves from it end.
      const ringed = new Set();
      for (const m of moves) {
        const p = progress(m, [ui.hover]);
        if (!p || p.done) continue;
        for (const t of p.next) {
          if (ringed.has(t) || !targets.has(t)) continue;
          ringed.add(t);
          ring(svg, targets.get(t), m.tone);
        }
      }
    }
  } else {
    for (const t of picked) if (targets.has(t)) ring(svg, targets.get(t), 'picked');
    const seen = new Set();
    for (const m of longer) {
      for (const t of progress(m, picked).next) {
        if (seen.has(t) || !targets.has(t)) continue;
        seen.add(t);
        // Moves are best first: the first one a click completes is the best.
        const completes = longer.find((k) => progress(k, [...picked, t])?.done);
        if (completes) offer(svg, targets.get(t), completes);
        else ring(svg, targets.get(t), m.tone);
      }
    }
  }
  if (ctx.focus) for (const t of ctx.focus.clicks.flat()) if (targets.has(t)) ring(svg, targets.get(t), 'focus');

  const button = (label, onclick, cls) => {
    const node = document.createElement('button');
    node.textContent = label;
    if (cls) node.className = cls;
    node.onclick = onclick;
    actions.appendChild(node);
    return node;
  };
  if (!b.drag && picked.length) {
    // A move that others extend is played by a button.
    if (longer.length) {
      for (const m of done) {
        const node = button(`Play ${m.move}`, () => ctx.play(m), `offer ${m.tone}`);
        const value = document.createElement('span');
        value.className = 'val';
        value.textContent = `: ${describe(m.value, m.remoteness)}`;
        node.append(value);
        node.dataset.move = m.move;
        node.dataset.value = m.value;
      }
    }
    button('Clear', () => { ui.picked = []; ctx.redraw(); });
  }

  const click = (t) => {
    let next;
    if (ui.picked.includes(t)) next = ui.picked.filter((k) => k !== t);
    else if (longer.some((m) => progress(m, [...ui.picked, t]))) next = [...ui.picked, t];
    else if (moves.some((m) => progress(m, [t]))) next = [t];
    else next = [];
    const fits = moves.filter((m) => progress(m, next) !== null);
    const complete = fits.filter((m) => progress(m, next).done);
    if (complete.length && complete.length === fits.length) return ctx.play(complete[0]);
    ui.picked = next;
    ctx.redraw();
  };
  if (!b.drag) {
    svg.onclick = (event) => {
      const t = resolve(targetAt(event));
      if (t !== null && !ctx.busy()) click(t);
    };
    if (aliases.size) {
      // Stand-ins show where a click on them plays.
      svg.onpointermove = (event) => {
        const t = targetAt(event);
        if (t !== (ui.hover ?? null)) {
          ui.hover = t;
          ctx.redraw();
        }
      };
      svg.onpointerleave = () => {
        if (ui.hover !== undefined && ui.hover !== null) {
          ui.hover = null;
          ctx.redraw();
        }
      };
    }
    return;
  }
  svg.onpointerdown = (event) => {
    const t = targetAt(event);
    if (t === null || ctx.busy()) return;
    svg.setPointerCapture(event.pointerId);
    ui.from = t;
    ui.over = t;
    ctx.redraw();
  };
  svg.onpointermove = (event) => {
    const t = targetAt(event);
    if (ui.from === undefined || ui.from === null) {
      if (t !== (ui.hover ?? null)) {
        ui.hover = t;
        ctx.redraw();
      }
    } else if (t !== ui.over) {
      ui.over = t;
      ctx.redraw();
    }
  };
  svg.onpointerleave = () => {
    if (ui.hover !== undefined && ui.hover !== null && (ui.from === undefined || ui.from === null)) {
      ui.hover = null;
      ctx.redraw();
    }
  };
  svg.onpointerup = () => {
    const gesture = ui.from === undefined || ui.from === null ? null : done[0];
    ui.from = null;
    if (gesture) ctx.play(gesture);
    else ctx.redraw();
  };
  svg.onpointercancel = () => {
    ui.from = null;
    ctx.redraw();
  };
}
