"""The scripts under examples/python run and say what they should."""

import subprocess
import sys

from conftest import ROOT

EXAMPLES = ROOT / "examples" / "python"


def run(script, *args, cwd=None):
    done = subprocess.run(
        [sys.executable, str(EXAMPLES / script), *args],
        capture_output=True, text=True, cwd=cwd, timeout=300,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def test_counts_by_remoteness(tmp_path, cli_json):
    out = run("counts_by_remoteness.py", "euler:3x3", str(tmp_path / "e.parquet"))
    report = cli_json("analyze", "euler:3x3")
    assert f"euler:3x3: {report['positions']} positions" in out
    for row in report["by_remoteness"]:
        numbers = [row["win"], row["lose"]] if row["win"] or row["lose"] else []
        if numbers:
            assert any(line.split() == [str(row["remoteness"]), *map(str, numbers)]
                       for line in out.splitlines()), row


def test_python_game():
    out = run("python_game.py")
    assert "put-back-nim from (2, 3, 4)" in out
    assert "retrograde analysis" in out
