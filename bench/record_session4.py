#!/usr/bin/env python3
"""Turn the raw output of the fourth GPU session of 2026-11-30 (runL1 .. runL4 in RAW_DIR, see its
README.md; one H200 each, the script that ran them is RAW_DIR/runL-script.sh) into one versioned record.

    python3 bench/record_session4.py RAW_DIR OUT_JSON

Every number is read from the raw files; derived numbers (speed-ups, ratios, rates) say how they are
formed. The session-3 record (gpu-h200-2026-11-30-session3.json) holds the numbers these are compared with."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rawio import jsonl, tests  # noqa: E402
from record_session3 import PEAK32, PEAK64, BW, kernels, logview_time  # noqa: E402
from tutorial_log import parse as tutorial  # noqa: E402


def share(path):
    """GPU time per step of the volume, surface, update and node-reduction events, and the step (-log_view_gpu_time)"""
    if not os.path.exists(path):
        return None
    ev = {"step": "TSStep", "rhs": "SqESDGRHS", "volume": "SqESDGVolume", "surface": "SqESDGSurface", "update": "SqLSRKUpdate", "node_reduce": "SqESDGNodeReduce"}
    steps = None
    for line in open(path):
        if line.startswith("TSStep "):
            steps = int(line.split()[1])
    out = {k: logview_time(path, e) for k, e in ev.items()}
    out = {k: (v / steps if (v is not None and steps) else None) for k, v in out.items()}
    if out["step"] and out["rhs"] and out["update"]:
        out["outside_rhs_and_update"] = out["step"] - out["rhs"] - out["update"]
    return {"steps": steps, "s_per_step": out}


def run(raw, name, path):
    p = os.path.join(raw, name, path)
    return tutorial(p) if os.path.exists(p) else None


def main():
    raw, out_json = sys.argv[1:3]
    L1, L2, L3, L4 = (os.path.join(raw, r) for r in ("runL1", "runL2", "runL3", "runL4"))
    commit = {r: open(os.path.join(raw, r, "commit.txt")).read().strip() for r in ("runL1", "runL2", "runL3", "runL4") if os.path.exists(os.path.join(raw, r, "commit.txt"))}
    kd = kernels(os.path.join(L1, "esdg-kernels-double.json"), PEAK64)
    ks = kernels(os.path.join(L2, "esdg-kernels-single.json"), PEAK32)
    s3 = json.load(open(os.path.join(os.path.dirname(out_json), "gpu-h200-2026-11-30-session3.json")))
    before = s3["esdg_kernels_runH_double"]
    bubble = {
        "double_runL1": run(raw, "runL1", "bubble-double.txt"),
        "double_runL3": run(raw, "runL3", "bubble-double.txt"),
        "double_perturbation_300_steps_runL2": run(raw, "runL2", "bubble-double-pert300.txt"),
        "single_plain_runL2": run(raw, "runL2", "bubble-single-plain.txt"),
        "single_perturbation_runL2": run(raw, "runL2", "bubble-single-pert.txt"),
        "single_plain_runL3": run(raw, "runL3", "bubble-single-plain.txt"),
        "single_perturbation_runL3": run(raw, "runL3", "bubble-single-pert.txt"),
        "double_fused_stage_runL4": run(raw, "runL4", "bubble-double.txt"),
        "single_plain_fused_stage_runL4": run(raw, "runL4", "bubble-single-plain.txt"),
    }
    ratios = {}
    d4, s4 = bubble["double_fused_stage_runL4"], bubble["single_plain_fused_stage_runL4"]
    if d4 and s4 and d4["s_per_step"] and s4["s_per_step"]:
        ratios["double_over_single_plain_fused_stage_runL4"] = d4["s_per_step"] / s4["s_per_step"]
    for tag in ("runL2", "runL3"):
        d = bubble["double_runL3" if tag == "runL3" else "double_runL1"]
        for form in ("plain", "perturbation"):
            s = bubble.get("single_%s_%s" % (form, tag))
            if d and s and d["s_per_step"] and s["s_per_step"]:
                ratios["double_plain_over_single_%s_%s" % (form, tag)] = d["s_per_step"] / s["s_per_step"]
    layers = {}
    for r in jsonl(os.path.join(L1, "hb-v3layers.jsonl")):
        layers.setdefault(str(r["N"]), {})[str(r["v3_layers"])] = {"roofline_fraction": r["roofline_fraction"], "kernel_gflops": r["kernel_gflops"], "stream_gbs": r["stream_gbs"], "t_kernel_s": r["t_kernel"]}
    rec = {
        "benchmark": "squall GPU session 4: ESDG kernels after the instruction cuts, perturbation form in single precision, hipBone v3 layers per step",
        "date": "2026-11-30",
        "gpu": "1 x NVIDIA H200 (device kind nvidia-h200), driver 580.159.04",
        "clocks": "SM 1980 MHz max, memory 3201 MHz, as found (not locked); smi.txt in each run",
        "commits": commit,
        "raw": "bench/results/raw/2026-11-30/runL1, runL2, runL3 (script: runL-script.sh)",
        "peaks_measured": {"fp64_tflops": PEAK64, "fp32_tflops": PEAK32, "stream_tbs": BW},
        "tests": {k: tests(os.path.join(raw, *k.split("/"))) for k in ("runL1/ctest-double.log", "runL1/ctest-single.log", "runL2/ctest-double-output.log", "runL2/ctest-single-output.log", "runL3/ctest-double-esdg.log", "runL3/ctest-single-esdg.log", "runL4/ctest-double-esdg.log", "runL4/ctest-single-esdg.log")},
        "tests_note": "runL1: the 5 failures in each precision are the GPU output tests (gpu_rising_bubble_*), which could not start (the ctest python was not linked: device-run.sh read the wrong cache variable); runL2 ran those 5 in each precision, all pass; runL3 re-ran the ESDG GPU tests after the check-only node reduction, runL4 after the fused LSRK stage (every gpu_esdg_* test also checks fused against unfused bit for bit)",
        "sanitizer_memcheck_runL1": open(os.path.join(L1, "sanitizer-summary.txt")).read().split("\n")[:-1] if os.path.exists(os.path.join(L1, "sanitizer-summary.txt")) else None,
        "esdg_kernels": {
            "note": "32,768 elements for N=2..6, 4,096 for N=7, 8; boxes; median of 10; volume_half_tflops counts the flops of SquallESDGVolumeFlops (61+12+2x11 per pair on boxes since this session, 99+2x13 before), so rates before and after are not comparable: compare times",
            "double_runL1": kd,
            "single_runL2": ks,
            "single_over_double_time": {N: {k: kd[N][k] / ks[N][k] for k in ("rhs", "volume_half", "volume_lift", "faces")} for N in kd if N in ks},
            "N4_before_runH_ms": {k: before["4"][k] for k in ("rhs", "volume_half", "volume_lift", "faces")},
            "N8_before_runH_ms": {k: before["8"][k] for k in ("rhs", "volume_half", "volume_lift", "faces")},
        },
        "step_share_double_N4_262144": {"runL1": share(os.path.join(L1, "esdg-logview.txt")), "runL3": share(os.path.join(L3, "esdg-logview.txt")), "runL4_fused_stage": share(os.path.join(L4, "esdg-logview.txt"))},
        "bubble_N4_262144_1000_steps": bubble,
        "bubble_speed_ratios": ratios,
        "baroclinic_L3_single_perturbation_runL2": run(raw, "runL2", "baro-L3-single-pert.txt"),
        "hipbone_v3_layers_runL1": {"note": "2e7 unknowns, 50 applications, double; roofline_fraction = kernel bytes / time against the 8:1 streaming rate of the same run", "by_order": layers},
        "hipbone_fom_layers_by_order_runL2": jsonl(os.path.join(L2, "hb-fom-auto.jsonl")),
    }
    json.dump(rec, open(out_json, "w"), indent=1, sort_keys=False)
    print("wrote", out_json)


if __name__ == "__main__":
    main()
