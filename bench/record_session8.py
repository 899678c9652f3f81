#!/usr/bin/env python3
"""Turn the raw output of the eighth GPU session (runP1-runP6 in RAW_DIR, see its README.md; one H200 each,
the script that ran them is RAW_DIR/runP-script.sh) into one versioned record.

    python3 bench/record_session8.py RAW_DIR OUT_JSON [PLOT_DIR]

With PLOT_DIR (needs matplotlib): esdg-roofline-h200-session8.png, the volume kernel at the new defaults in
both precisions against the H200's measured limits.

Every number is read from the raw files (the device's clocks from smi.txt, the commit from commit.txt)."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rawio import jsonl, read_text, record_head, run_dirs, tests, write_record  # noqa: E402
from tutorial_log import parse as tutorial  # noqa: E402

RUNS = ("resP1", "resP2", "resP4", "resP5", "resP6", "resP7")
KEYS = ("volume_half", "volume_line", "volume_lift", "faces")


def kernels(path, tag):
    """per order, the ms of the RHS and of the volume and face kernels (median of 10) of one esdg_bench tag"""
    out = {}
    for r in jsonl(path):
        if r.get("tag") != tag:
            continue
        k = {"elements": r["elements"], "nodes": r["nodes"], "volume_flops": r["volume_flops"], "rhs_ms": r["rhs_ms"]}
        for key in KEYS:
            if key + "_ms" in r:
                k[key + "_ms"] = r[key + "_ms"]
            if key + "_pct_peak" in r:
                k[key + "_pct_fp64_peak" if r["precision"] == "double" else key + "_pct_fp32_peak"] = r[key + "_pct_peak"]
        out[str(r["N"])] = k
    return out


def bubble(path):
    """what a rising_bubble run printed (tutorial_log.parse), None if it is missing"""
    return tutorial(path) if os.path.exists(path) else None


def ncu(path):
    """a few Nsight Compute values of the one kernel profiled, and the L1TEX-scoreboard share of the stalls"""
    if not os.path.exists(path):
        return None
    text, out = open(path).read(), {}
    for key in ("Duration", "Executed Ipc Active", "Issue Slots Busy", "Warp Cycles Per Issued Instruction", "Registers Per Thread", "Theoretical Occupancy", "Achieved Occupancy"):
        m = re.search(r"^\s*" + re.escape(key) + r"\s+(\S+)\s+([0-9.,]+)\s*$", text, re.M)
        if m:
            out[key + " (" + m.group(1) + ")"] = float(m.group(2).replace(",", ""))
    m = re.search(r"spends ([0-9.]+) cycles being stalled waiting for a scoreboard dependency on\s+a L1TEX.*?This stall type represents about ([0-9.]+)%", text, re.S)
    # ncu's rule reports the L1TEX-scoreboard stall only where it is a main cause: None means below its threshold
    out["L1TEX scoreboard stall (cycles per issued instruction, % of the stalls)"] = [float(m.group(1)), float(m.group(2))] if m else None
    m = re.search(r"executes (\d+) fused and (\d+) non-fused FP64 instructions", text)
    if m:
        out["fp64_fused_instructions"], out["fp64_nonfused_instructions"] = int(m.group(1)), int(m.group(2))
    return out


PEAK64, PEAK32, BW = 33.4, 65.3, 4.35  # TFLOP/s, TFLOP/s, TB/s: ../shared/spec/h200-anchors.md


def roofline(rec, png):
    """the half sweep's useful TFLOP/s against its arithmetic intensity (useful flops per minimum DRAM byte:
    the 5 state values and Phi read, the 5 RHS values written per node), both precisions, with the roofs"""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(8.5, 4.5))
    ai = [10 ** (x / 20) for x in range(0, 50)]
    ax.loglog(ai, [min(PEAK64, a * BW) for a in ai], "k-", label=f"measured FP64 {PEAK64} TFLOP/s, {BW} TB/s")
    ax.loglog(ai, [min(PEAK32, a * BW) for a in ai], "k--", label=f"measured FP32 {PEAK32} TFLOP/s")
    for key, size, peak, mark in (("defaults_double_resP5", 8, PEAK64, "o"), ("defaults_single_resP6", 4, PEAK32, "s")):
        ks = rec.get(key, {}).get("kernels_prefetch", {})
        for N in sorted(ks, key=int):
            k = ks[N]
            tf = k["volume_flops"] / (k["volume_half_ms"] * 1e9)
            x = k["volume_flops"] / (size * 11.0 * k["nodes"])
            ax.loglog([x], [tf], mark, color=f"C{int(N) - 2}", label=f"N={N} {'FP64' if size == 8 else 'FP32'}: {tf:.1f} ({100 * tf / peak:.0f}%)")
    ax.set_xlabel("arithmetic intensity (useful flop / minimum DRAM byte)")
    ax.set_ylabel("TFLOP/s (useful)")
    ax.set_title("ESDG volume kernel (half sweep), one H200, commit " + str(rec["commit"].get("resP5")))
    ax.legend(fontsize=6, loc="center left", bbox_to_anchor=(1.02, 0.5))
    fig.tight_layout()
    fig.savefig(png, dpi=120)


def main():
    raw, out_json = sys.argv[1:3]
    p = run_dirs(raw, RUNS)
    rd = lambda r, f: read_text(p, r, f)  # noqa: E731
    rec = record_head(p, "squall GPU session 8: the ESDG line-sweep volume kernel (measured, slower, removed) and the half sweep's L2 prefetch of the blocks ahead", "2026-12-01")
    rec.update({
        "sanitizer_resP1": rd("resP1", "sanitizer-summary.txt").split("\n") if rd("resP1", "sanitizer-summary.txt") else None,
        "note": "esdg_bench: boxes, 32,768 elements for N=2..6 and 4,096 for N=7, 8, median of 10 launches; pct of the measured FMA peak (FP64 33.4, FP32 65.3 TFLOP/s) for the useful flops of SquallESDGVolumeFlops. Bubble: N=4, 262,144 elements, perturbation form, 14-stage LSRK fused into the volume kernel",
        "line_sweep_resP1": {"kernels_half_vs_line": kernels(os.path.join(p["resP1"], "bench.jsonl"), "line"), "line_as_production": kernels(os.path.join(p["resP1"], "bench-lineprod.jsonl"), "line_prod"),
                             "ncu_N4_line": ncu(os.path.join(p["resP1"], "ncu-line.txt")), "ncu_N4_half": ncu(os.path.join(p["resP1"], "ncu-half.txt"))},
        "prefetch_all_one_wave_resP2": {"kernels_prefetch": kernels(os.path.join(p["resP2"], "bench.jsonl"), "prefetch"), "kernels_noprefetch": kernels(os.path.join(p["resP2"], "bench.jsonl"), "noprefetch"),
                                        "bubble_200_steps_prefetch": bubble(os.path.join(p["resP2"], "bubble-prefetch.txt")), "bubble_200_steps_noprefetch": bubble(os.path.join(p["resP2"], "bubble-noprefetch.txt")),
                                        "ncu_N4_half_prefetch": ncu(os.path.join(p["resP2"], "ncu-half.txt"))},
        "prefetch_tuning_bubble_100_steps_resP4": {os.path.basename(f)[7:-4]: bubble(os.path.join(p["resP4"], f)) for f in sorted(os.listdir(p["resP4"])) if f.startswith("bubble-")} if "resP4" in p else None,
    })
    for r, prec in (("resP5", "double"), ("resP6", "single")):
        if r in p:
            rec["defaults_" + prec + "_" + r] = {"kernels_prefetch": kernels(os.path.join(p[r], "bench.jsonl"), "prefetch"), "kernels_noprefetch": kernels(os.path.join(p[r], "bench.jsonl"), "noprefetch"),
                                                 "bubble_150_steps": {os.path.basename(f)[7:-4]: bubble(os.path.join(p[r], f)) for f in sorted(os.listdir(p[r])) if f.startswith("bubble-")}}
    if "resP7" in p:
        rec["single_bubble_1000_steps_perturbation_resP7"] = {"prefetch_2_half_wave": bubble(os.path.join(p["resP7"], "bubble1000-pf2.txt")), "no_prefetch": bubble(os.path.join(p["resP7"], "bubble1000-pf0.txt")),
                                                              "same_case_session5_runM4s_s_per_step": 0.0594, "double_plain_session5_runM2_s_per_step": 0.0912}
    write_record(rec, out_json)
    if len(sys.argv) > 3:
        roofline(rec, os.path.join(sys.argv[3], "esdg-roofline-h200-session8.png"))


if __name__ == "__main__":
    main()
