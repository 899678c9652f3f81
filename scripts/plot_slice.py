#!/usr/bin/env python3
"""Render a slice written by a tutorial's -esdg_slice_y file.csv as a PNG.

    python3 scripts/plot_slice.py slice.csv slice.png [--field theta|w] [--theta0 300] [--title text]
                                  [--xlim X0 X1] [--zlim Z0 Z1]

Plots theta - theta0 (the perturbation) or the vertical velocity w in the x-z plane with matplotlib
(tricontourf over the LGL nodes), over the nodes inside --xlim and --zlim. The axes are to scale unless the slice is much wider than tall (a channel 40000 km long
and 30 km high), where each axis gets its own scale; --aspect equal|auto forces either."""
import argparse
import csv
import sys


def main():
    p = argparse.ArgumentParser()
    p.add_argument("csv")
    p.add_argument("png")
    p.add_argument("--theta0", type=float, default=300.0, help="background potential temperature (K)")
    p.add_argument("--title", default="")
    p.add_argument("--field", choices=["theta", "w"], default="theta", help="potential temperature perturbation or vertical velocity")
    p.add_argument("--xlim", type=float, nargs=2, metavar=("X0", "X1"), help="plot only the nodes with X0 <= x <= X1")
    p.add_argument("--zlim", type=float, nargs=2, metavar=("Z0", "Z1"), help="plot only the nodes with Z0 <= z <= Z1")
    p.add_argument("--aspect", choices=["equal", "auto"], help="to scale (equal) or not (auto); default: equal unless width/height > 10")
    a = p.parse_args()
    x, z, th = [], [], []
    try:
        with open(a.csv) as f:
            r = csv.DictReader(f)
            missing = {"x", "z", a.field} - set(r.fieldnames or [])
            if missing:
                sys.exit(f"plot_slice.py: {a.csv} has no column {', '.join(sorted(missing))} (expected the CSV of a tutorial's -esdg_slice_y)")
            for row in r:
                xv, zv = float(row["x"]), float(row["z"])
                if (a.xlim and not a.xlim[0] <= xv <= a.xlim[1]) or (a.zlim and not a.zlim[0] <= zv <= a.zlim[1]):
                    continue
                x.append(xv)
                z.append(zv)
                th.append(float(row["theta"]) - a.theta0 if a.field == "theta" else float(row["w"]))
    except OSError as e:
        sys.exit(f"plot_slice.py: cannot read {a.csv}: {e.strerror}")
    except ValueError as e:
        sys.exit(f"plot_slice.py: {a.csv} line {r.line_num}: {e}")
    if len(x) < 3 or len(set(x)) < 2 or len(set(z)) < 2:
        sys.exit(f"plot_slice.py: {a.csv} holds {len(x)} nodes, not a plane to contour (is -esdg_slice_y_value on a plane of nodes?)")
    width, height = max(x) - min(x), max(z) - min(z)
    aspect = a.aspect or ("equal" if width <= 10 * height else "auto")

    import matplotlib  # only once the input is known to be good: the checks above need no matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    fig, ax = plt.subplots(figsize=(6, 5.5) if aspect == "equal" else (10, 4))
    c = ax.tricontourf(x, z, th, levels=24, cmap="RdBu_r")
    fig.colorbar(c, ax=ax, label="potential temperature perturbation (K)" if a.field == "theta" else "vertical velocity w (m/s)")
    ax.set_xlabel("x (m)")
    ax.set_ylabel("z (m)")
    ax.set_aspect(aspect)
    ax.set_title(a.title or a.csv)
    fig.tight_layout()
    fig.savefig(a.png, dpi=120)
    print(f"wrote {a.png} ({len(x)} nodes)")


if __name__ == "__main__":
    main()
