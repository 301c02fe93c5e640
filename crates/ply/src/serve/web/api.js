// The JSON API the page reads: the games, and for a position what
// GET /api/board answers (the solve of `ply solve --json` under `solve`, the
// board's description under `board`, and the moves best first with their
// clicks, values for the mover, colours and ranks under `moves`).

const answers = new Map();

async function get(url, signal) {
  const response = await fetch(url, { signal });
  const body = await response.json().catch(() => ({ error: `HTTP ${response.status}` }));
  if (!response.ok) {
    const error = new Error(body.error || `HTTP ${response.status}`);
    // A search the server stopped at its time limit and keeps: asked
    // again, it goes on from where it stopped.
    error.pending = body.pending === true;
    error.retryAfter = Number(response.headers.get('Retry-After')) || 1;
    throw error;
  }
  return body;
}

/** Every built-in game, with its variants and start. */
export async function games() {
  return (await get('/api/games')).games;
}

/**
 * The board answer for `position` of `game` (its start if absent), kept once
 * fetched. An error whose `pending` is true is a search still going on: ask
 * again after its `retryAfter` seconds. `signal` aborts the request.
 */
export async function board(game, position, signal) {
  const key = `${game}\n${position ?? ''}`;
  if (answers.has(key)) return answers.get(key);
  const params = new URLSearchParams({ game });
  if (position !== undefined && position !== null) params.set('position', position);
  const body = await get(`/api/board?${params}`, signal);
  answers.set(key, body);
  return body;
}

/** A value with its remoteness, as people read it. */
export function describe(value, remoteness) {
  return remoteness === null ? value : `${value} in ${remoteness}`;
}
