#!/usr/bin/env python3
"""Checks ply's answers against GamesmanOne's `gamesman query` on one game.

Usage: peer-gamesmanone-check.py PLY DB_DIR GAME GAMESMAN GM_GAME GM_VARIANT GM_DIR N SEED

Random play from the start (each game restarts after a random number of
plies, or where play ends) visits N positions, the start first. At each,
`ply solve GAME POSITION --json --db-dir DB_DIR` gives the value, the
remoteness and every move's position, value and remoteness; `gamesman query
GM_GAME GM_VARIANT POSITION`, run in GM_DIR (where its solve wrote ./data),
gives the same in GamesmanOne's form. Positions map one to one: ply's rows joined by '/' then the mover
(`X` or `O`) are GamesmanOne's `1_` or `2_` then the squares in the same
order, '-' for empty. GamesmanOne writes remoteness 0 for a draw; ply none.
Every position and every child is compared; the script prints the counts
and exits 1 on any difference.
"""

import json
import random
import subprocess
import sys


def to_gamesman(position):
    """ply's text (rows/.../mover) as GamesmanOne's formal position."""
    *rows, mover = position.split("/")
    turn = {"X": "1", "O": "2"}[mover]
    return turn + "_" + "".join(rows).replace(".", "-")


def ply_answer(ply, db_dir, game, position):
    out = subprocess.run(
        [ply, "solve", game, position, "--json", "--db-dir", db_dir],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out)


def gamesman_answer(gamesman, directory, game, variant, position):
    out = subprocess.run(
        [gamesman, "query", game, variant, position],
        check=True,
        capture_output=True,
        text=True,
        cwd=directory,
    ).stdout
    start = out.index("{")
    return json.loads(out[start:])


def normal(value, remoteness):
    """A value and remoteness as both sides should agree on them."""
    value = value.lower()
    if value == "draw":
        return ("draw", None)
    return (value, remoteness)


def main():
    if len(sys.argv) != 10:
        print(__doc__.strip().splitlines()[2], file=sys.stderr)
        sys.exit(2)
    ply, db_dir, game, gamesman, gm_game, gm_variant, gm_dir, n, seed = sys.argv[1:]
    n = int(n)
    rng = random.Random(int(seed))
    start = ply_start(ply, game)
    checked = children = differences = 0
    values = {}
    position, left = start, rng.randrange(1, 80)
    while checked < n:
        mine = ply_answer(ply, db_dir, game, position)
        theirs = gamesman_answer(gamesman, gm_dir, gm_game, gm_variant, to_gamesman(position))
        a = normal(mine["value"], mine["remoteness"])
        b = normal(theirs["positionValue"], theirs.get("remoteness"))
        checked += 1
        values[a[0]] = values.get(a[0], 0) + 1
        if a != b:
            differences += 1
            print(f"differ: {position}: ply {a}, GamesmanOne {b}", file=sys.stderr)
        their_children = {
            m["position"]: normal(m["positionValue"], m.get("remoteness"))
            for m in theirs.get("moves", [])
        }
        for move in mine["moves"]:
            child = to_gamesman(move["position"])
            children += 1
            c = normal(move["value"], move["remoteness"])
            if their_children.get(child) != c:
                differences += 1
                print(
                    f"differ: {move['position']} (after {move['move']} from {position}): "
                    f"ply {c}, GamesmanOne {their_children.get(child)}",
                    file=sys.stderr,
                )
        if len(mine["moves"]) != len(theirs.get("moves", [])):
            # Moves reaching one position twice (Quixo) count once in a set:
            # compare the sets of positions reached.
            mine_set = {to_gamesman(m["position"]) for m in mine["moves"]}
            if mine_set != set(their_children):
                differences += 1
                print(f"differ: {position}: the moves reach other positions", file=sys.stderr)
        left -= 1
        if not mine["moves"] or left == 0:
            position, left = start, rng.randrange(1, 80)
        else:
            position = rng.choice(mine["moves"])["position"]
    print(
        f"{game}: {checked} positions and {children} children compared with gamesman query "
        f"({', '.join(f'{k} {v}' for k, v in sorted(values.items()))}): "
        f"{differences} differences"
    )
    sys.exit(1 if differences else 0)


def ply_start(ply, game):
    """The start position, as `ply solve GAME --json` without a position names it."""
    out = subprocess.run(
        [ply, "solve", game, "--json", "--db-dir", sys.argv[2]],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return json.loads(out)["position"]


if __name__ == "__main__":
    main()
