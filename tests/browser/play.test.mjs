// A real browser plays a whole game of every built-in game in `ply serve`'s
// page by clicks and drags, and every value the page shows is checked
// against `ply solve --json` for the same position. The test knows no game:
// it makes each move by the clicks GET /api/board lists for it.
//
// Needs Debian's chromium (/usr/bin/chromium) and a built ply (PLY, default
// target/release/ply). PLY_SCREENSHOT names where the screenshot goes
// (default tests/browser/out/screenshot.png); PLY_SEED fixes the random
// choices (printed on every run).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';

const here = path.dirname(fileURLToPath(import.meta.url));
const root = path.resolve(here, '../..');
const ply = process.env.PLY || path.join(root, 'target/release/ply');
const screenshot = process.env.PLY_SCREENSHOT || path.join(here, 'out/screenshot.png');
const seed = Number(process.env.PLY_SEED || Date.now() % 1000000);
console.log(`browser test seed: PLY_SEED=${seed}`);

/** Debian's chromium, headless, quiet on the network (loopback only). */
function launchChromium() {
  return chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}

/** A small seeded generator, so a failing run can be repeated. */
function generator(s) {
  let a = s >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
const random = generator(seed);
const pick = (items) => items[Math.floor(random() * items.length)];

/** Starts `ply serve` on a free loopback port; resolves to its URL and process. */
function startServer() {
  return new Promise((resolve, reject) => {
    // No databases: the full Dobutsu Shogi must be refused with a message.
    const server = spawn(ply, ['serve', '--addr', '127.0.0.1:0', '--no-db'], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`ply serve did not start: ${out}`)), 20000);
    server.on('error', reject);
    server.on('exit', (code) => reject(new Error(`ply serve exited with ${code}: ${out}`)));
    server.stdout.on('data', (chunk) => {
      out += chunk;
      const found = out.match(/http:\/\/127\.0\.0\.1:\d+\//);
      if (found) {
        clearTimeout(timer);
        resolve({ url: found[0], server });
      }
    });
  });
}

function solveCli(game, position, extra = []) {
  // A long Treblecross row's report lists thousands of 5,000-square positions.
  return JSON.parse(execFileSync(ply, ['solve', game, position, '--json', ...extra], { encoding: 'utf8', maxBuffer: 1 << 30 }));
}

/**
 * The JSON at `url`, asked for again once if the connection fails: the
 * server closes idle connections, which Node's fetch may have kept to reuse.
 */
async function getJson(url) {
  const response = await fetch(url).catch(() => fetch(url));
  return response.json();
}

