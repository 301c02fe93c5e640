"""Shared fixtures: the `ply` binary cargo built, run with the same empty
database directory as the Python side, so both answer from the same place."""

import json
import os
import pathlib
import subprocess

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[3]


def ply_binary() -> pathlib.Path:
    target = pathlib.Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    path = pathlib.Path(os.environ.get("PLY_BIN", target / "release" / "ply"))
    if not path.exists():
        raise RuntimeError(f"{path} is missing: run `cargo build --release` first")
    return path


@pytest.fixture(scope="session")
def db_dir(tmp_path_factory):
    """An empty database directory, made the process's default."""
    path = tmp_path_factory.mktemp("db")
    os.environ["PLY_DB_DIR"] = str(path)
    return path


@pytest.fixture(scope="session")
def cli(db_dir):
    """Runs `ply ARGS...` and returns (exit code, stdout, stderr)."""
    binary = ply_binary()

    def run(*args):
        env = dict(os.environ, PLY_DB_DIR=str(db_dir))
        done = subprocess.run(
            [str(binary), *args], capture_output=True, text=True, env=env, timeout=600
        )
        return done.returncode, done.stdout, done.stderr

    return run


@pytest.fixture(scope="session")
def cli_json(cli):
    """Runs `ply ARGS... --json` and returns the parsed object."""

    def run(*args):
        code, out, err = cli(*args, "--json")
        assert code == 0, err
        return json.loads(out)

    return run
