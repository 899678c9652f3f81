#!/usr/bin/env python3
"""The benchmark results of squall: files, tables and plots.

    report.py collect OUTDIR CAP...   bench/run.sh's last step: OUTDIR/meta.json + limits.json + CAP.jsonl
                                      into bench/results/CAP-<gpu>.json (replacing the previous file)
    report.py tables [--check]        the tables between the markers <!-- report:NAME --> ... <!-- /report -->
                                      of README.md and docs/*.md, and the plots in docs/img/, from
                                      bench/results/*.json; --check: fail if a document is out of date

Every figure the documents show comes from the results files through this script."""
import glob
import json
import math
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "bench", "results")
CAPS = {"esdg": "ESDG dynamical core", "hb": "hipBone-style matrix-free CG", "p1": "P1 tetrahedral assembly",
        "hevi": "HEVI (ARKIMEX) against explicit LSRK (ESDG)", "channel": "baroclinic channel over 10 days, HEVI against explicit LSRK (ESDG)",
        "bwave": "baroclinic wave on the cubed-sphere shell over 10 days (ESDG)", "schaer": "Schaer's mountain wave against Long's model (ESDG)", "precision": "single against double precision (ESDG)"}
EXTRA = {"esdg": ["cfl"]}


def gpu_slug(name):
    """'NVIDIA H200' -> 'h200', 'NVIDIA H100 80GB HBM3' -> 'h100', 'CPU ...' -> 'cpu'"""
    if name.startswith("CPU"):
        return "cpu"
    words = [w for w in name.split() if w.upper() not in ("NVIDIA", "TESLA")]
    return re.sub(r"[^a-z0-9]", "", (words[0] if words else name).lower()) or "gpu"


def read_jsonl(path):
    recs = []
    for line in open(path):
        line = line.strip()
        if line.startswith("{"):
            recs.append(json.loads(line))
    return recs


