#!/usr/bin/env python3
"""Plots from bench/results/esdg-gpu-*.json: the volume kernel on the H200 roofline, and RHS
throughput (element-RHS evaluations per second) against element count.

    python3 scripts/plot_esdg_bench.py bench/results/esdg-gpu-h200-2026-11-30.json bench/results/

The ceilings are the measured H200 anchors (FP64 FMA 33.4 TFLOP/s, 8:1 streaming 4.35 TB/s)."""
import json
import sys

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PEAK, BW = 33.4e12, 4.35e12


def main():
    src, outdir = sys.argv[1], sys.argv[2]
    data = json.load(open(src))
    recs = data["records"]
    kern = [r for r in recs if r.get("tag") in ("kernels", "L5", "L4")]
    # roofline: the volume kernel's minimum traffic is reading the state and writing the result
    # (10 values per node) plus Phi and the metric (1 + 9 per node on curved meshes; 1 on boxes)
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    ai = [10 ** (x / 20) for x in range(-20, 80)]
    ax.loglog(ai, [min(PEAK, a * BW) / 1e12 for a in ai], "k-", label="H200 measured: 33.4 TFLOP/s, 4.35 TB/s")
    for r in kern:
        bytes_ = 8.0 * r["nodes"] * 11
        x = r["volume_flops"] / bytes_
        ax.loglog([x], [r["volume_half_tflops"]], "o", label=f"N={r['N']} half sweep ({r['pct_fp64_peak_half']:.0f}%)")
    ax.set_xlabel("arithmetic intensity (useful flop / minimum DRAM byte)")
    ax.set_ylabel("TFLOP/s (FP64)")
    ax.set_title(f"ESDG volume kernel, {data['gpu']}, commit {data['commit']}")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(f"{outdir}/esdg-roofline-h200.png", dpi=120)
    thr = [r for r in recs if r.get("tag") == "throughput"]
    if thr:
        fig, ax = plt.subplots(figsize=(6.5, 4.5))
        for N in sorted({r["N"] for r in thr}):
            rs = sorted((r for r in thr if r["N"] == N), key=lambda r: r["elements"])
            ax.loglog([r["elements"] for r in rs], [r["element_rhs_per_s"] for r in rs], "o-", label=f"N={N}")
        ax.set_xlabel("elements")
        ax.set_ylabel("element-RHS evaluations per second")
        ax.set_title(f"ESDG RHS throughput, {data['gpu']}")
        ax.legend()
        fig.tight_layout()
        fig.savefig(f"{outdir}/esdg-throughput-h200.png", dpi=120)


if __name__ == "__main__":
    main()
