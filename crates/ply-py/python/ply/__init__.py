"""ply from Python: strongly solved two-player games.

The same games, solves and databases as the ``ply`` command:

>>> import ply
>>> ply.solve("lgame")["value"]
'draw'
>>> s = ply.Solver("euler:3x3")
>>> values = s.values()            # numpy int8 over the whole index
>>> (values == ply.WIN).sum()      # doctest: +SKIP

A game written in Python (a class with ``start()``, ``moves(p)``,
``play(p, m)`` and ``primitive(p)``, with hashable positions) is explored
from its start and solved by the engine: ``ply.Solver(MyGame())``.

Errors are :class:`PlyError` subclasses carrying the ``ply`` command's
messages; Ctrl-C interrupts a long solve with ``KeyboardInterrupt``.
"""

from ._ply import (
    DRAW,
    LOSE,
    TIE,
    UNKNOWN,
    VALUES,
    WIN,
    ArgumentError,
    Cancelled,
    DatabaseError,
    PlyError,
    Solver,
    __version__,
    games,
    solve,
)

__all__ = [
    "ArgumentError",
    "Cancelled",
    "DatabaseError",
    "DRAW",
    "LOSE",
    "PlyError",
    "Solver",
    "TIE",
    "UNKNOWN",
    "VALUES",
    "WIN",
    "__version__",
    "games",
    "solve",
    "value_name",
]


def value_name(code: int) -> str:
    """The name of a value code from the arrays: ``"win"``, ``"lose"``,
    ``"tie"``, ``"draw"`` or ``"unknown"``."""
    return VALUES[code]