/** What `ply solve` says on refusing a position, or null if it solves it. */
function cliError(game, position) {
  try {
    execFileSync(ply, ['solve', game, position, '--json'], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
    return null;
  } catch (error) {
    return String(error.stderr);
  }
}

const flip = (value) => (value === 'win' ? 'lose' : value === 'lose' ? 'win' : value);

/** What a move from `ply solve` means for the player making it, as the page shows it. */
function forMover(move) {
  return { move: move.move, value: flip(move.value), remoteness: move.remoteness === null ? '' : String(move.remoteness + 1) };
}

const byMove = (a, b) => (a.move < b.move ? -1 : a.move > b.move ? 1 : 0);

/** Larger is better for the player it belongs to: fastest win, ties, draws, slowest loss. */
function compareForMover(a, b) {
  const key = (o) => {
    const r = o.remoteness === '' ? 0 : Number(o.remoteness);
    return { win: [3, -r], tie: [2, -r], draw: [1, 0], lose: [0, r] }[o.value];
  };
  const [ka, kb] = [key(a), key(b)];
  return ka[0] - kb[0] || ka[1] - kb[1];
}

/** Everything the page shows about the current position. */
function shown(page) {
  return page.evaluate(() => {
    const status = document.querySelector('#status');
    const data = (node) => ({ move: node.dataset.move, value: node.dataset.value, remoteness: node.dataset.remoteness });
    return {
      position: document.querySelector('#position').value,
      status: { ...status.dataset, text: status.textContent },
      rows: [...document.querySelectorAll('#moves tbody tr[data-move]')].map(data),
      board: [...document.querySelectorAll('#board [data-move]')].map((n) => ({ ...data(n), square: n.dataset.square })),
      dots: document.querySelectorAll('#chart .dot').length,
      error: document.querySelector('#error').hidden ? null : document.querySelector('#error').textContent,
    };
  });
}

/** Checks what the page shows against `ply solve --json` (with `extra` arguments); returns the solve. */
async function checkAgainstSolve(page, game, extra = []) {
  const seen = await shown(page);
  assert.equal(seen.error, null);
  const solved = solveCli(game, seen.position, extra);
  assert.equal(seen.position, solved.position);
  assert.equal(seen.status.value, solved.value, `value of ${solved.position}`);
  assert.equal(seen.status.remoteness, solved.remoteness === null ? '' : String(solved.remoteness));
  assert.equal(seen.status.over, String(solved.moves.length === 0));
  const expected = solved.moves.map(forMover);
  assert.deepEqual([...seen.rows].sort(byMove), [...expected].sort(byMove), `move list at ${solved.position}`);
  // The list is best first, as the server ranks the moves.
  for (let i = 1; i < seen.rows.length; i++) {
    assert.ok(compareForMover(seen.rows[i - 1], seen.rows[i]) >= 0, `${seen.rows[i - 1].move} listed before a better ${seen.rows[i].move}`);
  }
  for (const cell of seen.board) {
    const move = expected.find((m) => m.move === cell.move);
    assert.ok(move, `the board offers ${cell.move} at ${cell.square}, which ply solve does not list`);
    assert.equal(cell.value, move.value, `value of ${cell.move} on the board`);
    assert.equal(cell.remoteness, move.remoteness, `remoteness of ${cell.move} on the board`);
  }
  return { seen, solved };
}

async function centre(page, target) {
  const box = await page.locator(`#board [data-target="${target}"]`).boundingBox();
  return [box.x + box.width / 2, box.y + box.height / 2];
}

/** Makes `move` (from GET /api/board) by its clicks: a drag on a drag board, else click by click. */
async function makeMove(page, view, move) {
  const targets = move.clicks.flat();
  if (view.board.drag && targets.length === 2) {
    const [x1, y1] = await centre(page, targets[0]);
    const [x2, y2] = await centre(page, targets[1]);
    await page.mouse.move(x1, y1);
    await page.mouse.down();
    await page.mouse.move(x2, y2, { steps: 5 });
    await page.mouse.up();
    return;
  }
  for (const target of targets) await page.locator(`#board [data-target="${target}"]`).click();
  // A move that others extend (an L moved, its neutrals kept) waits for its button.
  const offered = page.locator(`#board-actions button[data-move="${move.move}"]`);
  if (await offered.count()) await offered.click();
}

/**
 * Plays one whole game in the page, checking every position against ply
 * solve: the side that wins plays a best move, the side that loses any move,
 * and from a draw a move that loses if there is one, so that play ends
 * (with `dropFirst`, the first move is a drop from hand).
 * Moves are made by their clicks, by the move list or by "Computer moves".
 * Returns the number of moves played and of those starting in a hand.
 */
async function playWholeGame(page, url, game, { shotAt = -1, dropFirst = false } = {}) {
  let plies = 0;
  let drops = 0;
  for (;;) {
    const { seen, solved } = await checkAgainstSolve(page, game);
    assert.equal(seen.dots, plies + 1, 'one dot per position in the value history');
    if (solved.moves.length === 0) break;
    assert.ok(plies < 200, `${game}: play does not end`);
    const params = new URLSearchParams({ game, position: seen.position });
    const view = await getJson(`${url}api/board?${params}`);
    if (plies === shotAt) {
      mkdirSync(path.dirname(screenshot), { recursive: true });
      await page.screenshot({ path: screenshot });
    }
    const clickable = view.moves.filter((m) => m.clicks.length);
    assert.equal(clickable.length, view.moves.length, `${game}: every move can be made by clicks`);
    const best = clickable.filter((m) => m.rank === 0);
    const losing = clickable.filter((m) => m.value === 'lose');
    const hand = new Set(view.board.areas.flatMap((a) => a.pieces.map((p) => p.id)));
    const isDrop = (m) => hand.has(m.clicks[0][0]);
    const firstDrop = dropFirst && plies === 0 ? clickable.filter(isDrop) : [];
    const wanted = firstDrop.length ? firstDrop : seen.status.value === 'win' ? best
      : ['draw', 'tie'].includes(seen.status.value) && losing.length ? losing : clickable;
    const choice = firstDrop.length ? 0.5 : random();
    let expect = null;
    if (seen.status.value === 'win' && choice < 0.15) {
      await page.locator('#computer').click();
    } else {
      const drop = wanted.filter(isDrop);
      const move = drop.length && choice < 0.7 ? pick(drop) : pick(wanted);
      expect = solved.moves.find((m) => m.move === move.move).position;
      if (choice > 0.92) await page.locator(`#moves tbody tr[data-move="${move.move}"]`).click();
      else await makeMove(page, view, move);
      if (isDrop(move)) drops += 1;
    }
    await page.waitForFunction(
      (previous) => (document.querySelector('#position').value !== previous || !document.querySelector('#error').hidden)
        && !document.body.classList.contains('busy'),
      seen.position,
    ).catch((error) => {
      throw new Error(`${game} at ${seen.position}: the move ${expect === null ? 'of the computer' : `to ${expect}`} was not played (${error.message})`);
    });
    if (!(await page.locator('#error').isHidden())) {
      // Only a position `ply solve` cannot read either (one a move that
      // ends play leads to) may be refused, with the server's message.
      const message = await page.locator('#error').textContent();
      const tried = expect === null ? solved.moves.map((m) => m.position) : [expect];
      const refused = tried.map((p) => cliError(game, p)).find((e) => e !== null && e.includes(message)) ?? null;
      assert.ok(refused !== null, `${game}: the page says '${message}' after a move from ${seen.position}`);
      return { plies: plies + 1, drops, refused };
    }
    const after = await page.locator('#position').inputValue();
    if (expect !== null) assert.equal(after, expect, 'the clicks played the move they name');
    else {
      const top = solved.moves.map(forMover).sort((a, b) => compareForMover(b, a))[0];
      const played = solved.moves.find((m) => m.position === after);
      assert.ok(played, `the computer's move leads to ${after}, not a legal move`);
      assert.equal(compareForMover(forMover(played), top), 0, `the computer played ${played.move}, not a best move`);
    }
    plies += 1;
  }
  return { plies, drops };
}

/** Starts `game` (from `position` if given) by the variant box and the position box. */
async function startGame(page, game, position) {
  await page.locator('#variant').fill(game);
  await page.locator('#new').click();
  await page.waitForFunction((g) => new URLSearchParams(location.hash.slice(1)).get('game') === g
    && !document.body.classList.contains('busy') && document.querySelector('#error').hidden, game);
  if (position) {
    await page.locator('#position').fill(position);
    await page.locator('#goto button').click();
    await page.waitForFunction((p) => document.querySelector('#position').value === p
      && document.querySelector('#chart .dot') && document.querySelectorAll('#chart .dot').length === 1
      && !document.body.classList.contains('busy'), position);
  }
}

test('a whole game of every game in the browser, checked against ply solve', { timeout: 300000 }, async () => {
  const { url, server } = await startServer();
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    const problems = [];
    page.on('pageerror', (error) => problems.push(error.message));
    // The 400s and the 503 (no Dobutsu database) the test provokes on
    // purpose are logged too; anything else is a problem.
    page.on('console', (message) => {
      if (message.type() === 'error' && !/status of (400|503)/.test(message.text())) problems.push(message.text());
    });
    await page.goto(url);
    await page.waitForSelector('#moves tbody tr');
    // These games are played by clicks for both sides; the computer's own
    // replies are tested below.
    await page.selectOption('#side0', 'person');
    await page.selectOption('#side1', 'person');
    const games = await getJson(`${url}api/games`);
    const names = games.games.map((g) => g.name);
    for (const name of ['euler', 'tictactoe', 'treblecross', 'lgame', 'yehr', 'dobutsu']) assert.ok(names.includes(name), name);

    // Euler from the start: clicks, drags and computer moves to the end.
    const { plies } = await playWholeGame(page, url, 'euler', { shotAt: 6 });
    assert.ok(plies >= 2, `a game of ${plies} moves`);
    const final = await shown(page);
    // Covering the last square loses, so the player to move at the end wins.
    const winner = plies % 2 === 0 ? 'player 1' : 'player 2';
    assert.match(final.status.text, new RegExp(`game over: ${winner} wins`));

    // Undo and redo walk the history.
    await page.locator('#undo').click();
    const undone = await shown(page);
    assert.equal(undone.status.over, 'false');
    assert.equal(undone.dots, plies + 1, 'redo keeps the later positions in the chart');
    await page.locator('#redo').click();
    assert.equal((await shown(page)).position, final.position);

    // A typed position; a malformed one is refused with the server's message.
    await page.locator('#position').fill('XXXX/XXXX/XXXX/X...');
    await page.locator('#goto button').click();
    await page.waitForFunction(() => document.querySelector('#status').dataset.over === 'false'
      && document.querySelector('#position').value === 'XXXX/XXXX/XXXX/X...');
    await checkAgainstSolve(page, 'euler');
    await page.locator('#position').fill('XXX');
    await page.locator('#goto button').click();
    await page.waitForSelector('#error:not([hidden])');
    assert.match(await page.locator('#error').textContent(), /expected 4 rows/);

    // Every other game, a whole game by clicks.
    await startGame(page, 'tictactoe:3x3x3');
    await playWholeGame(page, url, 'tictactoe:3x3x3');
    await startGame(page, 'treblecross');
    await playWholeGame(page, url, 'treblecross');
    await startGame(page, 'lgame');
    await playWholeGame(page, url, 'lgame');
    await startGame(page, 'yehr');
    await playWholeGame(page, url, 'yehr');
    // Dobutsu Shogi with the Lions and Chicks only, from a Chick in hand so
    // that a drop is played by clicking the hand, then a square.
    await startGame(page, 'dobutsu:C', '.l./.c./.../.L./C/S');
    const dobutsu = await playWholeGame(page, url, 'dobutsu:C', { dropFirst: true });
    assert.ok(dobutsu.drops >= 1, 'a piece was dropped from hand');

    // A row of 5,000 squares: drawn, and a move played on it by a click.
    const long = 'treblecross:5000';
    await startGame(page, long);
    const before = await shown(page);
    assert.equal(before.position, '.'.repeat(5000));
    const longView = await getJson(`${url}api/board?${new URLSearchParams({ game: long, position: before.position })}`);
    const playable = longView.moves.filter((m) => m.clicks.length);
    assert.ok(playable.length > 0, 'moves offered on the long row');
    assert.equal(playable.length, longView.moves.length, 'every move offered on the long row can be clicked');
    // A row this long lists its winning moves: play one of them.
    const listed = solveCli(long, before.position).moves;
    const longMove = pick(playable);
    const expected = listed.find((l) => l.move === longMove.move);
    assert.ok(expected, `ply solve lists ${longMove.move}`);
    await makeMove(page, longView, longMove);
    await page.waitForFunction(
      (previous) => (document.querySelector('#position').value !== previous || !document.querySelector('#error').hidden)
        && !document.body.classList.contains('busy'),
      before.position,
    );
    const { seen: after } = await checkAgainstSolve(page, long);
    assert.equal(after.position.length, 5000);
    assert.equal([...after.position].filter((c) => c === 'X').length, 1, `one X after ${longMove.move}`);
    assert.equal(after.position, expected.position, `the click played ${longMove.move}`);

    // The full Dobutsu Shogi has no database here: the server's message is shown.
    await page.locator('#variant').fill('dobutsu');
    await page.locator('#new').click();
    await page.waitForSelector('#error:not([hidden])');
    assert.match(await page.locator('#error').textContent(), /no saved database of dobutsu/);
    assert.deepEqual(problems, [], 'no script errors on the page');
  } finally {
    await browser.close();
    server.kill();
  }
});

