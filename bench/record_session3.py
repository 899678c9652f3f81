#!/usr/bin/env python3
"""Turn the raw output of the third GPU session of 2026-11-30 (runF, runG, runH in RAW_DIR, see its
README.md) into one versioned record and a plot of the hipBone operator kernels.

    python3 bench/record_session3.py RAW_DIR OUT_JSON PLOT_DIR

Every number is read from the raw files; derived numbers (speed-ups, efficiencies, rates) say how
they are formed."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rawio import jsonl, tests  # noqa: E402
from tutorial_log import parse as tutorial  # noqa: E402

PEAK64, PEAK32, BW = 33.4, 65.3, 4.35  # TFLOP/s, TFLOP/s, TB/s: ../shared/spec/h200-anchors.md


def kernels(path, peak):
    out = {}
    for r in jsonl(path):
        k = {key[:-3]: v for key, v in r.items() if key.endswith("_ms")}
        k["volume_half_tflops"] = r["volume_flops"] / (r["volume_half_ms"] * 1e9)
        k["volume_half_pct_peak"] = 100 * k["volume_half_tflops"] / peak
        k["elements"] = r["elements"]
        out[r["N"]] = k
    return out


def ncu(path):
    """FP64 counters of the first ESDGVolumeHalf and ESDGFaceFlux launch in ncu's text output"""
    if not os.path.exists(path):
        return None
    out, cur = {}, None
    for line in open(path):
        m = re.match(r"\s+void (ESDG\w+)<", line)
        if m:
            cur = m.group(1) if m.group(1) not in out else None
            if cur:
                out[cur] = {}
            continue
        m = re.match(r"\s+(\S+)\s+\S+\s+([0-9.,]+)\s*$", line)
        if cur and m:
            out[cur][m.group(1)] = float(m.group(2).replace(",", ""))
    for k, v in out.items():
        fl = 2 * v["smsp__sass_thread_inst_executed_op_dfma_pred_on.sum"] + v["smsp__sass_thread_inst_executed_op_dmul_pred_on.sum"] + v["smsp__sass_thread_inst_executed_op_dadd_pred_on.sum"]
        v["hw_fp64_flops"] = fl
        v["hw_fp64_tflops_at_ncu_duration"] = fl / (v["gpu__time_duration.sum"] * 1e-6) / 1e12
    return out


def logview_time(path, event):
    if not os.path.exists(path):
        return None
    for line in open(path):
        if line.startswith(event + " "):
            return float(line.split()[2 if event.startswith("Time") else 3])
    return None


