"""Exports read back with pyarrow agree, row by row, with `ply solve`."""

import json

import numpy as np
import pyarrow
import pyarrow.csv
import pyarrow.parquet as pq
import pytest

import ply


def best_moves(report):
    """The moves of a solve report that achieve its value and remoteness."""
    flip = {"win": "lose", "lose": "win", "tie": "tie", "draw": "draw"}
    want_r = None if report["remoteness"] is None else report["remoteness"] - 1
    return [
        m["move"]
        for m in report["moves"]
        if m["value"] == flip[report["value"]] and m["remoteness"] == want_r
    ]


@pytest.mark.parametrize("game", ["lgame", "euler:3x3", "euler", "dobutsu:E"])
def test_parquet_rows_agree_with_ply_solve(game, tmp_path, cli):
    path = tmp_path / "out.parquet"
    code, out, err = cli("export", game, "--format", "parquet", "--out", str(path))
    assert code == 0, err
    table = pq.read_table(path)
    board = ["board"] if game.startswith(("lgame", "euler")) else []
    assert table.column_names == ["key", "position", "value", "remoteness", "best_moves"] + board
    solver = ply.Solver(game)
    keys = solver.keys()
    assert table.num_rows == len(keys) and f"exported {len(keys)} positions" in out
    assert table.column("key").to_pylist() == keys.tolist()
    # Every row's value and remoteness, by its position's text.
    values, remoteness = solver.solve_many(table.column("position").to_pylist())
    assert [ply.VALUES[v] for v in values] == table.column("value").to_pylist()
    assert [None if r < 0 else int(r) for r in remoteness] == table.column("remoteness").to_pylist()
    # Best moves too, for up to 3000 rows spread over the table (the Rust
    # test tests/suite/export.rs checks every row's).
    rows = table.to_pylist()
    for row in rows[:: max(1, len(rows) // 3000)]:
        report = solver.solve(row["position"])
        assert report["position"] == row["position"]
        assert (row["value"], row["remoteness"]) == (report["value"], report["remoteness"])
        assert row["best_moves"] == best_moves(report)
    # A few rows against the command itself.
    for row in rows[:: max(1, len(rows) // 5)]:
        code, out, _ = cli("solve", game, row["position"], "--json")
        report = json.loads(out)
        assert (row["value"], row["remoteness"], row["best_moves"]) == (
            report["value"], report["remoteness"], best_moves(report))


def test_csv_and_python_export_match_parquet(tmp_path, cli):
    parquet, csv = tmp_path / "a.parquet", tmp_path / "a.csv"
    assert ply.Solver("lgame").export(parquet) > 0
    assert ply.Solver("lgame").export(csv, "csv") > 0
    table = pq.read_table(parquet).to_pylist()
    text = pyarrow.csv.read_csv(
        csv, convert_options=pyarrow.csv.ConvertOptions(strings_can_be_null=False)
    ).to_pylist()
    assert len(text) == len(table)
    for a, b in zip(table, text):
        assert a["key"] == b["key"] and a["position"] == b["position"] and a["value"] == b["value"]
        assert a["remoteness"] == b["remoteness"]
        assert " ".join(a["best_moves"]) == (b["best_moves"] or "")
    for a, b in zip(table, text):
        assert " ".join(map(str, a["board"])) == b["board"]  # bytes: a code per cell
    bare = tmp_path / "bare.parquet"
    assert ply.Solver("lgame").export(bare, best_moves=False) == len(table)
    assert pq.read_table(bare).to_pylist() == [
        {k: v for k, v in row.items() if k != "best_moves"} for row in table
    ]
    bare.unlink()
    with pytest.raises(ply.ArgumentError):
        ply.Solver("lgame").export(tmp_path / "x", "xlsx")
    with pytest.raises(ply.PlyError):
        ply.Solver("tictactoe:5x5x4").export(tmp_path / "y.parquet")
    assert not (tmp_path / "y.parquet").exists()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["a.csv", "a.parquet"]


# The text's character for each code of the board column, by game.
TEXT_OF_CODE = {"lgame": ".#*x", "euler": ".X", "connect4": ".xo"}


@pytest.mark.parametrize("game", ["lgame", "euler", "euler:3x4", "connect4:4x4"])
def test_board_column_agrees_with_the_position_text(game, tmp_path, cli):
    path = tmp_path / "b.parquet"
    code, _, err = cli("export", game, "--format", "parquet", "--no-moves", "--out", str(path))
    assert code == 0, err
    schema = pq.read_schema(path)
    legend = json.loads(schema.metadata[b"ply.board"])
    rows, cols = legend["rows"], legend["cols"]
    assert schema.field("board").type == pyarrow.binary(rows * cols)
    chars = TEXT_OF_CODE[game.split(":")[0]]
    assert sorted(legend["codes"]) == [str(c) for c in range(len(chars))]
    assert legend["codes"]["0"] == "empty"
    table = pq.read_table(path)
    cells = b"".join(table.column("board").to_pylist())
    boards = np.frombuffer(cells, dtype=np.int8).reshape(-1, rows * cols)
    assert boards.shape[0] == table.num_rows > 0
    # Every row: cell by cell, row-major from the top left, as its text has them.
    for text, board in zip(table.column("position").to_pylist(), boards):
        squares = "".join(text.split("/")[:rows])
        assert len(squares) == rows * cols
        assert "".join(chars[c] for c in board) == squares, text
    # Every code turns up.
    assert set(boards.flatten().tolist()) == set(range(len(chars)))


def test_games_without_a_tensor_have_no_board_column(tmp_path, cli):
    path = tmp_path / "t.parquet"
    code, _, err = cli(
        "export", "yehr", "--no-moves", "--format", "parquet", "--out", str(path)
    )
    assert code == 0, err
    schema = pq.read_schema(path)
    assert "board" not in schema.names
    assert b"ply.board" not in (schema.metadata or {})