/** A natural order of move names, digits as numbers, as the page sorts hidden moves. */
const natural = (a, b) => a.localeCompare(b, 'en', { numeric: true });

/**
 * Plays a whole game of `game` as a person (random moves by clicks) against
 * the computer, which must reply by itself with a best move; returns the
 * number of moves. Saves a screenshot of the start under target/.
 */
async function playAgainstComputer(page, url, game, extra = []) {
  await page.selectOption('#side0', 'person');
  await page.selectOption('#side1', 'computer');
  await startGame(page, game);
  mkdirSync(shots, { recursive: true });
  await page.screenshot({ path: path.join(shots, `${game.replace(/[^a-z0-9]+/gi, '-')}.png`) });
  let plies = 0;
  for (;;) {
    const { seen, solved } = await checkAgainstSolve(page, game, extra);
    if (solved.moves.length === 0) break;
    assert.ok(plies < 200, `${game}: play does not end`);
    const view = await getJson(`${url}api/board?${new URLSearchParams({ game, position: seen.position })}`);
    const move = pick(view.moves.filter((m) => m.clicks.length));
    const mine = solved.moves.find((m) => m.move === move.move).position;
    const over = solveCli(game, mine, extra).moves.length === 0;
    await makeMove(page, view, move);
    // My move, then (unless it ended the game) the computer's own reply.
    const wanted = plies + (over ? 2 : 3);
    await page.waitForFunction((n) => document.querySelectorAll('#played li').length === n
      && !document.body.classList.contains('busy'), wanted, { timeout: 30000 });
    plies = wanted - 1;
    if (over) break;
    const replied = await page.locator('#position').inputValue();
    const options = solveCli(game, mine, extra).moves.map(forMover);
    const top = [...options].sort((a, b) => compareForMover(b, a))[0];
    const played = solveCli(game, mine, extra).moves.find((m) => m.position === replied);
    assert.ok(played, `${game}: the computer's reply leads to ${replied}, not a move from ${mine}`);
    assert.equal(compareForMover(forMover(played), top), 0, `${game}: the computer played ${played.move}, not a best move`);
  }
  // A finished game says who won, above and in the move table.
  const status = await page.locator('#status').textContent();
  assert.match(status, /game over: (.+ wins|a (tie|draw))/);
  const over = await page.locator('#moves tbody tr.over').textContent();
  assert.match(over, /Game over: (.+ wins|a (tie|draw))/);
  // The moves played are listed; clicking one goes back to it.
  const items = await page.locator('#played li').count();
  assert.equal(items, plies + 1);
  await page.locator('#played li').nth(1).click();
  await page.waitForFunction(() => document.querySelector('#played li.here')?.dataset.index === '1');
  assert.equal((await shown(page)).status.over, 'false');
  return plies;
}