def main():
    raw, out_json, plots = sys.argv[1:4]
    R = lambda run, f: os.path.join(raw, run, f)  # noqa: E731

    # ESDG kernels (runG: both precisions; runH: N=4 and N=8 in double after the N=8 fix)
    kd, ks = kernels(R("runG", "esdg-kernels-double.json"), PEAK64), kernels(R("runG", "esdg-kernels-single.json"), PEAK32)
    kh = kernels(R("runH", "esdg-kernels-double.json"), PEAK64)
    tune = {p: {k: v for k, v in kk[4].items() if k.startswith("tune_") or k in ("volume_half", "volume_full")} for p, kk in (("double", kd), ("single", ks)) if 4 in kk}
    counters = ncu(R("runG", "ncu.txt"))
    if counters and 4 in kd:
        v = counters["ESDGVolumeHalf"]
        v["hw_fp64_tflops_at_event_time"] = v["hw_fp64_flops"] / (kd[4]["volume_half"] * 1e-3) / 1e12
        v["useful_over_hw_flops"] = 32768 * 750 * 125 / v["hw_fp64_flops"]

    # 2 GPUs (runF), face-value ghost exchange
    scaling = jsonl(R("runF", "esdg-scaling.jsonl"))
    for r in scaling:
        base = next(x for x in scaling if x["kind"] == r["kind"] and x["gpus"] == 1)
        r["efficiency"] = (base["s_per_step"] / r["s_per_step"] / r["gpus"]) if r["kind"] == "strong" else base["s_per_step"] / r["s_per_step"]

    # FP32
    fp32 = {"runG": {}, "runH": {}, "runJ": {}}
    for f in ("bubble-double", "bubble-single", "baro-L3-double", "baro-L3-single", "baro-L4-double", "baro-L4-single"):
        if os.path.exists(R("runG", f + ".txt")):
            fp32["runG"][f] = tutorial(R("runG", f + ".txt"))
    for f in ("bubble-double", "bubble-single-plain", "bubble-single-ref", "bubble-single-refcomp", "baro-L3-single-plain", "baro-L3-single-ref", "baro-L3-double-ref"):
        if os.path.exists(R("runH", f + ".txt")):
            fp32["runH"][f] = tutorial(R("runH", f + ".txt"))
    for f in ("bubble-double-ref", "bubble-single-ref"):
        if os.path.exists(R("runJ", f + ".txt")):
            fp32["runJ"][f] = tutorial(R("runJ", f + ".txt"))
    for run, d in fp32.items():
        dbl = d.get("bubble-double") or d.get("bubble-double-ref")
        for k, v in d.items():
            if k.startswith("bubble-single") and dbl and dbl["s_per_step"] and v["s_per_step"]:
                v["speedup_over_double"] = dbl["s_per_step"] / v["s_per_step"]
                v["max_w_rel_diff_vs_double"] = (v["max_w"] - dbl["max_w"]) / dbl["max_w"] if dbl["steps"] == v["steps"] else None
        for L in ("L3", "L4"):
            a, b = d.get("baro-%s-double" % L), d.get("baro-%s-single" % L)
            if a and b:
                b["speedup_over_double"] = a["s_per_step"] / b["s_per_step"]
                b["max_w_ratio_single_over_double"] = b["max_w"] / a["max_w"]
    fp32["note"] = (
        "runG: commit 696169d, double bubble 200 steps vs single 1000 steps (time per step compared); runH: both 1000 steps. "
        "plain: as before; ref: -esdg_reference_residual (runH: a VecAXPY per RHS; runJ: fused into the volume kernel, against double with the same option); refcomp: + -ts_lsrk_compensated. Diagnostics summed in double with compensation."
    )

    # hipBone
    hb = {"v1_v2_runG": jsonl(R("runG", "hb-v1v2.jsonl")), "fom_v2_runG": jsonl(R("runG", "hb-fom.jsonl")), "v3_v2_runH": jsonl(R("runH", "hb-v3v2.jsonl")), "fom_v3_runH": jsonl(R("runH", "hb-fom-v3.jsonl")), "scaling_2gpu_runF": jsonl(R("runF", "hb-scaling.jsonl"))}

    # P1
    def p1(path):
        recs = jsonl(path)
        keep = [r for r in recs if r.get("method") in ("speedup", "speedup_reduce_variant", "reduce_map") or (r.get("op") == "matrix" and r.get("method", "").startswith("gpu_"))]
        return [{k: v for k, v in r.items() if k not in ("bench",)} for r in keep]

    p1rec = {"gather_runF": p1(R("runF", "p1.jsonl")), "reduce_runG": p1(R("runG", "p1.jsonl")), "reduce_variants_runI": p1(R("runI", "p1-reduce-variants.jsonl"))}

    advdiff = {
        "note": "mountain_advdiff, options/mountain_advdiff.opts (558,624 tets, 20 Crank-Nicolson steps, GMRES + GAMG), runF; -log_view times in s",
        "gpu_1xH200": {"total_s": logview_time(R("runF", "advdiff-gpu-logview.txt"), "Time (sec):"), "KSPSolve_s": logview_time(R("runF", "advdiff-gpu-logview.txt"), "KSPSolve")},
        "cpu_16_ranks": {"total_s": logview_time(R("runF", "advdiff-cpu16-logview.txt"), "Time (sec):"), "KSPSolve_s": logview_time(R("runF", "advdiff-cpu16-logview.txt"), "KSPSolve")},
    }
    g, c = advdiff["gpu_1xH200"], advdiff["cpu_16_ranks"]
    if g["total_s"] and c["total_s"]:
        advdiff["speedup_total"] = c["total_s"] / g["total_s"]
        advdiff["speedup_KSPSolve"] = c["KSPSolve_s"] / g["KSPSolve_s"]

    commits = {"runF": "df91c3f", "runG": "696169d"}
    for run in ("runH", "runI", "runJ"):
        if os.path.exists(R(run, "commit.txt")):
            commits[run] = open(R(run, "commit.txt")).read().strip()
    record = {
        "benchmark": "squall GPU session 3 of 2026-11-30: ESDG 2-GPU scaling, kernels in both precisions, FP32 accuracy options, hipBone v2/v3 kernels, P1 gather/reduce modes, mountain_advdiff",
        "date": "2026-11-30",
        "gpu": "NVIDIA H200 (2 x H200 machine; one GPU per pipeline)",
        "driver": "580.159.04",
        "clocks": "SM 1980 MHz max, memory 3201 MHz, as found (not locked)",
        "raw": raw,
        "commits": commits,
        "peaks_measured": {"fp64_tflops": PEAK64, "fp32_tflops": PEAK32, "stream_tbs": BW},
        "tests": {"runF_double": tests(R("runF", "ctest.log")), "runG_double": tests(R("runG", "ctest-double.log")), "runG_single": tests(R("runG", "ctest-single.log")), "runH_double": tests(R("runH", "ctest-double.log")), "runH_single": tests(R("runH", "ctest-single.log")), "runI_hb": tests(R("runI", "ctest-hb.log")), "runJ_double_esdg": tests(R("runJ", "ctest-double.log")), "runJ_single_esdg": tests(R("runJ", "ctest-single.log"))},
        "esdg_kernels_runG": {"double": kd, "single": ks},
        "esdg_kernels_runH_double": kh,
        "esdg_tuning_N4_runG": tune,
        "esdg_ncu_N4_runG": counters,
        "esdg_scaling_2gpu_runF": {"note": "one rank per GPU, host-staged MPI (-use_gpu_aware_mpi 0), ghost face values only (f17387a); time per step = TSSolve wall / 30 steps", "runs": scaling},
        "fp32": fp32,
        "hipbone": hb,
        "p1": p1rec,
        "mountain_advdiff": advdiff,
    }
    json.dump(record, open(out_json, "w"), indent=1)

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    series = {}
    for r in hb["v1_v2_runG"] + hb["v3_v2_runH"]:
        if r.get("bench") == "hb_operator":
            name = {"3d": "v1", "2d": "v1", "2d_capped": "v1 capped", "3d_v2": "v2", "2d_v2": "v2", "2d_v3": "v3"}.get(r["kernel"], r["kernel"])
            series.setdefault(name, {})[r["N"]] = r["roofline_fraction"]
    for name, pts in sorted(series.items()):
        ns = sorted(pts)
        ax.plot(ns, [100 * pts[n] for n in ns], "o-", label=name)
    ax.axhline(90, color="gray", ls="--", lw=0.8, label="goal 90%")
    ax.set_xlabel("order N")
    ax.set_ylabel("% of measured streaming roofline")
    ax.set_title("hipBone operator kernel, one H200, 2e7 unknowns (runG, runH)")
    ax.set_ylim(0, 100)
    ax.legend()
    fig.tight_layout()
    fig.savefig(os.path.join(plots, "hb-kernels-h200-session3.png"), dpi=120)


if __name__ == "__main__":
    main()
