// The value history, as in GamesmanUni: x is the move number, y the
// remoteness. Wins of the player who moved first are drawn above the middle
// line and the other player's below, remoteness 0 at the outer edges; ties
// and draws sit on the middle line. Each dot is coloured by the value for
// the player to move there.

import { describe } from './api.js';
import { el } from './svg.js';

/**
 * Draws `points` ({value, remoteness, player}, one per position played or
 * taken back) into `svg`, the one at `cursor` larger and those after it faded.
 */
export function drawChart(svg, points, cursor, [first, second]) {
  svg.replaceChildren();
  const width = Math.max(320, svg.clientWidth || 560);
  const height = 250;
  svg.setAttribute('viewBox', `0 0 ${width} ${height}`);
  const [left, right, top, bottom] = [44, 16, 24, 44];
  const plotW = width - left - right;
  const plotH = height - top - bottom;
  const mid = top + plotH / 2;
  const half = plotH / 2;
  const maxR = Math.max(4, ...points.map((p) => p.remoteness ?? 0));
  const n = Math.max(8, points.length - 1);
  const x = (i) => left + (i * plotW) / n;
  const y = (p, i) => {
    const winner = p.value === 'win' ? i % 2 : p.value === 'lose' ? 1 - (i % 2) : null;
    if (winner === null) return mid;
    const f = p.remoteness / (maxR + 1);
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
  el('text', { x: left + 6, y: top - 8, class: 'side', text: `${first} wins (remoteness)` }, svg);
  el('text', { x: left + 6, y: height - 6, class: 'side', text: `${second} wins` }, svg);
  el('text', { x: left + plotW, y: height - 6, 'text-anchor': 'end', class: 'axis', text: 'move number' }, svg);
  const played = points.slice(0, cursor + 1);
  if (played.length > 1) {
    el('polyline', { points: played.map((p, i) => `${x(i)},${y(p, i)}`).join(' '), class: 'path' }, svg);
  }
  points.forEach((p, i) => {
    const dot = el('circle', { cx: x(i), cy: y(p, i), r: i === cursor ? 6 : 4.5, class: `dot ${p.value}${i > cursor ? ' future' : ''}` }, svg);
    el('title', { text: `move ${i}: ${p.player} to move, ${describe(p.value, p.remoteness)}` }, dot);
  });
}