/** Starts `ply serve` with `args` on a free loopback port; resolves to its URL and process. */
function startServerWith(args) {
  return new Promise((resolve, reject) => {
    const server = spawn(ply, ['serve', '--addr', '127.0.0.1:0', ...args], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    const timer = setTimeout(() => reject(new Error(`ply serve did not start: ${out}`)), 20000);
    server.on('error', reject);
    server.stdout.on('data', (chunk) => {
      out += chunk;
      const found = out.match(/http:\/\/127\.0\.0\.1:\d+\//);
      if (found) {
        clearTimeout(timer);
        resolve({ url: found[0], server });
      }
    });
  });
}

const shots = path.join(root, 'target', 'browser-shots');

test('against the computer, variants, hidden values and a stored Morris', { timeout: 300000 }, async () => {
  // Morris from its saved database, under a table limit of 1 MiB: morris:4
  // needs 9 MiB of tables to solve, so without its database this server
  // would refuse it.
  const dir = mkdtempSync(path.join(tmpdir(), 'ply-browser-db-'));
  execFileSync(ply, ['analyze', 'morris:4', '--save', '--db-dir', dir], { stdio: 'ignore' });
  const { url, server } = await startServerWith(['--db-dir', dir, '--max-table-mib', '1', '--session-mib', '64']);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    const problems = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().includes('status of 400')) problems.push(message.text());
    });
    await page.goto(url);
    await page.waitForSelector('#moves tbody tr');

    // Three whole games against the computer, Morris from its database.
    const games = await getJson(`${url}api/games`);
    const morris = games.games.find((g) => g.name === 'morris');
    assert.ok(morris, 'morris is listed');
    for (const game of ['tictactoe:3x3x3', 'dobutsu:C', 'morris:4']) {
      const plies = await playAgainstComputer(page, url, game, game.startsWith('morris') ? ['--db-dir', dir] : []);
      assert.ok(plies >= 2, `${game}: a game of ${plies} moves`);
    }
    // Morris is drawn as its board: 32 lines and 24 points, no squares between.
    await startGame(page, 'morris:4');
    assert.equal(await page.locator('#board .board-line').count(), 32);
    assert.equal(await page.locator('#board .point-dot').count(), 24);
    assert.equal(await page.locator('#board rect.cell:not(.hand)').count(), 24);
    const source = (await getJson(`${url}api/solve?game=morris:4`)).source;
    assert.equal(source, 'database', 'morris:4 is answered from its database');

    // A link to a variant shows that variant, picked in the list of variants.
    await page.goto(`${url}#game=dobutsu:C`);
    await page.waitForFunction(() => document.querySelector('#variant').value === 'dobutsu:C'
      && !document.body.classList.contains('busy'));
    assert.equal(await page.locator('#variants').inputValue(), 'dobutsu:C');
    assert.equal(await page.locator('#game').inputValue(), 'dobutsu');
    const listed = await page.locator('#variants option').allTextContents();
    const dobutsu = games.games.find((g) => g.name === 'dobutsu');
    assert.deepEqual(listed, dobutsu.variant_list);
    // The rules panel is the game's own description.
    assert.match(await page.locator('#rules').textContent(), /Dobutsu Shogi/);

    // Hidden values: moves by name, the chart hidden, no value in the list;
    // shown again: best first.
    await page.selectOption('#side1', 'person');
    await startGame(page, 'tictactoe:3x3x3', 'x../.o./...');
    await page.locator('#show').uncheck();
    const hidden = await shown(page);
    const names = hidden.rows.map((r) => r.move);
    assert.deepEqual(names, [...names].sort(natural), 'hidden values list moves by name');
    assert.ok(await page.locator('#chart').isHidden(), 'the chart is hidden with the values');
    const cells = await page.locator('#moves tbody td.value').allTextContents();
    assert.ok(cells.every((c) => c === '?'), `values shown: ${cells}`);
    assert.doesNotMatch(await page.locator('#status').textContent(), /win|lose|draw|tie/);
    await page.locator('#show').check();
    await checkAgainstSolve(page, 'tictactoe:3x3x3');
    assert.deepEqual(problems, [], 'no script errors on the page');
  } finally {
    await browser.close();
    server.kill();
  }
});

