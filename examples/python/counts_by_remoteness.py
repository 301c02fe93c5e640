"""Export a solved game to Parquet and count its positions by value and
remoteness with pandas.

    python examples/python/counts_by_remoteness.py [GAME] [FILE]

GAME defaults to lgame; FILE to GAME.parquet in the current directory.
The same file comes from the command line with
`ply export GAME --format parquet --out FILE`.
"""

import sys

import pandas as pd

import ply

game = sys.argv[1] if len(sys.argv) > 1 else "lgame"
path = sys.argv[2] if len(sys.argv) > 2 else f"{game.replace(':', '-')}.parquet"

rows = ply.Solver(game).export(path, "parquet")
df = pd.read_parquet(path, columns=["value", "remoteness"])
print(f"{game}: {rows} positions in {path}")
print(df["value"].value_counts().to_string())
# Draws have no remoteness: count them apart.
counts = (
    df.dropna(subset=["remoteness"])
    .astype({"remoteness": int})
    .pivot_table(index="remoteness", columns="value", aggfunc="size", fill_value=0, observed=True)
)
print(counts.to_string())
