"""Games written in Python, solved by the engine, against brute force."""

import functools
import itertools
import signal
import threading
import _thread

import numpy as np
import pytest

import ply


class Nim:
    """Nim on sorted heaps: take any number from one heap; whoever cannot move loses."""

    name = "nim"

    def __init__(self, heaps):
        self.heaps = tuple(sorted(heaps))

    def start(self):
        return self.heaps

    def moves(self, heaps):
        return [(i, k) for i, h in enumerate(heaps) for k in range(1, h + 1)]

    def play(self, heaps, move):
        i, k = move
        return tuple(sorted(heaps[:i] + (heaps[i] - k,) + heaps[i + 1:]))

    def primitive(self, heaps):
        return None  # no move left: a loss for the mover


@functools.lru_cache(maxsize=None)
def nim_brute(heaps):
    """(value, remoteness) by plain recursion over every move."""
    children = [Nim(()).play(heaps, m) for m in Nim(()).moves(heaps)]
    if not children:
        return "lose", 0
    results = [nim_brute(c) for c in children]
    lose_r = [r for v, r in results if v == "lose"]
    if lose_r:
        return "win", min(lose_r) + 1
    return "lose", max(r for _, r in results) + 1


def test_nim_agrees_with_brute_force_and_theory():
    solver = ply.Solver(Nim([2, 3, 4, 5]))
    positions = solver.positions()
    assert positions[0] == (2, 3, 4, 5) and len(set(positions)) == len(positions)
    values, remoteness = solver.values(), solver.remoteness()
    for p, v, r in zip(positions, values, remoteness):
        assert (ply.VALUES[v], r) == nim_brute(p)
        xor = functools.reduce(lambda a, b: a ^ b, p, 0)
        assert (v == ply.WIN) == (xor != 0)
    report = solver.solve()
    assert (report["value"], report["remoteness"]) == nim_brute((2, 3, 4, 5))
    assert len(report["moves"]) == 14
    for m in report["moves"]:
        assert (m["value"], m["remoteness"]) == nim_brute(m["position"])
    v, r = solver.solve_many([(0, 0, 0, 1), (1, 1, 2, 2)])
    assert v.tolist() == [ply.WIN, ply.LOSE] and r.tolist() == [1, nim_brute((1, 1, 2, 2))[1]]
    census = solver.analyze()
    assert census["positions"] == len(positions) and census["method"] == "memoised search"
    assert census["win"] == int(np.count_nonzero(values == ply.WIN))


class NimChildren(Nim):
    """The same Nim, giving each position's (move, child) pairs in one call."""

    def children(self, heaps):
        return [(m, self.play(heaps, m)) for m in self.moves(heaps)]


class NimChildrenOnly:
    """Nim with children() and no moves() or play()."""

    def start(self):
        return (1, 2, 3)

    def children(self, heaps):
        return (
            ((i, k), tuple(sorted(heaps[:i] + (h - k,) + heaps[i + 1:])))
            for i, h in enumerate(heaps)
            for k in range(1, h + 1)
        )

    def primitive(self, heaps):
        return None


def test_children_agrees_with_moves_and_play_and_brute_force():
    plain, fast = ply.Solver(Nim([2, 3, 4, 5])), ply.Solver(NimChildren([2, 3, 4, 5]))
    assert fast.positions() == plain.positions()
    assert fast.values().tolist() == plain.values().tolist()
    assert fast.remoteness().tolist() == plain.remoteness().tolist()
    for p, v, r in zip(fast.positions(), fast.values(), fast.remoteness()):
        assert (ply.VALUES[v], r) == nim_brute(p)
    assert fast.solve((1, 2, 3, 4)) == plain.solve((1, 2, 3, 4))
    only = ply.Solver(NimChildrenOnly())
    for p, v, r in zip(only.positions(), only.values(), only.remoteness()):
        assert (ply.VALUES[v], r) == nim_brute(p)
    report = only.solve()
    assert [m["move"] for m in report["moves"]] == [(0, 1), (1, 1), (1, 2), (2, 1), (2, 2), (2, 3)]
    assert report["moves"][0]["position"] == (0, 2, 3)