test('a search past the time limit is shown as pending, then its answer', { timeout: 300000 }, async () => {
  // Five-stone Morris with only its moving phase stored, under the tight
  // limits: the empty board is searched over it, and a limit of 1 ms
  // stops every search at once; asked again, each goes on from its table.
  const game = 'morris:5,moving';
  const dir = mkdtempSync(path.join(tmpdir(), 'ply-browser-pending-'));
  execFileSync(ply, ['analyze', game, '--save', '--db-dir', dir], { stdio: 'ignore' });
  const { url, server } = await startServerWith(['--db-dir', dir, '--max-table-mib', '1', '--session-mib', '64',
    '--solve-seconds', '0.001']);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 1000 } });
    const problems = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      // The pending answers are 503s, which the browser logs.
      if (message.type() === 'error' && !message.text().includes('status of 503')) problems.push(message.text());
    });
    await page.goto(`${url}#${new URLSearchParams({ game })}`);
    // While the search goes on, the page says so, and shows no error.
    await page.waitForSelector('#pending:not([hidden])', { timeout: 60000 });
    const during = await page.evaluate(() => ({
      error: document.querySelector('#error').hidden ? null : document.querySelector('#error').textContent,
      text: document.querySelector('#pending-text').textContent,
      busy: document.body.classList.contains('busy'),
    }));
    assert.equal(during.error, null, 'no error while the search is pending');
    assert.match(during.text, /^Searching this position: \d+ s so far, asked \d+ times?\./);
    assert.ok(during.busy, 'the page waits for the answer');
    // Then the answer, as ply solve gives it from the same database.
    await page.waitForFunction(() => document.querySelector('#pending').hidden
      && !document.body.classList.contains('busy') && document.querySelector('#moves tbody tr[data-move]'), null, { timeout: 240000 });
    const { seen } = await checkAgainstSolve(page, game, ['--db-dir', dir]);
    assert.equal(seen.position, '.../.../.../....../.../.../.../5,5/W');
    assert.deepEqual(problems, [], 'no script errors on the page');
  } finally {
    await browser.close();
    server.kill();
  }
});

