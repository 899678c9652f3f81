#!/usr/bin/env python3
"""Shared-memory wavefronts of the ESDG half sweep's pair phase at N = 4 (Nq = 5, one element of 125 threads per block),
by the rule of 128-bit accesses: a warp's request is served in phases of 8 threads, and a phase takes as many
wavefronts as the most distinct addresses any one 4-byte bank receives. Counts, per direction and step o of the cyclic
partner assignment, the partner loads (5 per pair), the share stores (2) and the share reads (2); compares the kernel's
layout with skewed slot layouts, skewed thread-to-node maps and per-thread step orders: the kernel's layout is the best
of these (28% of its modelled wavefronts are conflicts; ncu, resS7 of session 11: 26%), the x direction's partner reads
taking ~2x the ideal.

    python3 bench/esdg_banks.py"""
import itertools

NQ, NH = 5, 2
NP = NQ**3
PLANE = 2 * NP * 16  # bytes per share plane (o - 1)


def wavefronts(addrs, width=16):
    """wavefronts of one warp's access: addrs per thread (None: inactive)"""
    per_phase, tot = 128 // width, 0
    for ph in range(0, 32, per_phase):
        grp = [a for a in addrs[ph:ph + per_phase] if a is not None]
        if not grp:
            continue
        banks = {}
        for a in set(grp):
            for b in range(a // 4, (a + width) // 4):
                banks.setdefault(b % 32, set()).add(a)
        tot += max(len(v) for v in banks.values())
    return tot


def cost(slot=lambda n: n, owner=lambda t: t, order=lambda d, i, s: s + 1):
    """wavefronts per direction: slot(n) the 16-byte slot of node n, owner(t) the node of thread t, order the o of step s"""
    out = []
    for d in range(3):
        stride, c = (1, NQ, NQ * NQ)[d], 0
        for s in range(NH):
            for w in range(0, NP, 32):
                pa, wa, ra = [], [], []
                for t in range(w, w + 32):
                    if t >= NP:
                        pa.append(None), wa.append(None), ra.append(None)
                        continue
                    n = owner(t)
                    i = (n // stride) % NQ
                    base, o = n - i * stride, order(d, i, s)
                    pa.append(16 * slot(base + ((i + o) % NQ) * stride))
                    wa.append((o - 1) * PLANE + 16 * slot(n))
                    ra.append((o - 1) * PLANE + 16 * slot(base + ((i - o) % NQ) * stride))
                c += 5 * wavefronts(pa) + 2 * wavefronts(wa) + 2 * wavefronts(ra)
        out.append(c)
    return out


def main():
    ideal = 3 * NH * 4 * (5 + 2 + 2) * 4
    print("ideal (no conflicts):", ideal, " kernel's layout (x, y, z):", cost(), sum(cost()))
    for k in range(1, 8):
        print("slot n + %d floor(n/5):" % k, sum(cost(slot=lambda n, k=k: n + k * (n // 5))))
    for a, b in itertools.product(range(5), repeat=2):
        if a or b:
            own = lambda t, a=a, b=b: t % 5 + 5 * ((t // 5 + a * (t % 5)) % 5) + 25 * ((t // 25 + b * (t % 5)) % 5)
            print("threads skewed (%d, %d):" % (a, b), sum(cost(owner=own)))
    perms = list(itertools.permutations(range(1, NH + 1)))
    best = min(sum(cost(order=lambda d, i, s, P=P: P[i][s])) for P in itertools.product(perms, repeat=NQ))
    print("best per-thread step order (the same for every direction):", best)


if __name__ == "__main__":
    main()
