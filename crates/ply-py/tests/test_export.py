"""Exports read back with pyarrow agree, row by row, with `ply solve`."""

import json

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
    assert table.column_names == ["key", "position", "value", "remoteness", "best_moves"]
    solver = ply.Solver(game)
    keys = solver.keys()
    assert table.num_rows == len(keys) and f"exported {len(keys)} positions" in out
    assert table.column("key").to_pylist() == keys.tolist()
    # Every row's value and remoteness, by its position's text.
    values, remoteness = solver.solve_many(table.column("position").to_pylist())
    assert [ply.VALUES[v] for v in values] == table.column("value").to_pylist()
    assert [None if r < 0 else int(r) for r in remoteness] == table.column("remoteness").to_pylist()
    # Best moves too, for up to 3000 rows spread over the table (the Rust
    # test tests/export.rs checks every row's).
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
