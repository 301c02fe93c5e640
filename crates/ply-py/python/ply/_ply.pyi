"""Type stubs for ply's extension module (re-exported by ``ply``)."""

from os import PathLike
from typing import Any, Hashable, Iterable, Literal, Optional, Protocol, Sequence, Union

import numpy as np
import numpy.typing as npt

__version__: str

UNKNOWN: int
"""Value code of a key with no solved position (0)."""
WIN: int
"""Value code: the player to move wins (1)."""
LOSE: int
"""Value code: the player to move loses (2)."""
TIE: int
"""Value code: the game ends level (3)."""
DRAW: int
"""Value code: play never ends (4)."""
VALUES: list[str]
"""Value names by code: ``["unknown", "win", "lose", "tie", "draw"]``."""

class PlyError(Exception):
    """The base of every error ply raises; the message is the line the
    ``ply`` command prints."""

class ArgumentError(PlyError):
    """A bad argument: an unknown game, bad parameters, a malformed or
    impossible position."""

class DatabaseError(PlyError):
    """A solved database is unreadable, corrupt or made for something else."""

class Cancelled(PlyError):
    """The work was stopped before it finished."""

class PythonGame(Protocol):
    """What a game written in Python provides. Positions must be hashable;
    ``primitive`` returns ``None`` while play goes on, else ``"win"``,
    ``"lose"`` or ``"tie"`` for the player to move. A position that is not
    primitive and has no moves is a loss for the player to move. An
    optional ``name`` attribute names the game.

    A game may define ``children(position)`` in place of ``moves`` and
    ``play``: the ``(move, child)`` pairs of every move, in one call. It
    is used when present and is quicker (one Python call per position, not
    one per move). Moves must not change once the game is explored: they
    are asked again when :meth:`Solver.solve` lists a position's moves."""

    def start(self) -> Hashable: ...
    def moves(self, position: Any) -> Iterable[Any]: ...
    def play(self, position: Any, move: Any) -> Hashable: ...
    def primitive(self, position: Any) -> Optional[str]: ...

class PythonGameWithChildren(Protocol):
    """A game written in Python that gives each position's moves and the
    positions they lead to in one call (see :class:`PythonGame`)."""

    def start(self) -> Hashable: ...
    def children(self, position: Any) -> Iterable[tuple[Any, Hashable]]: ...
    def primitive(self, position: Any) -> Optional[str]: ...

Game = Union[str, PythonGame, PythonGameWithChildren]
Keys = npt.NDArray[np.uint64]

def games() -> list[tuple[str, str, str]]:
    """The built-in games as ``ply games`` lists them: ``(name, summary,
    variants)``."""

def solve(
    game: Game,
    position: Optional[Any] = None,
    db_dir: Optional[Union[str, PathLike[str]]] = None,
) -> dict[str, Any]:
    """The value of ``position`` (the start if ``None``) and of every move
    from it: the dict ``ply solve --json`` prints (``game``, ``position``,
    ``value``, ``remoteness``, ``moves``, and ``nimber``, ``notes`` or
    ``source`` where the command prints them)."""

class Solver:
    """A game opened once and asked many things.

    ``game`` is a built-in game's name (``NAME`` or ``NAME:PARAMS``),
    answered from its database in ``db_dir`` (else ``$PLY_DB_DIR``, else
    the platform directory) when there is one and solved on first use
    otherwise; or a game written in Python, explored from its start and
    solved at once (memoised search without cycles, retrograde analysis
    with).

    Keys: a built-in game's positions are numbered by its index (or by its
    symmetry classes' canonical index); a Python game's by the order they
    were reached, the start being 0.
    """

    def __init__(
        self, game: Game, db_dir: Optional[Union[str, PathLike[str]]] = None
    ) -> None: ...
    @property
    def name(self) -> str:
        """The game's full name with parameters."""
    @property
    def start(self) -> Any:
        """The start position (text, or the object for a Python game)."""
    def solve(self, position: Optional[Any] = None) -> dict[str, Any]:
        """As :func:`solve`."""
    def solve_many(
        self, positions: Union[Sequence[Any], Keys]
    ) -> tuple[npt.NDArray[np.int8], npt.NDArray[np.int16]]:
        """Value codes and remoteness (-1 for none) of each position: texts
        or keys (a uint64 array) for a built-in game, objects for a Python
        game. Raises ArgumentError naming the first bad position."""
    def index_len(self) -> int:
        """The size of the key space (positions reached for a Python game)."""
    def keys(self) -> Keys:
        """The keys holding a solved position, increasing."""
    def values(self, keys: Optional[Keys] = None) -> npt.NDArray[np.int8]:
        """Value codes of ``keys``, or of every key of the index;
        ``UNKNOWN`` where no position is stored."""
    def remoteness(self, keys: Optional[Keys] = None) -> npt.NDArray[np.int16]:
        """Remoteness of ``keys``, or of every key of the index; -1 for a
        draw and where no position is stored."""
    def positions(self, keys: Optional[Keys] = None) -> list[Any]:
        """The positions at ``keys``, or at every key of the index: texts
        (``None`` where a key names no position), or objects for a Python
        game."""
    def analyze(self, save: bool = False) -> dict[str, Any]:
        """The census ``ply analyze --json`` prints; with ``save``, the
        database is written into the store too."""
    def export(
        self,
        path: Union[str, PathLike[str]],
        format: Literal["parquet", "csv"] = "parquet",
        best_moves: bool = True,
    ) -> int:
        """Writes the strong solution as ``ply export`` does (columns key,
        position, value, remoteness, best_moves unless ``best_moves`` is
        false, as ``--no-moves``, and board, a byte per cell, for a game
        whose board is written as numbers, its legend in the schema
        metadata ``ply.board``); returns the rows written."""