class Ring:
    """A loopy race: a token on a ring of n cells; the mover steps it 1 or 2
    forward or 1 back, never onto the cell it came from by the last move;
    whoever lands on cell 0 wins. Positions (cell, cell before)."""

    name = "ring"

    def __init__(self, n):
        self.n = n

    def start(self):
        return (self.n // 2, None)

    def moves(self, p):
        cell, before = p
        return [s for s in (1, 2, -1) if (cell + s) % self.n != before]

    def play(self, p, step):
        cell, _ = p
        return ((cell + step) % self.n, cell)

    def primitive(self, p):
        return "lose" if p[0] == 0 else None


def loopy_brute(game, positions):
    """Values and remoteness by rounds: the positions lost or won in exactly
    r plies are found at round r from those decided before; the rest draw."""
    kids = {p: [game.play(p, m) for m in game.moves(p)] for p in positions if game.primitive(p) is None}
    decided = {p: (game.primitive(p), 0) for p in positions if game.primitive(p) is not None}
    decided.update({p: ("lose", 0) for p, k in kids.items() if not k})
    r = 0
    while True:
        r += 1
        new = {}
        for p, k in kids.items():
            if p in decided or not k:
                continue
            if any(decided.get(c, (None,))[0] == "lose" and decided[c][1] == r - 1 for c in k):
                new[p] = ("win", r)
            elif all(c in decided and decided[c][0] == "win" for c in k) and max(
                decided[c][1] for c in k
            ) == r - 1:
                new[p] = ("lose", r)
        if not new and r > max(v[1] for v in decided.values()) + 1:
            break
        decided.update(new)
    return {p: decided.get(p, ("draw", None)) for p in positions}


@pytest.mark.parametrize("n", [5, 7, 9, 12])
def test_loopy_game_agrees_with_brute_force(n):
    solver = ply.Solver(Ring(n))
    positions = solver.positions()
    expected = loopy_brute(Ring(n), positions)
    values, remoteness = solver.values(), solver.remoteness()
    for p, v, r in zip(positions, values, remoteness):
        assert (ply.VALUES[v], None if r < 0 else int(r)) == expected[p], p
    assert solver.analyze()["method"] == "retrograde analysis"


class RingChildren(Ring):
    """The loopy Ring through children()."""

    def children(self, p):
        return [(s, self.play(p, s)) for s in self.moves(p)]


def test_loopy_game_through_children_agrees_with_brute_force():
    solver = ply.Solver(RingChildren(9))
    expected = loopy_brute(Ring(9), solver.positions())
    for p, v, r in zip(solver.positions(), solver.values(), solver.remoteness()):
        assert (ply.VALUES[v], None if r < 0 else int(r)) == expected[p], p
    assert solver.analyze()["method"] == "retrograde analysis"


class TicTacToe:
    """3x3 tic-tac-toe: a tuple of 9 cells ('.', 'x', 'o'); x moves first."""

    lines = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]

    def start(self):
        return "." * 9

    def moves(self, board):
        return [i for i, c in enumerate(board) if c == "."]

    def play(self, board, i):
        mover = "x" if board.count("x") == board.count("o") else "o"
        return board[:i] + mover + board[i + 1:]

    def primitive(self, board):
        for a, b, c in self.lines:
            if board[a] != "." and board[a] == board[b] == board[c]:
                return "lose"  # the last mover made a line
        return "tie" if "." not in board else None


def test_python_tictactoe_agrees_with_the_built_in_game():
    mine = ply.Solver(TicTacToe())
    theirs = ply.solve("tictactoe:3x3x3")
    assert mine.name == "TicTacToe"
    report = mine.solve()
    assert (report["value"], report["remoteness"]) == (theirs["value"], theirs["remoteness"])
    assert sorted((m["value"], m["remoteness"]) for m in report["moves"]) == sorted(
        (m["value"], m["remoteness"]) for m in theirs["moves"]
    )
    assert len(mine.positions()) == 5478


def test_bad_python_games_raise():
    class NoPlay:
        def start(self):
            return 0

    with pytest.raises(ply.ArgumentError, match="has no moves"):
        ply.Solver(NoPlay())

    class BadPrimitive(Nim):
        def primitive(self, heaps):
            return "maybe"

    with pytest.raises(ply.ArgumentError, match="expected None, 'win', 'lose' or 'tie'"):
        ply.Solver(BadPrimitive([1]))

    class Raises(Nim):
        def moves(self, heaps):
            raise ValueError("no moves today")

    with pytest.raises(ValueError, match="no moves today"):
        ply.Solver(Raises([1]))

    class Unhashable(Nim):
        def start(self):
            return [1, 2]

    with pytest.raises(TypeError):
        ply.Solver(Unhashable([]))

    class BadChildren(Nim):
        def children(self, heaps):
            return [heaps]

    with pytest.raises(ply.ArgumentError, match=r"children must give \(move, position\) pairs"):
        ply.Solver(BadChildren([1, 2]))

    class Fickle(Nim):
        """Moves that change once the game is explored."""

        explored = False

        def play(self, heaps, move):
            child = super().play(heaps, move)
            return (99,) + child if self.explored else child

    fickle = Fickle([1, 2])
    solver = ply.Solver(fickle)
    fickle.explored = True
    with pytest.raises(ply.ArgumentError, match="its moves must not change"):
        solver.solve()

    solver = ply.Solver(Nim([1, 2]))
    with pytest.raises(ply.ArgumentError, match="was not reached"):
        solver.solve((5, 5))
    with pytest.raises(ply.ArgumentError, match="outside"):
        solver.values(np.array([99], dtype=np.uint64))
    with pytest.raises(ply.ArgumentError, match="built-in games"):
        solver.export("x.parquet")
    with pytest.raises(ply.ArgumentError):
        ply.Solver(Nim([1]), db_dir="/tmp")


class Counter:
    """A game that goes on for ten million plies: there to be interrupted."""

    def start(self):
        return 0

    def moves(self, n):
        return [1]

    def play(self, n, step):
        return n + step

    def primitive(self, n):
        return "lose" if n >= 10_000_000 else None


@pytest.fixture
def ctrl_c_in_0_3_s():
    """Ctrl-C 0.3 s from now, raised as KeyboardInterrupt. Python's own SIGINT
    handler is installed for the test: a process started in the background
    inherits SIGINT ignored, and then interrupt_main does nothing."""
    handler = signal.signal(signal.SIGINT, signal.default_int_handler)
    timer = threading.Timer(0.3, _thread.interrupt_main)
    timer.start()
    try:
        yield
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, handler)


def test_ctrl_c_interrupts_a_python_game(ctrl_c_in_0_3_s):
    with pytest.raises(KeyboardInterrupt):
        ply.Solver(Counter())


def test_ctrl_c_interrupts_a_native_solve(ctrl_c_in_0_3_s, tmp_path):
    # euler:5x5 takes seconds to tabulate: an interrupt stops it early.
    with pytest.raises(KeyboardInterrupt):
        ply.Solver("euler:5x5", db_dir=tmp_path).analyze()
