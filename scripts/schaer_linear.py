#!/usr/bin/env python3
"""The steady linear solution of flow over Schaer's mountain, for comparison with squall's mountain wave.

    schaer_linear.py [--U 10] [--N 0.01] [--h0 250] [--a 5000] [--lambda 4000] [--T0 280] [--g 9.81]
                     [--R 287.0] [--gamma 1.4] (--points FILE.csv | --x X --z Z)
    schaer_linear.py --compare SLICE.csv [--zmax 13000] [--zmin 0] [--xmax X] [--max-error E] [physics as above]
    --lower-boundary linear|exact: the boundary condition at z = 0 (linear theory, default) or on the terrain
    (Long's model, scripts/schaer_long.py: the finite-amplitude solution of the same linear equation)

Prints x, z, w (and u', the perturbation of the horizontal wind) at the given points (a CSV with columns
x and z, e.g. a tutorial's slice, or one point). With --compare, reads the slice's x, z and w (the
mountain_wave tutorial's -esdg_slice_y file), evaluates the linear w at its nodes with zmin <= z <= zmax
(default: below the top sponge at 13 km) and |x| <= xmax (default: all), and prints the relative L2 error
||w - w_lin|| / ||w_lin|| over those nodes; with --max-error it exits with status 1 when the error is larger.

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


def solution_w(xs, zs, U, N, h0, a, lam, T0, g, R, gamma, nk=6000):
    """w of solution() at many points at once (numpy when available)"""
    try:
        import numpy as np
    except ImportError:
        return [w for _, _, w, _ in solution(list(zip(xs, zs)), U, N, h0, a, lam, T0, g, R, gamma, nk)]
    l = N / U
    kmax = 2 * math.pi / lam + 12 / a
    dk = kmax / nk
    ks = (np.arange(nk) + 0.5) * dk
    hk = np.array([terrain_hat(k, h0, a, lam) for k in ks])
    ms = np.where(ks < l, np.sqrt(np.abs(l * l - ks * ks)) + 0j, 1j * np.sqrt(np.abs(ks * ks - l * l)))
    out = []
    for i0 in range(0, len(xs), 256):
        x = np.asarray(xs[i0 : i0 + 256])[:, None]
        z = np.asarray(zs[i0 : i0 + 256])[:, None]
        w = (1j * ks * U * hk * np.exp(1j * (ks * x + ms * z))).real.sum(axis=1)
        f = np.sqrt([density_ratio(zz, N, T0, g, R, gamma) for zz in z[:, 0]])
        out.extend(list(f * w * dk / math.pi))
    return out


def long_solution(points, a, w_only=False):
    """(x, z, w, u') of Long's model (the lower boundary condition on the terrain): the linear solution plus
    schaer_long.correction(); also its iterations and boundary residual (w_only: u' of the linear part left 0)"""
    import schaer_long

    lam = getattr(a, "lambda")
    terrain = lambda x: a.h0 * math.exp(-((x / a.a) ** 2)) * math.cos(math.pi * x / lam) ** 2  # noqa: E731
    kcut = 4 * 2 * math.pi / lam + 24 / a.a  # four harmonics of the ripples and the envelope's width
    corr, it, res = schaer_long.correction(points, terrain, a.U, a.N, lambda z: density_ratio(z, a.N, a.T0, a.g, a.R, a.gamma), kcut)
    if w_only:  # the linear w through numpy where it is available
        lin = [(x, z, w, 0.0) for (x, z), w in zip(points, solution_w([p[0] for p in points], [p[1] for p in points], a.U, a.N, a.h0, a.a, lam, a.T0, a.g, a.R, a.gamma, a.nk))]
    else:
        lin = solution(points, a.U, a.N, a.h0, a.a, lam, a.T0, a.g, a.R, a.gamma, a.nk)
    return [(x, z, w + dw, up + du) for (x, z, w, up), (dw, du) in zip(lin, corr)], it, res


def compare(a):
    try:
        with open(a.compare) as f:
            rows = [(float(r["x"]), float(r["z"]), float(r["w"])) for r in csv.DictReader(f)]
    except (OSError, KeyError, ValueError) as e:
        sys.exit(f"schaer_linear.py: cannot read x, z, w from {a.compare}: {e}")
    sel = [r for r in rows if a.zmin <= r[1] <= a.zmax and (a.xmax is None or abs(r[0]) <= a.xmax)]
    if not sel:
        sys.exit(f"schaer_linear.py: no node of {a.compare} in the comparison region")
    how = ""
    if a.lower_boundary == "exact":
        out, it, res = long_solution([(r[0], r[1]) for r in sel], a, w_only=True)
        wl = [w for _, _, w, _ in out]
        how = f"; lower boundary on the terrain (Long's model: {it} iterations, boundary residual {res:.1e} of h0)"
    else:
        wl = solution_w([r[0] for r in sel], [r[1] for r in sel], a.U, a.N, a.h0, a.a, getattr(a, "lambda"), a.T0, a.g, a.R, a.gamma, a.nk)
    num = sum((r[2] - w) ** 2 for r, w in zip(sel, wl))
    den = sum(w * w for w in wl)
    err = math.sqrt(num / den)
    print(f"relative L2 error of w against linear theory: {err:.4f} ({len(sel)} nodes, {a.zmin:g} <= z <= {a.zmax:g} m"
          + (f", |x| <= {a.xmax:g} m" if a.xmax is not None else "") + f"; max|w_lin| {max(abs(w) for w in wl):.4f} m/s{how})")
    if a.max_error is not None and err > a.max_error:
        print(f"schaer_linear.py: the error {err:.4f} exceeds --max-error {a.max_error:g}")
        sys.exit(1)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    for name, val in [("U", 10.0), ("N", 0.01), ("h0", 250.0), ("a", 5000.0), ("lambda", 4000.0), ("T0", 280.0), ("g", 9.81), ("R", 287.0), ("gamma", 1.4)]:
        p.add_argument("--" + name, type=float, default=val)
    p.add_argument("--points", help="CSV with columns x, z")
    p.add_argument("--x", type=float)
    p.add_argument("--z", type=float)
    p.add_argument("--nk", type=int, default=6000, help="quadrature points in k")
    p.add_argument("--compare", help="a slice CSV with columns x, z, w: print the relative L2 error of its w")
    p.add_argument("--zmin", type=float, default=0.0)
    p.add_argument("--zmax", type=float, default=13000.0, help="top of the comparison region (default: the sponge's bottom)")
    p.add_argument("--xmax", type=float, help="compare only where |x| <= xmax (e.g. inside the lateral sponges)")
    p.add_argument("--max-error", type=float, help="exit with status 1 if the relative L2 error exceeds this")
    p.add_argument("--lower-boundary", choices=["linear", "exact"], default="linear", help="boundary condition at z = 0 (linear theory) or on the terrain (Long's model)")
    a = p.parse_args()
    if a.compare:
        compare(a)
        return
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
    sol = long_solution(pts, a)[0] if a.lower_boundary == "exact" else solution(pts, a.U, a.N, a.h0, a.a, getattr(a, "lambda"), a.T0, a.g, a.R, a.gamma, a.nk)
    for x, z, w, up in sol:
        print(f"{x:.10g},{z:.10g},{w:.10g},{up:.10g}")


if __name__ == "__main__":
    main()
