#!/usr/bin/env python3
"""Turn the raw output of the ESDG GPU benchmark scripts into one versioned record and its plots.

    python3 bench/record_esdg.py RAW_DIR OUT_JSON PLOT_DIR

RAW_DIR holds runA..runD as described in its README.md (bench/run-esdg-gpu.sh, run-esdg-tts.sh,
run-esdg-scaling.sh and the single-precision runs write these files). Every number in the record is
read from those files; the derived ones (shares, speed-ups, percentages) say how they are formed."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rawio import jsonl, tests  # noqa: E402
from tutorial_log import parse as tutorial  # noqa: E402

import matplotlib  # noqa: E402

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

PEAK64, PEAK32, BW = 33.4, 65.3, 4.35  # TFLOP/s, TFLOP/s, TB/s: ../shared/spec/h200-anchors.md


def main():
    raw, out_json, plots = sys.argv[1:4]
    R = lambda run, f: os.path.join(raw, run, f)  # noqa: E731
    kern = jsonl(R("runD", "esdg-kernels.json"))
    k4 = next(r for r in kern if r["N"] == 4)
    flops4 = k4["volume_flops"]
    abl = {
        "note": "N=4, 32768 elements, volume kernel alone (no faces), median of 10 launches, runD; speed-up = variant time / production half-sweep time",
        "production_half_sweep_ms": k4["volume_half_ms"],
        "variants": {
            "full_sweep (every pair twice, no half sweep)": k4["volume_full_ms"],
            "half_sweep_unbalanced (thread i takes partners i+1..Nq-1)": k4["abl_unbalanced_ms"],
            "no_precomputed_logs (2 logs + 3 divisions per pair)": k4["abl_nolog_ms"],
            "unfused (one launch per direction)": k4["abl_unfused_ms"],
            "no_register_cap (98 registers, 5 blocks/SM)": k4["tune_minb1_ms"],
            "register_cap_64 (8 blocks/SM, spills)": k4["tune_minb8_ms"],
        },
        "faces": {"face_kernel_each_face_once_ms": k4["faces_ms"], "face_kernel_no_register_cap_ms": k4["tune_faces_minb1_ms"], "first_version_per_element_surface_ms": k4["surface_element_ms"]},
    }
    abl["speedup_of_each_optimisation"] = {k: v / k4["volume_half_ms"] for k, v in abl["variants"].items()}
    share = json.load(open(R("runA", "esdg-share.json")))[:1] + json.load(open(R("runB", "esdg-share.json")))
    share[0]["run"], share[1]["run"] = "runA (commit 8e748dc, -esdg_gpu_surface element -esdg_gpu_half_sweep 0 = the first version's kernels)", "runB (commit 1e846ee)"
    tts = json.load(open(R("runB", "esdg-tts.json"))) if os.path.exists(R("runB", "esdg-tts.json")) else jsonl(R("runB", "esdg-tts.json"))[0]
    bub64, bub32 = tutorial(R("runB", "esdg-tts-gpu.txt")), tutorial(R("runC", "bubble-single.txt"))
    baro = {}
    for L in (3, 4):
        d, s = tutorial(R("runB", f"baro-L{L}.txt")), tutorial(R("runC", f"baro-L{L}-single.txt"))
        baro[f"L{L}"] = {"double": d, "single": s, "speedup_single": d["s_per_step"] / s["s_per_step"]}
    k32 = {r["N"]: r for r in jsonl(R("runC", "esdg-kernels-single.json"))}
    fp32 = {
        "bubble_N4_262144_elements_1000_steps": {"double": bub64, "single": bub32, "speedup_single": bub64["s_per_step"] / bub32["s_per_step"]},
        "baroclinic_channel_N4": baro,
        "rhs_ms_double_vs_single": {r["N"]: {"double": r["rhs_ms"], "single": k32[r["N"]]["rhs_ms"], "speedup": r["rhs_ms"] / k32[r["N"]]["rhs_ms"]} for r in kern if r["N"] in k32},
        "goal": "speed-up >= 1.95 on the bubble with mass and energy drift <= 1e-6 relative (anchor 2.03)",
    }
    scaling = jsonl(R("runD", "esdg-scaling.jsonl"))
    for r in scaling:
        base = next(x for x in scaling if x["kind"] == r["kind"] and x["gpus"] == 1)
        r["efficiency"] = (base["s_per_step"] / r["s_per_step"] / r["gpus"]) if r["kind"] == "strong" else base["s_per_step"] / r["s_per_step"]
    record = {
        "benchmark": "ESDG on the GPU, session 2 (face kernel, tuning, ablation, time to solution, FP32, 2 GPUs)",
        "date": "2026-11-30",
        "gpu": "NVIDIA H200 (runD: 2 x H200, NVLink NV18)",
        "driver": "580.159.04",
        "clocks": "SM 1980 MHz max, memory 3201 MHz, as found (not locked)",
        "raw": raw,
        "commits": {"runA": "8e748dc", "runB": "1e846ee", "runC": "370a407 (single-precision PETSc)", "runD": "f88f9fe"},
        "peaks_measured": {"fp64_tflops": PEAK64, "fp32_tflops": PEAK32, "stream_tbs": BW},
        "flop_count": "useful volume flops: each unordered node pair once, 99 flops per pair flux + 13 per accumulation into each node",
        "kernels_runD": kern,
        "volume_half_N4": {"tflops": flops4 / (k4["volume_half_ms"] * 1e9), "pct_fp64_peak": 100 * flops4 / (k4["volume_half_ms"] * 1e9) / PEAK64, "goal_pct": 75},
        "rhs_N4_ms": {"first_version (runD, element surface + full sweep)": None, "element_surface_half_sweep": k4["rhs_element_ms"], "current": k4["rhs_ms"]},
        "ablation_N4": abl,
        "share_of_step": share,
        "time_to_solution": tts,
        "fp32": fp32,
        "scaling_2gpu": {"note": "one rank per GPU, MPICH without CUDA support: ghost exchange staged through the host (-use_gpu_aware_mpi 0), whole ghost elements", "runs": scaling},
        "throughput_runA": jsonl(R("runA", "esdg-throughput.json")),
        "tests": {run: tests(R(run, "ctest.log")) for run in ("runA", "runB", "runC", "runD")},
    }
    record["rhs_N4_ms"].pop("first_version (runD, element surface + full sweep)")
    json.dump(record, open(out_json, "w"), indent=1)

    # roofline of the volume kernel (runD)
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    ai = [10 ** (x / 20) for x in range(-20, 80)]
    ax.loglog(ai, [min(PEAK64, a * BW) for a in ai], "k-", label=f"H200 measured: {PEAK64} TFLOP/s FP64, {BW} TB/s")
    for r in kern:
        x = r["volume_flops"] / (8.0 * r["nodes"] * 11)
        tf = r["volume_flops"] / (r["volume_half_ms"] * 1e9)
        ax.loglog([x], [tf], "o", label=f"N={r['N']}: {tf:.1f} TFLOP/s ({100 * tf / PEAK64:.0f}%)")
    ax.set_xlabel("arithmetic intensity (useful flop / minimum DRAM byte: 11 values per node)")
    ax.set_ylabel("TFLOP/s (FP64)")
    ax.set_title("ESDG volume kernel (half sweep), H200, commit f88f9fe")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(os.path.join(plots, "esdg-roofline-h200.png"), dpi=120)
    # throughput against element count (runA)
    thr = record["throughput_runA"]
    fig, ax = plt.subplots(figsize=(6.5, 4.5))
    for N in sorted({r["N"] for r in thr}):
        rs = sorted((r for r in thr if r["N"] == N), key=lambda r: r["elements"])
        ax.loglog([r["elements"] for r in rs], [r["element_rhs_per_s"] for r in rs], "o-", label=f"N={N}")
    ax.set_xlabel("elements")
    ax.set_ylabel("element-RHS evaluations per second")
    ax.set_title("ESDG RHS throughput, one H200, commit 8e748dc")
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(plots, "esdg-throughput-h200.png"), dpi=120)
    # share of the step and ablation
    fig, (a1, a2) = plt.subplots(1, 2, figsize=(11, 4.2))
    labels = ["first version", "current"]
    bottom = [0, 0]
    for k, col in (("volume", "C0"), ("surface", "C1"), ("update", "C2")):
        vals = [s[k + "_s"] / s["steps"] * 1e3 for s in share]
        a1.bar(labels, vals, bottom=bottom, color=col, label=k)
        bottom = [b + v for b, v in zip(bottom, vals)]
    other = [s["step_time_s"] / s["steps"] * 1e3 - b for s, b in zip(share, bottom)]
    a1.bar(labels, other, bottom=bottom, color="C7", label="other (CFL, checks, launches)")
    a1.set_ylabel("ms per step")
    a1.set_title("bubble N=4, 262,144 elements (GPU event times)", fontsize=9)
    a1.legend(fontsize=8)
    names = list(abl["variants"].keys())
    a2.barh([n.split(" (")[0] for n in names] + ["production"], [abl["variants"][n] for n in names] + [k4["volume_half_ms"]], color=["C3"] * len(names) + ["C0"])
    a2.set_xlabel("volume kernel ms (N=4, 32,768 elements)")
    fig.tight_layout()
    fig.savefig(os.path.join(plots, "esdg-share-ablation-h200.png"), dpi=120)
    print(json.dumps({"volume_half_N4": record["volume_half_N4"], "tts": tts, "fp32_bubble_speedup": fp32["bubble_N4_262144_elements_1000_steps"]["speedup_single"]}, indent=1))


if __name__ == "__main__":
    main()
