"""Built-in games from Python agree with the `ply` command."""

import json

import numpy as np
import pytest

import ply

GAMES = [name for name, _, _ in ply.games()]
# Full Teeko takes minutes to solve without its database, and Connect
# Four's 7x6 start minutes of search: small boards stand in for them.
TOO_LONG = {"teeko": "teeko:4x4", "connect4": "connect4:4x4"}
# The default of every built-in game, and a few small variants.
STARTS = [TOO_LONG.get(g, g) for g in GAMES] + [
    "euler:3x3",
    "tictactoe:3x3x3",
    "treblecross:12",
    "dobutsu:E",
    "dobutsu:C",
]


def test_games_are_the_commands_list(cli):
    code, out, _ = cli("games")
    assert code == 0
    names = [line.split()[0] for line in out.splitlines() if line and not line[0].isspace()]
    assert GAMES == names


def cli_error(cli, *args):
    code, out, err = cli(*args)
    assert code == 2 and out == ""
    assert err.startswith("ply: ")
    return err.strip()[len("ply: "):]


@pytest.mark.parametrize("game", STARTS)
def test_start_and_its_moves_match_ply_solve(game, cli):
    code, out, err = cli("solve", game, "--json")
    if code != 0:
        # Games the command cannot answer (a database needed) fail the same
        # way: an argument error, or (a database missing) a MemoryError.
        with pytest.raises((ply.ArgumentError, MemoryError)) as raised:
            ply.solve(game)
        assert str(raised.value) == err.strip()[len("ply: "):]
        return
    expected = json.loads(out)
    assert ply.solve(game) == expected
    solver = ply.Solver(game)
    assert solver.name == expected["game"]
    assert solver.start == expected["position"]
    for move in expected["moves"][:3]:
        assert solver.solve(move["position"]) == json.loads(
            cli("solve", game, move["position"], "--json")[1]
        )


# Connect Four positions of 4x4 in both forms: the start, move sequences
# (columns from 1) of every stage, a board, a game won by four down
# column 1, and a full board; won, lost and tied ones.
CONNECT4_4X4 = [
    "",
    "1",
    "33",
    "2314",
    "23142314",
    "231423141",
    "..../..../.o../.xx.",
    "1212121",
    "1234123421434321",
]


@pytest.mark.parametrize("position", CONNECT4_4X4)
def test_connect4_agrees_with_ply_solve(position, cli):
    code, out, err = cli("solve", "connect4:4x4", position, "--json")
    assert code == 0, err
    expected = json.loads(out)
    got = ply.solve("connect4:4x4", position)
    assert (got["value"], got["remoteness"]) == (expected["value"], expected["remoteness"])
    assert got == expected


def test_connect4_5x4_from_a_move_sequence(cli):
    code, out, err = cli("solve", "connect4:5x4", "33", "--json")
    assert code == 0, err
    expected = json.loads(out)
    got = ply.solve("connect4:5x4", "33")
    assert got == expected
    # Both discs in the middle column, x below.
    assert got["position"] == "...../...../..o../..x.."


@pytest.mark.parametrize("game", ["lgame", "yehr", "connect4:4x4"])
def test_whole_index_arrays_agree_with_ply_analyze(game, cli_json):
    report = cli_json("analyze", game)
    solver = ply.Solver(game)
    values, remoteness = solver.values(), solver.remoteness()
    assert values.dtype == np.int8 and remoteness.dtype == np.int16
    assert len(values) == len(remoteness) == solver.index_len()
    assert report.get("index_size", solver.index_len()) == solver.index_len()
    keys = solver.keys()
    assert np.all(values[keys] != ply.UNKNOWN)
    assert np.count_nonzero(values) == len(keys)
    # The command counts the positions its game names (see "counted"): the
    # arrays count them the same way, key by key.
    counted, weight = counted_keys(solver, report)
    v, r = values[counted], remoteness[counted]
    assert weight.sum() == report["positions"]
    for name, code in [("win", ply.WIN), ("lose", ply.LOSE), ("tie", ply.TIE), ("draw", ply.DRAW)]:
        assert weight[v == code].sum() == report[name], name
    assert r.max() == report["max_remoteness"]
    for row in report["by_remoteness"]:
        at = r == row["remoteness"]
        assert weight[at & (v == ply.WIN)].sum() == row["win"]
        assert weight[at & (v == ply.LOSE)].sum() == row["lose"]
    assert np.all((r == -1) == ((v == ply.DRAW) | (v == ply.UNKNOWN)))
    # Values and names line up with single solves.
    rng = np.random.default_rng(7)
    sample = rng.choice(keys, size=50, replace=False)
    names = solver.positions(sample)
    many_v, many_r = solver.solve_many(names)
    assert np.array_equal(many_v, values[sample]) and np.array_equal(many_r, remoteness[sample])
    by_key_v, by_key_r = solver.solve_many(sample.astype(np.uint64))
    assert np.array_equal(by_key_v, values[sample]) and np.array_equal(by_key_r, remoteness[sample])
    for key, name in zip(sample[:10], names[:10]):
        single = solver.solve(name)
        assert ply.VALUES[values[key]] == single["value"]
        assert (None if remoteness[key] < 0 else remoteness[key]) == single["remoteness"]


