"""A game written in Python, solved by ply's engine.

    python examples/python/python_game.py

Subtraction Nim with a twist that makes it loopy: heaps of tokens; a move
takes 1 to 3 tokens from one heap, or puts one token back on a heap that
has fewer than it started with. Whoever takes the last token wins. The
engine explores every position reached from the start and solves them all:
memoised search when play cannot loop, retrograde analysis when it can
(as here), so some positions are draws.
"""

import ply


class PutBackNim:
    name = "put-back-nim"

    def __init__(self, heaps):
        self.heaps = tuple(heaps)

    def start(self):
        return self.heaps

    def moves(self, heaps):
        takes = [(i, -k) for i, h in enumerate(heaps) for k in (1, 2, 3) if k <= h]
        puts = [(i, +1) for i, h in enumerate(heaps) if h < self.heaps[i]]
        return takes + puts

    def play(self, heaps, move):
        i, change = move
        return heaps[:i] + (heaps[i] + change,) + heaps[i + 1:]

    def primitive(self, heaps):
        # The player to move faces no tokens: the last one was taken.
        return "lose" if sum(heaps) == 0 else None


solver = ply.Solver(PutBackNim((2, 3, 4)))
report = solver.solve()
print(f"{solver.name} from {report['position']}: {report['value']}", end="")
print(f" in {report['remoteness']}" if report["remoteness"] is not None else "")
for move in report["moves"]:
    r = move["remoteness"]
    print(f"  {move['move']} -> {move['position']}: {move['value']}" + (f" in {r}" if r is not None else ""))

census = solver.analyze()
print(
    f"{census['positions']} positions ({census['method']}, {census['seconds']:.3f} s): "
    f"{census['win']} win, {census['lose']} lose, {census['draw']} draw"
)
values = solver.values()
print("positions by value:", {ply.VALUES[c]: int((values == c).sum()) for c in (ply.WIN, ply.LOSE, ply.DRAW)})
