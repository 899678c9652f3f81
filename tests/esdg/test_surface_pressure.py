#!/usr/bin/env python3
"""The minimum surface pressure a tutorial prints (SquallESDGStats.minps) against the hydrostatic state's
pressure at the highest ground node, computed here independently:

    test_surface_pressure.py MPIEXEC NP MOUNTAIN_WAVE BAROCLINIC [TOL]

1. Schaer's mountain at rest (-schaer_U 0), order 4: x = 0 is a node (the middle LGL node of the elements
   on [-1 km, 1 km]), so the minimum is the constant-N atmosphere's p at z = h0 = 250 m:
   Exner pi = 1 + g^2/(cp T0 N^2) (exp(-N^2 z/g) - 1), p = 1e5 pi^(cp/R) (docs/esdg.md, the Schaer case).
2. The flat channel: the ground pressure of the balanced state is p0 = 1e5 Pa everywhere.
Both to TOL relative (default 1e-12), on NP ranks."""
import math
import re
import subprocess
import sys

mpiexec, np, mountain, channel = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4]
tol = float(sys.argv[5]) if len(sys.argv) > 5 else 1e-12


def min_ps(cmd):
    out = subprocess.run([mpiexec, "-n", np] + cmd + ["-ts_max_steps", "0"], capture_output=True, text=True, timeout=240)
    m = re.search(r"min surface pressure ([0-9.eE+-]+) Pa", out.stdout)
    if out.returncode != 0 or not m:
        sys.exit(f"{cmd[0]} failed or printed no surface pressure (exit {out.returncode}):\n{out.stdout}\n{out.stderr}")
    return float(m.group(1))


g, R, T0, N, h0 = 9.81, 287.0, 280.0, 0.01, 250.0
cp = R * 1.4 / 0.4
pi = 1 + g * g / (cp * T0 * N * N) * (math.exp(-N * N * h0 / g) - 1)
cases = [("Schaer's mountain at rest", [mountain, "-schaer_U", "0", "-esdg_order", "4", "-esdg_gravity", str(g), "-esdg_gas_constant", str(R),
                                         "-schaer_T0", str(T0), "-schaer_N", str(N), "-esdg_terrain_h0", str(h0)], 1e5 * pi ** (cp / R)),
         ("the channel", [channel], 1e5)]
bad = 0
for name, cmd, want in cases:
    got = min_ps(cmd)
    err = abs(got / want - 1)
    print(f"{name}: min surface pressure {got:.12e} Pa, expected {want:.12e}, relative error {err:.1e}")
    bad += err > tol
sys.exit(1 if bad else 0)