def counted_keys(solver, report):
    """The keys `ply analyze` counts, and the positions each stands for:
    every stored key, or for the L game those with # to move (the first
    half of its index: the other half mirrors it), as the report's
    "counted" says. Connect Four stores one of each mirror pair (each row
    reversed), which stands for both where they differ."""
    keys = solver.keys()
    if report["counted"] != "every position":
        assert report["counted"].startswith("positions with # to move")
        keys = keys[keys < solver.index_len() // 2]
    weight = np.ones(len(keys), dtype=np.int64)
    if solver.name.startswith("connect4"):
        for i, text in enumerate(solver.positions(keys)):
            mirror = "/".join(row[::-1] for row in text.split("/"))
            weight[i] = 1 if mirror == text else 2
    return keys, weight


def test_analyze_is_the_commands(cli_json):
    assert ply.Solver("euler:3x3").analyze() == cli_json("analyze", "euler:3x3")


def test_bad_game_names_raise_the_commands_message(cli):
    for args in (["nosuchgame"], ["euler:9x9x9x9"], ["lgame:4"]):
        message = cli_error(cli, "solve", *args)
        with pytest.raises(ply.ArgumentError) as raised:
            ply.solve(*args)
        assert str(raised.value) == message
        with pytest.raises(ply.ArgumentError):
            ply.Solver(args[0])


def test_bad_positions_raise_the_commands_message(cli):
    for game, position in [("euler:3x3", "nonsense"), ("lgame", "..../..../..../...."), ("yehr", "R/1")]:
        message = cli_error(cli, "solve", game, position)
        with pytest.raises(ply.ArgumentError) as raised:
            ply.solve(game, position)
        assert str(raised.value) == message
        with pytest.raises(ply.ArgumentError) as raised:
            ply.Solver(game).solve_many([ply.Solver(game).start, position])
        assert str(raised.value) == message
    with pytest.raises(ply.ArgumentError):
        ply.Solver("lgame").values(np.array([10**12], dtype=np.uint64))
    with pytest.raises(TypeError):
        ply.solve("lgame", 17)


def test_search_only_games_refuse_tables_clearly():
    solver = ply.Solver("tictactoe:5x5x4")
    with pytest.raises(ply.PlyError) as raised:
        solver.keys()
    assert "keeps no table" in str(raised.value)


def test_corrupt_databases_raise_database_errors(cli, tmp_path):
    code, _, err = cli("analyze", "euler:3x3", "--save", "--db-dir", str(tmp_path))
    assert code == 0, err
    [path] = list(tmp_path.iterdir())
    good = ply.Solver("euler:3x3", db_dir=tmp_path).solve()
    assert good == ply.solve("euler:3x3") | {"source": "database"}
    data = bytearray(path.read_bytes())
    for at in range(len(data) - 64, len(data) - 32):
        data[at] ^= 0xFF
    path.write_bytes(bytes(data))
    message = cli_error(cli, "solve", "euler:3x3", "--db-dir", str(tmp_path))
    with pytest.raises(ply.DatabaseError) as raised:
        ply.Solver("euler:3x3", db_dir=tmp_path).solve()
    assert str(raised.value) == message
    path.write_bytes(b"not a database")
    message = cli_error(cli, "solve", "euler:3x3", "--db-dir", str(tmp_path))
    with pytest.raises(ply.DatabaseError) as raised:
        ply.solve("euler:3x3", db_dir=tmp_path)
    assert str(raised.value) == message
