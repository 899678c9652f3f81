#!/usr/bin/env python3
"""Render a shell level written by SquallESDGWriteShellLevel (the baroclinic_wave tutorial's
-bwave_surface file.csv) as a latitude-longitude map (PNG), and print the minimum surface pressure.

    python3 scripts/plot_latlon.py surface.csv map.png [--field p] [--lon-min 0] [--lat-min -90 --lat-max 90]
                                   [--levels 940,1020,5] [--title text]

Contours (matplotlib tricontourf over the LGL nodes, which lie on the cube faces' equiangular grids) of the
pressure in hPa, or of T (K), u, v, w (m/s). Longitudes are shown in [lon-min, lon-min + 360), the nodes near
the seam copied across it so that the map has no gap. Prints the minimum of the pressure column (hPa) and
the latitude and longitude of the node where it lies (no interpolation between nodes)."""
import argparse
import csv
import sys


def main():
    p = argparse.ArgumentParser()
    p.add_argument("csv")
    p.add_argument("png")
    p.add_argument("--field", default="p", choices=["p", "T", "u", "v", "w"])
    p.add_argument("--lon-min", type=float, default=0.0, help="left edge of the map (degrees east)")
    p.add_argument("--lat-min", type=float, default=-90.0)
    p.add_argument("--lat-max", type=float, default=90.0)
    p.add_argument("--levels", default="", help="min,max,step of the contour levels (default: automatic)")
    p.add_argument("--title", default="")
    a = p.parse_args()
    lat, lon, val, ps = [], [], [], []
    try:
        with open(a.csv) as f:
            r = csv.DictReader(f)
            missing = {"lat", "lon", "p", a.field} - set(r.fieldnames or [])
            if missing:
                sys.exit(f"plot_latlon.py: {a.csv} has no column {', '.join(sorted(missing))} (expected the CSV of SquallESDGWriteShellLevel)")
            for row in r:
                lat.append(float(row["lat"]))
                lon.append(float(row["lon"]))
                ps.append(float(row["p"]) / 100)
                val.append(float(row[a.field]) / (100 if a.field == "p" else 1))
    except OSError as e:
        sys.exit(f"plot_latlon.py: cannot read {a.csv}: {e.strerror}")
    except ValueError as e:
        sys.exit(f"plot_latlon.py: {a.csv} line {len(lat) + 2}: {e}")
    if len(lat) < 3:
        sys.exit(f"plot_latlon.py: {a.csv} holds {len(lat)} nodes, not a level to contour")
    if not (a.lat_min < a.lat_max):
        sys.exit(f"plot_latlon.py: --lat-min {a.lat_min} must be below --lat-max {a.lat_max}")
    i = min(range(len(ps)), key=ps.__getitem__)
    print(f"minimum pressure {ps[i]:.2f} hPa at {lon[i] % 360:.2f} E, {lat[i]:.2f} N ({len(ps)} nodes; maximum {max(ps):.2f} hPa)")

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.tri as mtri
    import numpy as np

    x = (np.array(lon) - a.lon_min) % 360 + a.lon_min
    y = np.array(lat)
    v = np.array(val)
    # copies across the seam, so that triangles reach both edges of the map
    lo, hi = x < a.lon_min + 30, x > a.lon_min + 330
    x = np.concatenate([x, x[lo] + 360, x[hi] - 360])
    y = np.concatenate([y, y[lo], y[hi]])
    v = np.concatenate([v, v[lo], v[hi]])
    # duplicate nodes (element faces) share values; the triangulation wants unique points
    _, keep = np.unique(np.round(np.stack([x, y], 1), 9), axis=0, return_index=True)
    x, y, v = x[keep], y[keep], v[keep]
    levels = None
    if a.levels:
        try:
            l0, l1, dl = (float(s) for s in a.levels.split(","))
        except ValueError:
            sys.exit(f"plot_latlon.py: --levels {a.levels}: give min,max,step")
        levels = np.arange(l0, l1 + 0.5 * dl, dl)
    fig, ax = plt.subplots(figsize=(12, 6 * (a.lat_max - a.lat_min) / 180 + 1))
    cs = ax.tricontourf(mtri.Triangulation(x, y), v, levels=levels if levels is not None else 20, cmap="viridis", extend="both")
    units = {"p": "hPa", "T": "K", "u": "m/s", "v": "m/s", "w": "m/s"}[a.field]
    fig.colorbar(cs, ax=ax, label=f"{'surface pressure' if a.field == 'p' else a.field} ({units})")
    if a.field == "p":
        ax.plot([(lon[i] - a.lon_min) % 360 + a.lon_min], [lat[i]], "r+", ms=12)
    ax.set_xlim(a.lon_min, a.lon_min + 360)
    ax.set_ylim(a.lat_min, a.lat_max)
    ax.set_aspect("equal")
    ax.set_xlabel("longitude (degrees east)")
    ax.set_ylabel("latitude (degrees north)")
    ax.set_title(a.title or f"{a.csv}: minimum {ps[i]:.2f} hPa at {lon[i] % 360:.1f} E, {lat[i]:.1f} N")
    fig.tight_layout()
    fig.savefig(a.png, dpi=120)


if __name__ == "__main__":
    main()