def collect(out, caps):
    meta = json.load(open(os.path.join(out, "meta.json")))
    limits = json.load(open(os.path.join(out, "limits.json")))
    slug = gpu_slug(meta["gpu"])
    for cap in caps:
        if cap not in CAPS:
            sys.exit(f"report.py: unknown capability {cap} (one of {', '.join(CAPS)})")
        path = os.path.join(out, cap + ".jsonl")
        recs = read_jsonl(path) if os.path.exists(path) else []
        for extra in EXTRA.get(cap, []):  # further scripts of the same capability
            p = os.path.join(out, extra + ".jsonl")
            recs += read_jsonl(p) if os.path.exists(p) else []
        if not recs:
            sys.exit(f"report.py: {path} holds no records; bench/results/{cap}-{slug}.json is left as it was")
        doc = {"capability": CAPS[cap]}
        doc.update(meta)
        doc["limits"] = limits
        doc["records"] = recs
        dest = os.path.join(RESULTS, f"{cap}-{slug}.json")
        with open(dest + ".partial", "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        os.replace(dest + ".partial", dest)
        print(f"report.py: wrote {os.path.relpath(dest, ROOT)} ({len(recs)} records)")


def load_all(cap):
    """the results files of a capability: the H200's first (the GPU the goals and spec/h200-anchors.md are stated for),
    then other GPUs' in name order, the CPU's last"""
    files = sorted(glob.glob(os.path.join(RESULTS, f"{cap}-*.json")), key=lambda f: (not f.endswith("-h200.json"), f.endswith("-cpu.json"), f))
    return [json.load(open(f)) for f in files]


def load(cap):
    """the first results file of a capability (load_all()), or None"""
    docs = load_all(cap)
    return docs[0] if docs else None


def per_gpu(cap, render, missing):
    """render(doc) of every results file of a capability (load_all()) that has something to show, one after the other;
    missing where none has"""
    parts = [p for p in (render(doc) for doc in load_all(cap)) if p]
    return "\n\n".join(parts) if parts else missing


def fmt(x, digits=3):
    if x is None:
        return "-"
    if isinstance(x, str):
        return x
    if isinstance(x, int):
        return f"{x:,}"
    if x == 0:
        return "0"
    if abs(x) >= 1e5 or abs(x) < 1e-3:
        return f"{x:.{digits - 1}e}"
    if abs(x) >= 10 ** digits:
        return f"{x:.0f}"
    return f"{x:.{digits}g}"


def table(head, rows):
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(fmt(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def source(doc, cap, commit=True):
    """where a table's figures come from; the README leaves the commit to docs/performance.md"""
    lim = doc["limits"]
    text = f"From `bench/results/{cap}-{gpu_slug(doc['gpu'])}.json`: {doc['gpu']}, {doc['date']}, PETSc {doc['petsc_version']}, {doc['precision']}" + (f", squall {doc['commit']}" if commit else "")
    if lim:
        text += (f"; limits measured in the same run: FP64 {lim['fp64_fma_tflops']:.1f} TFLOP/s, FP32 {lim['fp32_fma_tflops']:.1f} TFLOP/s, "
                 f"streaming {lim['stream_8r1w_tbs']:.2f} TB/s (8 reads : 1 write), copy {lim['copy_tbs']:.2f} TB/s")
    if lim and hb_mma_peak(lim):
        text += f", FP64 tensor cores {hb_mma_peak(lim):.1f} TFLOP/s"
    return text + "."


def hb_mma_peak(lim):
    """the FP64 tensor cores' rate of the same run: the faster of the shapes the mma kernel uses"""
    return max(lim.get("fp64_mma_m8n8k4_tflops", 0), lim.get("fp64_mma_m16n8k4_tflops", 0))


def fp64_peak(h, r):
    """the FP64 peak a kernel's record is held against: the tensor cores' for the mma kernel, else the FMA units'"""
    lim = h["limits"]
    return hb_mma_peak(lim) if r.get("kernel") == "mma" and hb_mma_peak(lim) else lim["fp64_fma_tflops"]


# ------------------------------------------------------------------ tables, one function per block name
def recs(doc, **match):
    return [r for r in doc["records"] if all(r.get(k) == v for k, v in match.items())]


BLOCKS = {}


def block(name):
    def deco(f):
        BLOCKS[name] = f
        return f
    return deco


def render(name):
    if name not in BLOCKS:
        sys.exit(f"report.py: unknown block <!-- report:{name} -->")
    return BLOCKS[name]()


# upstream hipBone's CG figure of merit on the same GPU model (paranumal/hipBone, default CUDA kernels, one
# rank, 100 iterations), measured on one H200: squall's spec/h200-anchors record
HIPBONE_UPSTREAM_FOM = {3: 2270, 7: 2689, 15: 3430}
# nekRS's published BP5 throughput (DOF x CG iterations per second, Kershaw eps = 0.3, N = 7, FP64) on one device:
# the figures the Kershaw record is held against
NEKRS_BP5_DOFS_ITER = {"one A100": 3.87e9, "one MI250X GCD": 3.07e9}
# the Kershaw parameter of bench/hb.sh's Kershaw record (its records do not carry it)
HB_KERSHAW_EPS = 0.3
# the ESDG paper's published time to solution for the rising bubble, N = 4, 262,144 elements, 1000 steps
# on four A100s (Waruszewski et al. 2022, squall's reference for the dynamical core)
ESDG_PUBLISHED_BUBBLE_S = 107


def stream_tbs(doc):
    return doc["limits"]["stream_8r1w_tbs"]


def p1_rec(doc, method, op, bs, tets=None):
    r = [x for x in doc["records"] if x.get("method") == method and x.get("op") == op and x.get("bs") == bs and (tets is None or x.get("tets") == tets)]
    return r[0] if r else None


def p1_sizes(doc):
    return sorted({x["tets"] for x in doc["records"] if x.get("method") == "setup"})


def hevi_scheme(r):
    return f"ARKIMEX {r['scheme']}" + (" linearly implicit" if r.get("solver") == "ksponly" else "")


def hevi_inaccurate(h, r):
    """how far a stable ARKIMEX run's max|w| lies above that of the same case's stable Newton run at the smallest
    multiple (relative), or None where it is less than twice that (or there is nothing to compare with): a larger
    step may damp the acoustic noise that max|w| holds early in a run, but not amplify it"""
    same = [x for x in recs(h, bench=r["bench"]) if x.get("stable") and x.get("solver") != "ksponly"]
    if not r.get("stable") or not same:
        return None
    ref = min(same, key=lambda x: x["dt_multiple"])
    dev = r["max_w"] / ref["max_w"] - 1
    return dev if dev > 1 else None


def hevi_summary_row(v, pre, what):
    """the channel's whole 10-day HEVI run at refinement 3 (bench/channel.sh) or else the fastest accurate ARKIMEX
    run's extrapolation, against explicit LSRK14 at the options file's CFL 1 and at CFL 4 (the same time per step)"""
    ex = recs(v, bench=pre + "_explicit")
    ok = [r for r in recs(v, bench=pre + "_arkimex") if r.get("stable") and hevi_inaccurate(v, r) is None]
    if not ex or not ok:
        return None
    ex, best = ex[0], min(ok, key=lambda r: r["projected_10day_s"])
    c = load("channel")
    whole = [r for r in recs(c, bench="channel_day10", refinement=3) if r["scheme"] != "lsrk" and r["exit_code"] == 0] if c else []
    if whole:
        w = min(whole, key=lambda r: r["wall_s"])
        t, how = w["wall_s"], f"{w['wall_s'] / 60:.2f} min ({hevi_scheme(w)} at {w['t_final'] / w['steps']:g} s, whole run)"
    else:
        t, how = best["projected_10day_s"], f"{best['projected_10day_s'] / 60:.1f} min ({hevi_scheme(best)} at {best['dt_multiple']}x the explicit step; from {best['t_final'] / 3600:g} h)"
    e1 = ex["projected_10day_s"]
    return [f"{what}, N=4, {ex['elements']:,} elements, 10 days", how,
            f"explicit LSRK14: {e1 / 60:.1f} min at CFL 1 ({e1 / t:.1f}x), {e1 / 4 / 60:.1f} min at CFL 4 ({e1 / 4 / t:.1f}x; same time per step)"]


def bwave_summary_row(w, v):
    """the whole 10-day runs of the wave at about 2 degrees (L3, N = 4) against the explicit step's extrapolation"""
    runs = [r for r in recs(w, bench="bwave_wave", refinement=3) if r.get("order", 4) == 4 and r["stable"] and r["scheme"] != "lsrk"]
    ex = recs(v, bench="hevi_bwave_explicit")
    if not runs or not ex:
        return None
    fast = min(runs, key=lambda r: r["wall_s"])
    return [f"HEVI baroclinic wave, cubed sphere, N=4, {fast['elements']:,} elements, 10 days", " / ".join(f"{r['wall_s'] / 60:.2f} min ({hevi_scheme(r)})" for r in runs) + ", whole runs",
            f"explicit LSRK14: {ex[0]['projected_10day_s'] / 60:.1f} min ({ex[0]['projected_10day_s'] / fast['wall_s']:.0f}x)"]


@block("summary")
def summary():
    rows = []
    e, p, h = load("esdg"), load("p1"), load("hb")
    if e:
        b = recs(e, bench="esdg_bubble")[0]
        k = recs(e, bench="esdg_kernels", N=4)[0]
        rows.append([f"ESDG rising bubble, N=4, {b['elements']:,} elements, 14-stage LSRK", f"{b['s_per_step']:.4f} s per step: {b['projected_1000_steps_s']:.0f} s for 1000 steps",
                     f"published: about {ESDG_PUBLISHED_BUBBLE_S} s on four A100s"])
        rows.append([f"ESDG RHS, N=4, {k['elements']:,} elements", f"{k['rhs_ms']:.3f} ms ({k['node_updates_per_s'] / 1e9:.2f} G node updates/s)", ""])
        rows.append([f"ESDG volume kernel, N=4", f"{k['volume_half_ms']:.3f} ms", f"{100 * k['volume_half_tflops'] / e['limits']['fp64_fma_tflops']:.1f}% of FP64 peak (useful flops)"])
    if p:
        small, large = p1_sizes(p)[0], p1_sizes(p)[-1]
        for bs in (1, 3):
            r, c = p1_rec(p, "gpu_reduce", "matrix", bs, small), p1_rec(p, "gpu_coo", "matrix", bs, small)
            rows.append([f"P1 {'scalar' if bs == 1 else '3x3-block'} matrix, {small:,} tets (mountain mesh)", f"{r['time_ms']:.3f} ms", f"{c['time_ms'] / r['time_ms']:.2f}x `MatSetValuesCOO`"])
        r = p1_rec(p, "gpu_reduce", "matrix", 1, large)
        rows.append([f"P1 scalar matrix, {large / 1e6:.1f} M tets", f"{r['time_ms']:.2f} ms", f"{100 * r['GBps'] / 1000 / stream_tbs(p):.0f}% of the streaming rate by the byte model"])
    if h:
        ops = hb_brick(recs(h, bench="hb_operator"), default=True)
        geo = "/".join(sorted({hb_geometry(r) for r in ops}))
        frac = {r["N"]: r["roofline_fraction"] for r in ops}
        lo = [frac[n] for n in frac if n <= 7]
        hi = [frac[n] for n in frac if n >= 8]
        rows.append([f"hipBone operator ({geo} geometry), N=1..7 / 8..15", f"{100 * min(lo):.0f}-{100 * max(lo):.0f}% / {100 * min(hi):.0f}-{100 * max(hi):.0f}% of its roofline", "the rate its bytes per node allow at the streaming rate of the same run"])
        r15 = [r for r in ops if r["N"] == 15][0]
        rows.append(["hipBone operator, N=15", f"{r15['kernel_gflops'] / 1000:.2f} TFLOP/s", f"{100 * r15['kernel_gflops'] / 1000 / fp64_peak(h, r15):.1f}% of {'the FP64 tensor cores' if r15['kernel'] == 'mma' else 'FP64'} peak"])
        cg = {r["N"]: r for r in hb_brick(recs(h, bench="hb_cg", solver="hbcg"), default=True)}
        ns = sorted(cg)
        rows.append([f"hipBone CG figure of merit, N={' / '.join(map(str, ns))}, {cg[ns[0]]['NG'] / 1e6:.0f} M unknowns", " / ".join(f"{cg[n]['fom_gflops']:.0f}" for n in ns) + " GFLOP/s",
                     "upstream hipBone, same GPU: " + " / ".join(str(HIPBONE_UPSTREAM_FOM[n]) for n in ns) + " (" + " / ".join(f"{cg[n]['fom_gflops'] / HIPBONE_UPSTREAM_FOM[n]:.2f}" for n in ns) + "x)"])
    v, w = load("hevi"), load("bwave")
    if v:
        for pre, what in (("hevi", "HEVI baroclinic channel"), ("hevi_bwave", "HEVI baroclinic wave, cubed sphere")):
            row = bwave_summary_row(w, v) if pre == "hevi_bwave" and w else hevi_summary_row(v, pre, what)
            if row:
                rows.append(row)
    docs = [d for d in (e, p, h) if d]
    head = ""
    if docs:
        lim = docs[0]["limits"]
        head = (f"One {docs[0]['gpu']}, double precision; its limits measured in the same runs: FP64 {lim['fp64_fma_tflops']:.1f} TFLOP/s, "
                f"FP32 {lim['fp32_fma_tflops']:.1f} TFLOP/s (FMA), streaming {lim['stream_8r1w_tbs']:.2f} TB/s (8 reads : 1 write). "
                f"From `bench/results/*-{gpu_slug(docs[0]['gpu'])}.json` ({docs[0]['date']}).\n\n")
    return head + table(["what", "measured", "against the limit or a peer"], rows)


@block("esdg-kernels")
def esdg_kernels():
    e = load("esdg")
    rows = [[r["N"], r["elements"], r["nodes"], r["rhs_ms"], r["node_updates_per_s"] / 1e9, r["volume_half_ms"], r["volume_half_tflops"], f"{100 * r['volume_half_tflops'] / e['limits']['fp64_fma_tflops']:.1f}%", r["surface_ms"]]
            for r in recs(e, bench="esdg_kernels")]
    b = recs(e, bench="esdg_bubble")[0]
    return (table(["N", "elements", "nodes", "RHS ms", "G node updates/s", "volume ms", "volume TFLOP/s", "of FP64 peak", "faces ms"], rows)
            + f"\n\nRising bubble, N = 4, {b['elements']:,} elements: {b['s_per_step']:.4f} s per step over {b['steps']} steps "
            f"({b['projected_1000_steps_s']:.1f} s for 1000). " + source(e, "esdg"))


@block("esdg-terrain")
def esdg_terrain():
    e = load("esdg")
    box = {r["N"]: r for r in recs(e, bench="esdg_kernels")}
    t = recs(e, bench="esdg_terrain")
    if not t:
        return "No terrain records in `bench/results/esdg-*.json` yet: bench/esdg.sh makes them."
    rows = [[r["N"], r["nodes"], box[r["N"]]["rhs_ms"], r["rhs_ms"], f"{r['rhs_ms'] / r['nodes'] / (box[r['N']]['rhs_ms'] / box[r['N']]['nodes']):.2f}x",
             box[r["N"]]["volume_half_ms"], r["volume_half_ms"], box[r["N"]]["surface_ms"], r["surface_ms"]] for r in t if r["N"] in box]
    return (table(["N", "nodes", "box RHS ms", "terrain RHS ms", "per node", "box volume ms", "terrain volume ms", "box faces ms", "terrain faces ms"], rows)
            + "\n\nThe RHS on the benchmark brick with and without a bell mountain (`-esdg_terrain bell -esdg_terrain_h0 200 -esdg_terrain_a 500`): "
            "the box's elements are Cartesian and share one metric per element, the terrain's read theirs at every node. " + source(e, "esdg"))


@block("cfl")
def cfl():
    e = load("esdg")
    c = recs(e, bench="cfl")
    schemes = sorted({r["scheme"] for r in c})
    ns = sorted({r["N"] for r in c})
    rows = [[s] + [f"{[r for r in c if r['scheme'] == s and r['N'] == n][0]['cfl_stable']:g}" for n in ns] for s in schemes]
    at = sorted({(r["measured_at_commit"], r["measured_on"]) for r in c if r.get("measured_at_commit")})
    when = f" Measured at squall {at[0][0]} ({at[0][1]}; bench/cfl.sh was not rerun with the kernel figures)." if at else ""
    return table(["scheme"] + [f"N={n}" for n in ns], rows) + f"\n\nThe largest `-esdg_cfl` at which the run stays within 2% of max|w| at CFL 0.25 ({c[0]['case']}); bench/cfl.sh.{when} " + source(e, "esdg")


def hb_geometry(r):
    """the geometry mode of a hipBone record: records made before the modes existed read stored factors"""
    return r.get("geometry", "stored")


def hb_scatter(r):
    """how a hipBone record's device products summed the element results (records made before atomic read gather)"""
    return r.get("scatter", "gather")


# -hb_scatter auto on one rank in double precision: atomic with the mma kernel and, with the others, at these orders,
# gather at the rest (src/ksp/hbkernel.c's rule, made from the operator records of bench/hb.sh with
# HB_SCATTERS="gather atomic")
HB_ATOMIC_ORDERS = set(range(1, 13)) | {14}


def hb_default_scatter(r):
    """the scatter -hb_scatter auto picks for a record's order and kernel"""
    return "atomic" if r.get("kernel") == "mma" or r["N"] in HB_ATOMIC_ORDERS else "gather"


# what -hb_geometry auto picks on the brick, whose elements are parallelepipeds
HB_BRICK_GEOMETRY = "affine"


def hb_defaults(rs):
    """the records made with the default kernel (the kernel comparison's, tagged "kernels", are in their own table)"""
    return [r for r in rs if r.get("tag", "") != HB_KERNELS_TAG]


def hb_brick(rs, default=False):
    """the records of the figure-of-merit set-up: the brick, in the geometry mode auto picks there (the other modes'
    records are in the per-mode tables); with default, one per order, of the scatter that -hb_scatter auto picks where
    the results hold it"""
    rs = [r for r in hb_defaults(rs) if r.get("mesh", "brick") == "brick" and r.get("device", True) and hb_geometry(r) == HB_BRICK_GEOMETRY]
    return hb_auto_scatter(rs) if default else rs


def hb_auto_scatter(rs):
    """per order, the records of the scatter that -hb_scatter auto picks, where rs holds it (else all of the order's)"""
    have = {(r["N"], r.get("kernel"), hb_scatter(r)) for r in rs}
    return [r for r in rs if hb_scatter(r) == hb_default_scatter(r) or (r["N"], r.get("kernel"), hb_default_scatter(r)) not in have]


@block("hb-orders")
def hb_orders():
    h = load("hb")
    rows = [[r["N"], r["NG"] / 1e6, r["kernel"], hb_geometry(r), hb_scatter(r) + (" (auto)" if hb_scatter(r) == hb_default_scatter(r) else ""), r["kernel_gflops"], r["kernel_gbs"], f"{100 * r['roofline_fraction']:.0f}%",
             f"{100 * r['kernel_gflops'] / 1000 / fp64_peak(h, r):.1f}%", r["t_mult"] * 1e3, r["mult_gflops_nekbone"]]
            for r in sorted(hb_brick(recs(h, bench="hb_operator")), key=lambda r: (r["N"], hb_scatter(r)))]
    return (table(["N", "M unknowns", "kernel", "geometry", "scatter", "GFLOP/s", "GB/s", "of its roofline", "of FP64 peak", "MatMult ms", "MatMult GFLOP/s (NekBone)"], rows) + "\n\n"
            + "Kernel columns: the element kernel alone; MatMult: the whole product (kernel and Z^T). The roofline of an atomic "
            "record counts the kernel's reads only, as for gather; its atomic adds replace the gather's pass. " + source(h, "hb"))


def hb_cg_split(h, r):
    """a CG iteration's time split by the operator record of the same order, elements, geometry and scatter: the
    element kernel, Z^T (the gather pass, or the atomic scatter's set-up and finish), and the rest (the fused vector
    passes, the dot products' trips to the host, launch gaps), in ms"""
    op = [o for o in hb_brick(recs(h, bench="hb_operator", N=r["N"], E=r["E"])) if hb_geometry(o) == hb_geometry(r) and hb_scatter(o) == hb_scatter(r)]
    if not op:
        return ["-", "-", "-"]
    k, g = op[0]["t_kernel"], op[0]["t_gather"]
    return [k * 1e3, g * 1e3, (r["t_iter"] - k - g) * 1e3]


@block("hb-cg")
def hb_cg():
    h = load("hb")
    rows = [[r["N"], hb_geometry(r), hb_scatter(r) + (" (auto)" if hb_scatter(r) == hb_default_scatter(r) else ""), r["NG"] / 1e6, r["iterations"], r["t_iter"] * 1e3] + hb_cg_split(h, r) +
            [r["fom_gflops"], HIPBONE_UPSTREAM_FOM.get(r["N"]), f"{r['fom_gflops'] / HIPBONE_UPSTREAM_FOM[r['N']]:.2f}x" if r["N"] in HIPBONE_UPSTREAM_FOM else "-", r["dofs_iter_per_s"]]
            for r in sorted(hb_brick(recs(h, bench="hb_cg", solver="hbcg")), key=lambda r: (r["N"], hb_scatter(r)))]
    text = ("Per iteration: the element kernel and Z^T as the operator records of the same order, size and scatter time them "
            "(one product each), and the rest of the iteration: the fused vector passes, the dot products' trips to the host, "
            "launch gaps. auto marks the scatter that -hb_scatter auto picks at that order.")
    return table(["N", "geometry", "scatter", "M unknowns", "iterations", "ms per iteration", "kernel (ms)", "Z^T (ms)", "rest (ms)", "FOM GFLOP/s", "upstream hipBone", "ratio", "DOF x iterations/s"], rows) + "\n\n" + text + " " + source(h, "hb")


HB_MODES = ["stored", "trilinear", "affine"]
# the tag of bench/hb.sh's kernel comparison records (HB_KERNEL_ORDERS), and the kernels it times
HB_KERNELS_TAG = "kernels"
HB_KERNELS = ["layers", "layers_tiled", "mma"]


@block("hb-kernels")
def hb_kernels():
    """every CUDA kernel at the comparison's orders, per mode and scatter, beside what the auto options took"""
    return per_gpu("hb", hb_kernels_gpu, "Kernel comparison: not measured yet (bench/hb.sh with HB_KERNEL_ORDERS).")


def hb_kernels_gpu(h):
    ks = [r for r in recs(h, bench="hb_operator", tag=HB_KERNELS_TAG) if r.get("mesh", "brick") == "brick"]
    if not ks:
        return ""
    auto = {(r["N"], hb_geometry(r)): r for r in hb_defaults(recs(h, bench="hb_operator")) if r.get("mesh", "brick") == "brick" and r.get("device")}
    rows = []
    for m in HB_MODES:
        for N in sorted({r["N"] for r in ks if hb_geometry(r) == m}):
            for sc in ("gather", "atomic"):
                rk = {r["kernel"]: r for r in ks if hb_geometry(r) == m and r["N"] == N and hb_scatter(r) == sc}
                if rk:
                    a = auto.get((N, m))
                    rows.append([m, N, next(iter(rk.values()))["NG"] / 1e6, sc] + [rk[k]["t_kernel"] * 1e3 if k in rk else "-" for k in HB_KERNELS] + [rk[k]["t_mult"] * 1e3 if k in rk else "-" for k in HB_KERNELS]
                                + [f"{a['kernel']}, {hb_scatter(a)}" if a and hb_scatter(a) == sc else ""])
    head = ["geometry", "N", "M unknowns", "scatter"] + [f"kernel ms: {k}" for k in HB_KERNELS] + [f"MatMult ms: {k}" for k in HB_KERNELS] + ["auto took"]
    text = ("Each kernel in turn in one process on the brick (`hb_bench -kernels " + ",".join(HB_KERNELS) + "`): the element kernel alone, "
            "and the whole product (kernel and Z^T, or the atomic scatter's set-up and finish). auto took: the kernel and scatter of the "
            "same results' default records at that order and mode.")
    return f"**{h['gpu']}**\n\n" + table(head, rows) + "\n\n" + text + " " + source(h, "hb", commit=False)


@block("hb-geometry-operator")
def hb_geometry_operator():
    """the operator kernel per geometry mode (records that name their mode), for each GPU whose results hold them:
    GFLOP/s against the mode's own data-motion roofline (its bytes per element node) and the FP64 peak"""
    return per_gpu("hb", hb_geometry_operator_gpu, "Per-mode operator records: not measured yet (bench/hb.sh with HB_GEOMETRIES=\"stored trilinear affine\").")


def hb_geometry_operator_gpu(h):
    ops = [r for r in hb_defaults(recs(h, bench="hb_operator")) if "geometry" in r and r.get("device")]
    if not ops:
        return ""
    brick = [r for r in ops if r.get("mesh", "brick") == "brick"]
    modes = [m for m in HB_MODES if any(hb_geometry(r) == m for r in brick)]
    cell = {(r["N"], m): r for m in modes for r in hb_auto_scatter([r for r in brick if hb_geometry(r) == m])}
    rows = []
    for N in sorted({r["N"] for r in brick}):
        row = [N]
        for m in modes:
            r = cell.get((N, m))
            row += [hb_mode_cell(h, r), f"{r['bytes_per_node']:.1f}"] if r else ["-", "-"]
        rows.append(row)
    text = f"**{h['gpu']}**\n\n" + table(["N"] + [c for m in modes for c in (m, "bytes per node")], rows)
    text += ("\n\nOn the brick, each mode at the scatter -hb_scatter auto picks (where measured; - where not): the element kernel's GFLOP/s, "
             "its fraction of the mode's own roofline (the rate its bytes per node allow at the streaming rate of the same run) and "
             "of the FP64 peak (the tensor cores' for the mma kernel).")
    other = [r for r in ops if r.get("mesh", "brick") != "brick"]
    if other:
        text += "\n\n" + table(["N", "mesh", "geometry", "scatter", "bytes per node", "kernel", "GFLOP/s", "of its roofline", "of FP64 peak"],
                                [[r["N"], r["mesh"], hb_geometry(r), hb_scatter(r), r["bytes_per_node"], r["kernel"], r["kernel_gflops"], f"{100 * r['roofline_fraction']:.0f}%",
                                  f"{100 * r['kernel_gflops'] / 1000 / fp64_peak(h, r):.1f}%"] for r in sorted(other, key=lambda r: (r["mesh"], r["N"]))])
    return text + "\n\n" + source(h, "hb", commit=False)


def hb_mode_cell(h, r):
    """one mode's operator record in a cell: kernel, GFLOP/s, fraction of its roofline and of the FP64 peak"""
    return f"{r['kernel']} {r['kernel_gflops']:.0f} ({100 * r['roofline_fraction']:.0f}% / {100 * r['kernel_gflops'] / 1000 / fp64_peak(h, r):.0f}%)"


@block("hb-geometry-cg")
def hb_geometry_cg():
    """the CG figure of merit per geometry mode, and the Kershaw record (DOF x iterations / s), for each GPU whose
    results hold them"""
    return per_gpu("hb", hb_geometry_cg_gpu, "Per-mode CG records and the Kershaw record: not measured yet (bench/hb.sh with HB_GEOMETRIES=\"stored trilinear affine\", HB_KERSHAW=1).")


def hb_geometry_cg_gpu(h):
    cgs = [r for r in recs(h, bench="hb_cg", solver="hbcg") if "geometry" in r and r.get("device")]
    if not cgs:
        return ""
    rows = [[r["N"], r.get("mesh", "brick"), hb_geometry(r), r.get("kernel", "-"), hb_scatter(r), r["E"], r["NG"] / 1e6, r["iterations"], r["fom_gflops"],
             HIPBONE_UPSTREAM_FOM.get(r["N"]) if r.get("mesh", "brick") == "brick" and h["gpu"] == "NVIDIA H200" else "-", r["dofs_iter_per_s"]]
            for r in sorted(cgs, key=lambda r: (r.get("mesh", "brick"), HB_MODES.index(hb_geometry(r)), r["N"], hb_scatter(r)))]
    text = "".join(f"\n\nKershaw mesh (eps {HB_KERSHAW_EPS}, N = {r['N']}, {r['E']:,} elements): {r['dofs_iter_per_s']:.3g} DOF x iterations/s, "
                   + ", ".join(f"{r['dofs_iter_per_s'] / v:.1f}x nekRS's published BP5 figure for {k} ({v:.3g})" for k, v in NEKRS_BP5_DOFS_ITER.items()) + "."
                   for r in cgs if r.get("mesh") == "kershaw" and r["N"] == 7)
    return f"**{h['gpu']}**\n\n" + table(["N", "mesh", "geometry", "kernel", "scatter", "elements", "M unknowns", "iterations", "FOM GFLOP/s", "upstream hipBone (H200)", "DOF x iterations/s"], rows) + text + "\n\n" + source(h, "hb", commit=False)


@block("p1-assembly")
def p1_assembly():
    p = load("p1")
    rows = []
    for tets in p1_sizes(p):
        for bs in (1, 3):
            base = p1_rec(p, "gpu_coo", "matrix", bs, tets)
            for m, name in (("gpu_reduce", "reduce (default)"), ("gpu_atomic_slots", "slots"), ("gpu_gather", "gather (deterministic)"), ("gpu_coo", "MatSetValuesCOO"), ("host_setvalues", "host MatSetValues")):
                r = p1_rec(p, m, "matrix", bs, tets)
                if r:
                    rows.append([f"{tets:,}", bs, name, r["time_ms"], r["GBps"], f"{base['time_ms'] / r['time_ms']:.3g}x" if base else "-"])
    return table(["tets", "bs", "assembly", "ms", "GB/s (byte model)", "speed-up over COO"], rows) + "\n\n" + source(p, "p1")


def hevi_share(r):
    """the shares of the run's TSStep time in F_H, F_V (with the evaluations inside the Jacobian), the Jacobian's
    extraction and matrix values, and the PC's factorisation and solves"""
    ev, total = r["events"], r["events"].get("TSStep", {}).get("time_s")
    t = lambda *names: sum(ev.get(n, {}).get("time_s") or 0 for n in names)
    if not total:
        return ["", "", "", ""]
    return [f"{100 * t('SqESDGRHSHoriz') / total:.0f}%", f"{100 * t('SqESDGRHSVert') / total:.0f}%", f"{100 * t('SqColValues') / total:.0f}%", f"{100 * t('SqColFactor', 'SqColSolve') / total:.0f}%"]


@block("hevi")
def hevi():
    h = load("hevi")
    rows = []
    for case, pre in (("channel", "hevi"), ("sphere", "hevi_bwave")):
        exs = recs(h, bench=pre + "_explicit")
        if not exs:
            continue
        ex = exs[0]
        rows.append([case, "LSRK14 (explicit)", 1, ex["t_final"] / ex["steps"], "", ex["s_per_step"] * 1e3, ex["projected_10day_s"] / 60, "yes", "", "", "", "", ""])
        for r in recs(h, bench=pre + "_arkimex"):
            if r.get("skipped"):
                continue
            ok, off = r["stable"], hevi_inaccurate(h, r)
            verdict = "yes" if off is None else f"bounded, max\\|w\\| {100 * off:+.0f}%"
            rows.append([case, hevi_scheme(r), r["dt_multiple"], r["dt"], f"{r['newton_per_step']:.2f}" if ok else "", r["s_per_step"] * 1e3 if ok else "",
                         r["projected_10day_s"] / 60 if ok else "", verdict if ok else ("no" if r.get("solver") == "ksponly" else "no (Newton fails)")] + (hevi_share(r) if ok else ["", "", "", ""]) + [f"{r['max_w']:.4g}" if ok else ""])
    ex = recs(h, bench="hevi_explicit")[0]
    sim = [r["t_final"] for r in recs(h, bench="hevi_arkimex") if r.get("stable")]
    text = (f"The baroclinic channel at refinement 3 (options/baroclinic.opts, {ex['elements']:,} elements, N = 4) and the baroclinic wave on the "
            f"cubed-sphere shell at about 2 degrees (options/bwave.opts, 12,288 elements, N = 4), on one {h['gpu']}. The ARKIMEX runs cover "
            f"{(sim[0] if sim else 0) / 3600:g} h of model time and their 10-day wall time is extrapolated from it; stable: the run finished with "
            "max\\|w\\| below 50 m/s (bounded: max\\|w\\| more than twice that of the same case's Newton run at the smallest step). "
            "The explicit step is that of the channel's options file (CFL 1); LSRK14 is stable there at CFL 4 as well (`bench/channel.sh`), "
            "which divides its 10-day time by 4. Newton iterations per step are summed over the implicit stages (with `-ksp_type preonly`, Krylov "
            "iterations are the same). The shares are of TSStep's time: F_H, F_V (with the evaluations inside the Jacobian's differences), the "
            "column matrix values, and `-pc_type esdgcolumn`'s factorisation and solves.")
    skipped = sorted({(r["scheme"], r["dt_multiple"]) for r in h["records"] if r.get("skipped")})
    if skipped:
        text += " Not run (over the script's time budget): " + ", ".join(f"{s} at {m}x" for s, m in skipped) + "."
    cpu = {r["bench"]: r for r in h["records"] if r["bench"].startswith("hevi_cpu")}
    if "hevi_cpu_explicit" in cpu and "hevi_cpu_arkimex" in cpu:
        ce, ci = cpu["hevi_cpu_explicit"], cpu["hevi_cpu_arkimex"]
        g = [r for r in recs(h, bench="hevi_arkimex", scheme="2c", dt_multiple=25) if r.get("s_per_step")]
        text += (f" The channel on the host ({ce['device']}): {ce['s_per_step'] * 1e3:.0f} ms per explicit step ({ce['s_per_step'] / ex['s_per_step']:.0f}x the GPU's), "
                 f"{ci['s_per_step'] * 1e3:.0f} ms per ARKIMEX 2c step at 25x" + (f" ({ci['s_per_step'] / g[0]['s_per_step']:.0f}x the GPU's)" if g else "")
                 + (f"; measured on {ce['date']} at squall {ce['commit']}" if ce.get("commit") and ce["commit"] != h["commit"] else "") + ".")
    return table(["case", "scheme", "dt / explicit", "dt (s)", "Newton / step", "ms / step", "10 days (min)", "stable", "F_H", "F_V", "matrix", "PC", "max\\|w\\| (m/s)"], rows) + "\n\n" + text + " " + source(h, "hevi")


@block("channel")
def channel():
    c = load("channel")
    runs = sorted(recs(c, bench="channel_day10"), key=lambda r: (r["refinement"], r["scheme"] != "lsrk", r.get("dt") or 0))
    ref = {r["refinement"]: r for r in runs if r["scheme"] == "lsrk" and r["exit_code"] == 0}
    rows = []
    for r in runs:
        ok, x = r["exit_code"] == 0 and r["min_ps"] is not None, ref.get(r["refinement"])
        cmp = ok and x is not None and r is not x
        rows.append([f"L{r['refinement']}", f"{r['elements']:,}" if r["elements"] else "", "LSRK14 (explicit)" if r["scheme"] == "lsrk" else hevi_scheme(r),
                     f"{r['t_final'] / r['steps']:.4g}" if ok else "", f"{r['wall_s'] / 60:.2f}" if ok else "failed", f"{r['newton_per_step']:.2f}" if ok and r.get("newton_per_step") else "",
                     f"{r['min_ps'] / 100:.2f}" if ok else "", f"{(r['min_ps'] - x['min_ps']) / 100:+.3f}" if cmp else "",
                     f"{r['max_w']:.4g}" if ok else "", f"{100 * (r['max_w'] / x['max_w'] - 1):+.2f}%" if cmp else ""])
    text = (f"Measured on one {c['gpu']}, whole 10-day runs of `options/baroclinic.opts` at N = 4 (L: `-dm_forest_initial_refinement`; "
            "L2 and L3 have 1,536 and 12,288 elements). The explicit reference runs at `-esdg_cfl 4`; HEVI is ARKIMEX with `options/hevi.opts`. "
            "Minimum surface pressure and max\\|w\\| are those of the final state (day 10); the differences are to the explicit run at the same refinement.")
    return table(["L", "elements", "scheme", "dt (s)", "10 days (min)", "Newton / step", "min surface pressure (hPa)", "vs explicit (hPa)", "max\\|w\\| (m/s)", "vs explicit"], rows) + "\n\n" + text + " " + source(c, "channel")


@block("schaer")
def schaer():
    c = load("schaer")
    rows = []
    for r in sorted(recs(c, bench="schaer"), key=lambda r: r["order"]):
        ok = r["exit_code"] == 0 and r["steps"]
        rows.append([r["order"], f"{2000 / r['order']:.0f} x {1500 / r['order']:.0f}", f"{r['steps']:,}" if ok else "", f"{r['wall_s']:.0f}" if ok else "failed",
                     f"{r['error_long']:.4f}" if ok else "", f"{r['error_linear']:.4f}" if ok else ""])
    text = (f"Measured on one {c['gpu']}: `options/schaer.opts` (elements of 2 km x 1.5 km, 5 h of model time) at each order; relative L2 error of w "
            "for |x| <= 15 km and z <= 12 km (below the sponges) against Long's model (`scripts/schaer_linear.py --lower-boundary exact`) and "
            "against linear theory with its boundary condition at z = 0.")
    return table(["order", "mean node spacing (m)", "steps", "wall time (s)", "error against Long's model", "against linear theory"], rows) + "\n\n" + text + " " + source(c, "schaer")


def bwave_resolution(r):
    """refinement and order of a baroclinic-wave record, and its node spacing along the equator in degrees"""
    n = r.get("order", 4)
    return f"L{r['refinement']}, N={n}", 90 / (2 ** (r["refinement"] + 1) * n)


def bwave_minimum(r, day):
    m = [x for x in r["surface_minimum"] if x["day"] == day]
    return f"{m[0]['ps_hpa']:.2f} hPa at {m[0]['lon']:.1f} E, {m[0]['lat']:.1f} N" if m else ""


@block("bwave")
def bwave():
    b = load("bwave")
    rows, prev = [], None
    for r in sorted(recs(b, bench="bwave_balanced"), key=lambda r: r["refinement"]):
        e = r["wind_error"][-1]
        res, dx = bwave_resolution(r)
        order = f"{math.log(prev[0] / e['rms_m_s']) / math.log(prev[1] / dx):.2f}" if prev else ""
        rows.append([res, f"{r['elements']:,}", f"{dx:.2f}", f"{r['dt']:g}", f"{e['rms_m_s']:.3e}", f"{e['relative']:.2e}", order])
        prev = (e["rms_m_s"], dx)
    bal = table(["resolution", "elements", "node spacing (deg)", "dt (s)", "L2 error of u at day 5 (m/s)", "relative", "order"], rows)
    rows = []
    for r in sorted(recs(b, bench="bwave_wave"), key=lambda r: (r["refinement"], r.get("order", 4), r["scheme"] != "lsrk", r.get("solver", ""))):
        res, dx = bwave_resolution(r)
        scheme = "LSRK14 (explicit)" if r["scheme"] == "lsrk" else hevi_scheme(r)
        ok = r["stable"]
        rows.append([res, f"{dx:.2f}", scheme, f"{r['t_final'] / r['steps']:.4g}" if ok else "", f"{r['wall_s'] / 60:.2f}" if ok else "failed",
                     f"{r['newton_per_step']:.2f}" if ok and r.get("newton_per_step") else "", bwave_minimum(r, 8), bwave_minimum(r, 10)])
    wave = table(["resolution", "node spacing (deg)", "scheme", "dt (s)", "10 days (min)", "Newton / step", "minimum surface pressure, day 8", "day 10"], rows)
    text = (f"Measured on one {b['gpu']}, whole runs (no extrapolation). L: `-dm_forest_initial_refinement`, N: `-esdg_order`; node spacing: "
            "90 degrees over the nodes along a cube face's edge. Balanced state: `-bwave_perturbation 0` for 5 days with ARKIMEX 2c; the error is "
            "the L2 norm of the velocity against the balanced state over the shell (rms, m/s). Wave: `options/bwave.opts` for 10 days; the minimum is "
            "that of the surface nodes, at the first step at or after the day.")
    v = load("hevi")
    if v and recs(v, bench="hevi_bwave_explicit") and recs(v, bench="hevi_explicit"):
        sx, bx = recs(v, bench="hevi_bwave_explicit")[0], recs(v, bench="hevi_explicit")[0]
        rate = lambda r: r["elements"] * 125 * 14 / r["s_per_step"]  # N = 4 nodes, LSRK 14s4 stages
        text += (f" Throughput of the explicit step (`bench/hevi.sh`, LSRK14, N = 4): the shell {rate(sx) / 1e9:.2f} G node updates/s, the box channel "
                 f"at the same element count {rate(bx) / 1e9:.2f} G ({sx['s_per_step'] / bx['s_per_step']:.2f}x the box's time per node on the shell's curvilinear kernels).")
    other = sorted({f"{bwave_resolution(r)[0]} at squall {r['commit']}" for r in b["records"] if r.get("commit") and r["commit"] != b["commit"] and r["bench"] != "bwave_device"})
    if other:
        text += " Measured at another commit: " + ", ".join(other) + "."
    return bal + "\n\n" + wave + "\n\n" + text + " " + source(b, "bwave")


@block("precision")
def precision():
    p = load("precision")
    # times only from a GPU: those of a CPU run on a shared machine say nothing
    gpu = p["gpus"] > 0
    rows = [[r["case"], r["form"], r["precision"], r["rel_change_mass"], r["rel_change_energy"], r["max_w"]] + ([r["s_per_step"] * 1e3] if gpu else []) for r in p["records"]]
    head = ["case", "form", "precision", "mass drift", "energy drift", "max\\|w\\| (m/s)"] + (["ms per step"] if gpu else [])
    return (table(head, rows) + "\n\nThe bubble: 64 elements, N = 3, 100 s; the channel: N = 2, 600 s (steps this small are latency-bound on a GPU). "
            + source(p, "precision", commit=False))


@block("precision-summary")
def precision_summary():
    p = load("precision")
    rows = []
    for r in p["records"]:
        if r["precision"] != "single":
            continue
        d = [x for x in p["records"] if x["precision"] == "double" and x["case"] == r["case"] and x["form"] == r["form"]]
        rows.append([r["case"], r["form"], r["rel_change_mass"], r["rel_change_energy"], f"{r['max_w']:.4g} ({d[0]['max_w']:.4g})" if d else r["max_w"]])
    return table(["case", "form (single precision)", "mass drift", "energy drift", "max\\|w\\| m/s (double)"], rows) + "\n\n" + source(p, "precision", commit=False)


# ------------------------------------------------------------------ plots
def plot_all(outdir):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    os.makedirs(outdir, exist_ok=True)
    h, e, p = load("hb"), load("esdg"), load("p1")
    if h:
        ops = sorted(hb_brick(recs(h, bench="hb_operator"), default=True), key=lambda r: r["N"])
        fig, ax = plt.subplots(figsize=(6, 3.6))
        ax.plot([r["N"] for r in ops], [r["kernel_gflops"] for r in ops], "o-", label="operator kernel")
        ax.plot([r["N"] for r in ops], [r["kernel_flops"] / r["kernel_bytes"] * stream_tbs(h) * 1000 for r in ops], "--", label=f"streaming roofline ({stream_tbs(h):.2f} TB/s)")
        ax.axhline(h["limits"]["fp64_fma_tflops"] * 1000, color="gray", lw=0.8, label="FP64 peak")
        ax.set_yscale("log")
        ax.set_xlabel("order N")
        ax.set_ylabel("GFLOP/s")
        ax.set_title(f"hipBone operator on one {h['gpu']}")
        ax.legend(fontsize=8)
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, f"hb-roofline-{gpu_slug(h['gpu'])}.png"), dpi=110)
        plt.close(fig)
    if e:
        k = recs(e, bench="esdg_kernels")
        fig, ax = plt.subplots(figsize=(6, 3.6))
        ax.bar([r["N"] for r in k], [r["node_updates_per_s"] / 1e9 for r in k])
        ax.set_xlabel("order N")
        ax.set_ylabel("G node updates / s")
        ax.set_title(f"ESDG right-hand side, ~4 M nodes, one {e['gpu']}")
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, f"esdg-throughput-{gpu_slug(e['gpu'])}.png"), dpi=110)
        plt.close(fig)
    if p:
        small = p1_sizes(p)[0]
        names = [("gpu_reduce", "reduce"), ("gpu_atomic_slots", "slots"), ("gpu_gather", "gather"), ("gpu_coo", "COO")]
        fig, ax = plt.subplots(figsize=(6, 3.6))
        for i, bs in enumerate((1, 3)):
            t = [p1_rec(p, m, "matrix", bs, small)["time_ms"] for m, _ in names]
            ax.bar([j + 0.4 * i for j in range(len(names))], t, width=0.4, label=f"bs = {bs}")
        ax.set_xticks([j + 0.2 for j in range(len(names))], [n for _, n in names])
        ax.set_ylabel("ms per assembly")
        ax.set_title(f"P1 matrix assembly, {small:,} tets, one {p['gpu']}")
        ax.legend()
        fig.tight_layout()
        fig.savefig(os.path.join(outdir, f"p1-assembly-{gpu_slug(p['gpu'])}.png"), dpi=110)
        plt.close(fig)


def update_documents(check):
    stale = []
    for path in [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md"))):
        text = open(path).read()
        new = re.sub(r"(<!-- report:([a-z0-9_-]+) -->\n).*?(<!-- /report -->)", lambda m: m.group(1) + render(m.group(2)).rstrip() + "\n" + m.group(3), text, flags=re.S)
        if new != text:
            stale.append(os.path.relpath(path, ROOT))
            if not check:
                open(path, "w").write(new)
    return stale


def main(argv):
    if len(argv) >= 3 and argv[1] == "collect":
        collect(argv[2], argv[3:])
    elif len(argv) >= 2 and argv[1] == "tables":
        check = "--check" in argv[2:]
        stale = update_documents(check)
        if not check:
            plot_all(os.path.join(ROOT, "docs", "img"))
        if check and stale:
            sys.exit("report.py: out of date (run bench/report.py tables): " + ", ".join(stale))
        for s in stale:
            print(f"report.py: updated {s}")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main(sys.argv)
