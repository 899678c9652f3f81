#!/usr/bin/env python3
"""Render a potential-temperature slice written by a tutorial's -esdg_slice_y file.csv as a PNG.

    python3 scripts/plot_slice.py slice.csv slice.png [--theta0 300] [--title text]

Plots theta - theta0 (the perturbation) in the x-z plane with matplotlib (tricontourf over the
LGL nodes)."""
import argparse
import csv

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402


def main():
    p = argparse.ArgumentParser()
    p.add_argument("csv")
    p.add_argument("png")
    p.add_argument("--theta0", type=float, default=300.0, help="background potential temperature (K)")
    p.add_argument("--title", default="")
    a = p.parse_args()
    x, z, th = [], [], []
    with open(a.csv) as f:
        for row in csv.DictReader(f):
            x.append(float(row["x"]))
            z.append(float(row["z"]))
            th.append(float(row["theta"]) - a.theta0)
    fig, ax = plt.subplots(figsize=(6, 5.5))
    c = ax.tricontourf(x, z, th, levels=24, cmap="RdBu_r")
    fig.colorbar(c, ax=ax, label="potential temperature perturbation (K)")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("z (m)")
    ax.set_aspect("equal")
    ax.set_title(a.title or a.csv)
    fig.tight_layout()
    fig.savefig(a.png, dpi=120)
    print(f"wrote {a.png} ({len(x)} nodes)")


if __name__ == "__main__":
    main()
