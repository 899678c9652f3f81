#!/usr/bin/env python3
"""The steady linear solution of flow over Schaer's mountain, for comparison with squall's mountain wave.

    schaer_linear.py [--U 10] [--N 0.01] [--h0 250] [--a 5000] [--lambda 4000] [--T0 280] [--g 9.81]
                     [--R 287.0] [--gamma 1.4] (--points FILE.csv | --x X --z Z)

Prints x, z, w (and u', the perturbation of the horizontal wind) at the given points (a CSV with columns
x and z, e.g. a tutorial's slice, or one point).

Theory: linear, steady, non-hydrostatic flow of constant wind U and Brunt-Vaisala frequency N over the
terrain h(x) = h0 exp(-(x/a)^2) cos^2(pi x/lambda) (C. Schaer et al., Mon. Wea. Rev. 130 (2002) 2459-2480,
their section 5a; the solution method of their appendix). The streamline displacement has the Fourier
transform eta(k, z) = h(k) exp(i m z), with m^2 = N^2/U^2 - k^2; waves with |k| < N/U propagate
(m = sign(k) sqrt(...), energy upward), the others decay (m = i sqrt(k^2 - N^2/U^2)). Then
w = U d(eta)/dx and u' = -U d(eta)/dz. For the compressible atmosphere the amplitude is scaled by
sqrt(rho(0)/rho(z)), the factor by which linear waves grow as the density of the background decreases
(the Boussinesq solution above times the WKB amplitude of anelastic theory), with rho(z) that of the
hydrostatic constant-N atmosphere of surface temperature T0.

The transform of the terrain is exact: with K = 2 pi/lambda,
h(k) = h0 a sqrt(pi)/2 [exp(-(k a/2)^2) + (exp(-((k - K) a/2)^2) + exp(-((k + K) a/2)^2))/2],
and the inverse transform is a quadrature over k (trapezoidal, fine enough for the 4 km ripples)."""
import argparse
import cmath
import csv
import math
import sys


def terrain_hat(k, h0, a, lam):
    K = 2 * math.pi / lam
    g = lambda s: math.exp(-(s * a / 2) ** 2)  # noqa: E731
    return h0 * a * math.sqrt(math.pi) / 2 * (g(k) + (g(k - K) + g(k + K)) / 2)


def density_ratio(z, N, T0, g, R, gamma):
    """rho(0)/rho(z) of the hydrostatic atmosphere with theta = theta0 exp(N^2 z/g), theta0 = T0"""
    cp = gamma * R / (gamma - 1)
    kappa = R / cp
    exner = 1 + g * g / (cp * T0 * N * N) * (math.exp(-N * N * z / g) - 1)
    theta = T0 * math.exp(N * N * z / g)
    # rho = p0 exner^(cp/R) / (R theta exner) = p0 exner^(1/kappa - 1)/(R theta)
    return (1 / T0) / (exner ** (1 / kappa - 1) / theta)


def solution(points, U, N, h0, a, lam, T0, g, R, gamma, nk=6000):
    l = N / U
    kmax = 2 * math.pi / lam + 12 / a  # beyond it the transform of the terrain is below 1e-15 of its peak
    dk = kmax / nk
    ks = [(i + 0.5) * dk for i in range(nk)]  # midpoints: k = 0 contributes nothing to w
    hk = [terrain_hat(k, h0, a, lam) for k in ks]
    ms = [math.sqrt(l * l - k * k) if k < l else 1j * math.sqrt(k * k - l * l) for k in ks]
    out = []
    for x, z in points:
        w = up = 0.0
        for k, h, m in zip(ks, hk, ms):
            e = h * cmath.exp(1j * (k * x + m * z))
            w += (1j * k * U * e).real
            up += (-1j * m * U * e).real
        f = math.sqrt(density_ratio(z, N, T0, g, R, gamma))
        # real field = (1/pi) Re int_0^inf ...
        out.append((x, z, f * w * dk / math.pi, f * up * dk / math.pi))
    return out


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for name, val in [("U", 10.0), ("N", 0.01), ("h0", 250.0), ("a", 5000.0), ("lambda", 4000.0), ("T0", 280.0), ("g", 9.81), ("R", 287.0), ("gamma", 1.4)]:
        p.add_argument("--" + name, type=float, default=val)
    p.add_argument("--points", help="CSV with columns x, z")
    p.add_argument("--x", type=float)
    p.add_argument("--z", type=float)
    p.add_argument("--nk", type=int, default=6000, help="quadrature points in k")
    a = p.parse_args()
    if a.points:
        try:
            with open(a.points) as f:
                pts = [(float(r["x"]), float(r["z"])) for r in csv.DictReader(f)]
        except (OSError, KeyError, ValueError) as e:
            sys.exit(f"schaer_linear.py: cannot read points x, z from {a.points}: {e}")
    elif a.x is not None and a.z is not None:
        pts = [(a.x, a.z)]
    else:
        sys.exit("schaer_linear.py: give --points FILE.csv or --x X --z Z")
    print("x,z,w,u_prime")
    for x, z, w, up in solution(pts, a.U, a.N, a.h0, a.a, getattr(a, "lambda"), a.T0, a.g, a.R, a.gamma, a.nk):
        print(f"{x:.10g},{z:.10g},{w:.10g},{up:.10g}")


if __name__ == "__main__":
    main()