/**
 * The disc drawn in the cell `square` of the board, as the side it belongs
 * to (0 or 1), or null for none: a disc whose centre lies in that cell.
 */
function discIn(page, square) {
  return page.evaluate((id) => {
    const cell = document.querySelector(`#board rect[data-square="${id}"]`).getBBox();
    for (const disc of document.querySelectorAll('#board circle.disc')) {
      const [cx, cy] = [Number(disc.getAttribute('cx')), Number(disc.getAttribute('cy'))];
      if (cx > cell.x && cx < cell.x + cell.width && cy > cell.y && cy < cell.y + cell.height) {
        return disc.classList.contains('side0') ? 0 : disc.classList.contains('side1') ? 1 : 'neutral';
      }
    }
    return null;
  }, square);
}

test('Connect Four: a click anywhere in a column drops the disc to its bottom', { timeout: 300000 }, async () => {
  const game = 'connect4:4x4';
  const { url, server } = await startServer();
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 860 } });
    const problems = [];
    page.on('pageerror', (error) => problems.push(error.message));
    page.on('console', (message) => {
      if (message.type() === 'error') problems.push(message.text());
    });
    await page.goto(url);
    await page.waitForSelector('#moves tbody tr');
    await page.selectOption('#side0', 'person');
    await page.selectOption('#side1', 'person');
    await startGame(page, game);
    let plies = 0;
    for (;;) {
      const { seen, solved } = await checkAgainstSolve(page, game);
      if (solved.moves.length === 0) break;
      assert.ok(plies <= 16, `${game}: play does not end`);
      const view = await getJson(`${url}api/board?${new URLSearchParams({ game, position: seen.position })}`);
      const { board } = view;
      // Every move is one click on the cell its disc lands on; every other
      // cell of its column stands in for that cell.
      const move = pick(view.moves);
      assert.equal(move.clicks.length, 1);
      const [landing] = move.clicks[0];
      const column = board.cells.map((c, i) => [c.id, i % board.cols]).filter(([id]) => id === landing)[0][1];
      const lane = board.cells.filter((_, i) => i % board.cols === column).map((c) => c.id);
      const standIns = board.aliases.filter(([, to]) => to === landing).map(([from]) => from);
      assert.deepEqual([...standIns, landing].sort(), [...lane].sort(), `column ${move.move}'s cells all play it`);
      assert.equal(await discIn(page, landing), null, `${landing} is empty before the move`);
      // The lowest empty cell: every cell below it holds a disc.
      const below = lane.slice(lane.indexOf(landing) + 1);
      for (const id of below) assert.notEqual(await discIn(page, id), null, `${id} under ${landing} holds a disc`);
      // Click the column's top cell (the landing cell only when the column
      // has one cell left), after pointing at it shades the column.
      const top = lane[0];
      const [x, y] = await centre(page, top);
      await page.mouse.move(x, y);
      if (top !== landing) {
        await page.waitForFunction((n) => document.querySelectorAll('#board .lane').length === n, standIns.length);
      }
      await page.mouse.click(x, y);
      const expect = solved.moves.find((m) => m.move === move.move).position;
      await page.waitForFunction((p) => document.querySelector('#position').value === p
        && !document.body.classList.contains('busy'), expect).catch((error) => {
        throw new Error(`${game} at ${seen.position}: a click on ${top} did not play column ${move.move} (${error.message})`);
      });
      // The disc is the mover's, at the bottom of the column.
      assert.equal(await discIn(page, landing), board.mover, `the disc landed on ${landing}`);
      for (const id of lane.slice(0, lane.indexOf(landing))) assert.equal(await discIn(page, id), null, `${id} above stays empty`);
      plies += 1;
    }
    assert.ok(plies >= 7, `a game of ${plies} moves`);
    assert.deepEqual(problems, [], 'no script errors on the page');
  } finally {
    await browser.close();
    server.kill();
  }
});
