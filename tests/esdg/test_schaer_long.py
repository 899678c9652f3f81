#!/usr/bin/env python3
"""Checks of scripts/schaer_long.py (Long's model for Schaer's mountain) against linear theory:
1. the boundary condition delta(x, h(x)) = h(x) holds to 1e-4 of h0 at h0 = 250 m;
2. as h0 -> 0 Long's w tends to linear theory's: at h0 = 1 m within 0.5% (relative L2 over sample points);
3. the finite-amplitude difference is first order in h0: its relative size at 250 m over that at 25 m lies in
   [7, 13] (10 for a first-order effect)."""
import math
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "scripts"))
import schaer_linear  # noqa: E402

POINTS = [(x, z) for x in (-12000.0, -6000.0, -2500.0, 0.0, 1500.0, 4000.0, 9000.0) for z in (300.0, 1500.0, 4000.0, 7000.0, 11000.0)]


def difference(h0):
    """relative L2 difference of w (Long against linear) over the points, and the boundary residual"""
    a = type("Args", (), {"U": 10.0, "N": 0.01, "h0": h0, "a": 5000.0, "lambda": 4000.0, "T0": 280.0, "g": 9.81, "R": 287.0, "gamma": 1.4, "nk": 6000})()
    lin = schaer_linear.solution(POINTS, a.U, a.N, h0, a.a, 4000.0, a.T0, a.g, a.R, a.gamma, a.nk)
    lng, it, res = schaer_linear.long_solution(POINTS, a)
    num = sum((p[2] - q[2]) ** 2 for p, q in zip(lng, lin))
    den = sum(q[2] ** 2 for q in lin)
    return math.sqrt(num / den), it, res


def main():
    ok = True
    d250, it, res = difference(250.0)
    print(f"h0 = 250 m: Long's w differs from linear theory's by {d250:.4f} (relative L2), boundary residual {res:.1e} of h0 after {it} iterations")
    ok &= res < 1e-4
    d25, _, _ = difference(25.0)
    d1, _, _ = difference(1.0)
    print(f"h0 = 25 m: {d25:.5f}; h0 = 1 m: {d1:.5f}; ratio 250 m / 25 m: {d250 / d25:.2f}")
    ok &= d1 < 5e-3 and 7 <= d250 / d25 <= 13
    if not ok:
        sys.exit("test_schaer_long.py: a check failed (residual < 1e-4, h0 = 1 m within 0.5%, ratio in [7, 13])")


if __name__ == "__main__":
    main()
