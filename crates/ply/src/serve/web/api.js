// The JSON API the page reads: the games, and for a position what
// GET /api/board answers (the solve of `ply solve --json` under `solve`, the
// board's description under `board`, and the moves best first with their
// clicks, values for the mover, colours and ranks under `moves`).

const answers = new Map();

async function get(url) {
  const response = await fetch(url);
  const body = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) throw new Error(body.error || `HTTP ${response.status}`);
  return body;
}

/** Every built-in game, with its variants and start. */
export async function games() {
  return (await get('/api/games')).games;
}

/** The board answer for `position` of `game` (its start if absent), kept once fetched. */
export async function board(game, position) {
  const key = `${game}\n${position ?? ''}`;
  if (answers.has(key)) return answers.get(key);
  const params = new URLSearchParams({ game });
  if (position !== undefined && position !== null) params.set('position', position);
  const body = await get(`/api/board?${params}`);
  answers.set(key, body);
  return body;
}

/** A value with its remoteness, as people read it. */
export function describe(value, remoteness) {
  return remoteness === null ? value : `${value} in ${remoteness}`;
}
