"""Steady flow over Schaer's mountain with the lower boundary condition on the terrain itself (Long's model),
for scripts/schaer_linear.py --lower-boundary exact.

With constant U and N, the streamline displacement delta(x, z) of steady Boussinesq flow satisfies the linear
Helmholtz equation delta_xx + delta_zz + (N/U)^2 delta = 0 exactly (R. R. Long, "Some aspects of the flow of
stratified fluids. I. A theoretical investigation", Tellus 5 (1953) 42-58); the only nonlinearity is that the
lowest streamline follows the terrain, delta(x, h(x)) = h(x), where linear theory imposes delta(x, 0) = h(x).
The difference is of the order of N h0 / U (0.25 in Schaer's case). Here delta is a Fourier series on a wide
periodic interval [-L/2, L/2) (the terrain decays to round-off well inside it) with the radiation condition of
linear theory, m = sign(k) sqrt(l^2 - k^2) for |k| < l = N/U, m = i sqrt(k^2 - l^2) beyond; its boundary values
delta(x, 0) = d(x) are found by the fixed-point iteration d <- d + h - delta(x, h(x)), with delta(x, h) from the
Taylor series of delta in z about 0 (each term one inverse FFT). Then w = U delta_x and u' = -U delta_z, as in
linear theory, and the amplitude grows with sqrt(rho(0)/rho(z)) as there. Pure Python: a radix-2 FFT, no numpy."""
import cmath
import math


def fft(a, inverse=False):
    """radix-2 FFT of a list whose length is a power of 2 (inverse: without the 1/n)"""
    n = len(a)
    a = list(a)
    j = 0
    for i in range(1, n):  # bit reversal
        bit = n >> 1
        while j & bit:
            j ^= bit
            bit >>= 1
        j |= bit
        if i < j:
            a[i], a[j] = a[j], a[i]
    size = 2
    sign = 1 if inverse else -1
    while size <= n:
        wn = cmath.exp(sign * 2j * math.pi / size)
        half = size // 2
        tw = [wn**t for t in range(half)]
        for s in range(0, n, size):
            for t in range(half):
                u, v = a[s + t], a[s + t + half] * tw[t]
                a[s + t], a[s + t + half] = u + v, u - v
        size *= 2
    return a


def vertical_wavenumbers(n, L, l):
    """k and m of the FFT's modes (m = 0 for the mean: a uniform displacement stays uniform)"""
    ks, ms = [], []
    for j in range(n):
        k = 2 * math.pi * (j if j < n // 2 else j - n) / L
        if k == 0:
            m = 0.0
        elif abs(k) < l:
            m = math.copysign(math.sqrt(l * l - k * k), k)
        else:
            m = 1j * math.sqrt(k * k - l * l)
        ks.append(k)
        ms.append(m)
    return ks, ms


def boundary_displacement(terrain, U, N, kcut, L=204800.0, n=4096, tol=1e-6, max_iter=300, terms=40):
    """Fourier coefficients c_j of d(x) = delta(x, 0) on x_i = -L/2 + i L/n, such that delta(x, h(x)) = h(x)
    to tol relative to max |h| (2.5e-4 m at h0 = 250 m: far below the model's error), or until it stalls; modes with |k| > kcut are set to 0 (the terrain's and its first harmonics'
    spectrum lies below it; above it the Taylor series in z would lose digits to exp(|m| h)); returns (ks, ms,
    c, iterations, residual)"""
    l = N / U
    xs = [-L / 2 + i * L / n for i in range(n)]
    h = [terrain(x) for x in xs]
    ks, ms = vertical_wavenumbers(n, L, l)
    d = list(h)
    res, hist = float("inf"), []
    for it in range(1, max_iter + 1):
        c = [cj if abs(k) <= kcut else 0 for cj, k in zip(fft(d), ks)]
        # delta(x, h) = sum_p h^p / p! d^p delta / dz^p (x, 0)
        dh = [0.0] * n
        hp = [1.0] * n  # h^p / p!
        for p in range(terms):
            term = fft([cj * (1j * m) ** p for cj, m in zip(c, ms)], inverse=True)
            dh = [a + b * t.real / n for a, b, t in zip(dh, hp, term)]
            hp = [b * hh / (p + 1) for b, hh in zip(hp, h)]
            if max(abs(b) for b in hp) * max(abs(t) for t in term) / n < 1e-16 * max(map(abs, h)):
                break
        r = [hh - x for hh, x in zip(h, dh)]
        res = max(map(abs, r)) / max(map(abs, h))
        d = [a + b for a, b in zip(d, r)]
        hist.append(res)
        # done, or stalled: the modes above kcut that an exact fit would need set a floor
        if res < tol or (len(hist) > 10 and res > 0.99 * min(hist[:-10])):
            break
    return ks, ms, [cj if abs(k) <= kcut else 0 for cj, k in zip(fft(d), ks)], it, res


def correction(points, terrain, U, N, density_ratio, kcut, L=204800.0, n=4096):
    """(w, u') of Long's model minus those of linear theory at the points, both as Fourier series on the same
    periodic interval, so that the interval's own error (its discrete wavenumbers against the integral of the
    unbounded plane, about 0.5% in w) cancels: added to the linear solution of the integral it gives Long's.
    Also the iterations and the residual of the boundary condition."""
    ks, ms, c, it, res = boundary_displacement(terrain, U, N, kcut, L, n)
    c0 = fft([terrain(-L / 2 + i * L / n) for i in range(n)])
    modes = [(k, m, cj - c0j) for k, m, cj, c0j in zip(ks, ms, c, c0) if 0 < k <= kcut]
    out = []
    for x, z in points:
        w = up = 0.0
        for k, m, dc in modes:
            e = dc * cmath.exp(1j * (k * (x + L / 2) + m * z))
            w += (1j * k * U * e).real
            up += (-1j * m * U * e).real
        f = math.sqrt(density_ratio(z))
        out.append((2 * f * w / n, 2 * f * up / n))
    return out, it, res

