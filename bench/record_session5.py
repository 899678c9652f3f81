#!/usr/bin/env python3
"""Turn the raw output of the fifth GPU session of 2026-11-30 (runM1, runM2, runM3 in RAW_DIR, see its
README.md; one H200 each, the script that ran them is RAW_DIR/runM-script.sh) into one versioned record.

    python3 bench/record_session5.py RAW_DIR OUT_JSON

Every number is read from the raw files; derived numbers (ratios) say how they are formed. The session-4
record (gpu-h200-2026-11-30-session4.json) holds the numbers these are compared with."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rawio import jsonl, tests  # noqa: E402
from record_session4 import run, share  # noqa: E402


def ratio(a, b):
    """a's seconds per step over b's, None where either is missing"""
    return a["s_per_step"] / b["s_per_step"] if a and b and a.get("s_per_step") and b.get("s_per_step") else None


def main():
    raw, out_json = sys.argv[1:3]
    runs = [r for r in ("runM1", "runM2", "runM3", "runM4d", "runM4s") if os.path.exists(os.path.join(raw, r))]
    commit = {r: open(os.path.join(raw, r, "commit.txt")).read().strip() for r in runs if os.path.exists(os.path.join(raw, r, "commit.txt"))}
    M1, M2, M3, M4d, M4s = (os.path.join(raw, r) for r in ("runM1", "runM2", "runM3", "runM4d", "runM4s"))
    bubble = {
        "single_perturbation_departures_runM1": run(raw, "runM1", "bubble-single-pert.txt"),
        "double_plain_runM2": run(raw, "runM2", "bubble-double.txt"),
        "single_plain_runM2": run(raw, "runM2", "bubble-single-plain.txt"),
        "single_perturbation_departures_runM2": run(raw, "runM2", "bubble-single-pert.txt"),
        "double_plain_300_steps_runM3": run(raw, "runM3", "bubble-double.txt"),
        "single_perturbation_departures_entropy_jumps_runM4s": run(raw, "runM4s", "bubble-single-pert.txt"),
    }
    shares = {"%s_%s_runM1" % (p, f): share(os.path.join(M1, "logview-%s-%s.txt" % (p, f))) for p in ("double", "single") for f in ("plain", "pert")}
    same_form = {}
    for f in ("plain", "pert"):
        d, s = shares["double_%s_runM1" % f], shares["single_%s_runM1" % f]
        if d and s and d["s_per_step"]["step"] and s["s_per_step"]["step"]:
            same_form[f] = d["s_per_step"]["step"] / s["s_per_step"]["step"]
    n4 = {}
    for r, d in (("runM2", M2), ("runM3", M3)):
        for p in ("double", "single"):
            recs = jsonl(os.path.join(d, "esdg-n4-%s.json" % p))
            if recs:
                n4["%s_%s" % (p, r)] = {k[:-3]: v for k, v in recs[0].items() if k.endswith("_ms")}
    rec = {
        "benchmark": "squall GPU session 5: departures (perturbation form) on the GPU and the faces' entropy jumps from departures, the fused stages' admissibility verdict, face kernel without register cap and per-face geometry, occupancy of the single-precision volume kernel, hipBone v4, P1 reduce kernel affine",
        "date": "2026-11-30",
        "gpu": "1 x NVIDIA H200 (device kind nvidia-h200), driver 580.159.04",
        "clocks": "SM 1980 MHz max, memory 3201 MHz, as found (not locked); smi.txt in each run",
        "commits": commit,
        "raw": "bench/results/raw/2026-11-30/" + ", ".join(runs) + " (script: runM-script.sh)",
        "tests": {k: tests(os.path.join(raw, *k.split("/"))) for k in ("runM1/ctest-double-esdg.log", "runM1/ctest-single-esdg.log", "runM2/ctest-double.log", "runM2/ctest-single.log", "runM3/ctest-double.log", "runM3/ctest-single.log", "runM4d/ctest-double.log", "runM4s/ctest-single.log")},
        "tests_note": "runM1: gpu_esdg_pert_bubble_N8 failed in single after 3 steps (state 8.3e-4 relative to its flux terms against a 4000-eps bound); it runs one step since. runM2: all pass in both precisions",
        "bubble_N4_262144_1000_steps": bubble,
        "bubble_ratios": {
            "double_plain_over_single_plain_runM2": ratio(bubble["double_plain_runM2"], bubble["single_plain_runM2"]),
            "double_plain_over_single_perturbation_departures_runM2": ratio(bubble["double_plain_runM2"], bubble["single_perturbation_departures_runM2"]),
            "double_plain_runM2_over_single_perturbation_entropy_jumps_runM4s": ratio(bubble["double_plain_runM2"], bubble["single_perturbation_departures_entropy_jumps_runM4s"]),
            "same_form_double_over_single_step_logview_runM1": same_form,
        },
        "step_share_N4_262144_logview_30_steps_runM1": shares,
        "baroclinic_L3_single_perturbation_departures_runM1": run(raw, "runM1", "baro-L3-single-pert.txt"),
        "esdg_kernels_N4_32768_ms": {"note": "median of 10, boxes; tune_minb10/12: the half sweep at 10/12 blocks per SM; runM2: faces capped at 5 blocks/SM (tune_faces_minb1 = without cap); runM3: faces without cap and with per-face geometry (tune_faces_minb5 = capped, per-node geometry)", "by_precision_and_run": n4},
        "hipbone_v3_v4_runM4d": {"note": "2e7 unknowns, 50 applications, double; roofline_fraction = kernel bytes / time against the 8:1 streaming rate of the same run", "records": [{k: r[k] for k in ("N", "kernel", "v3_layers", "roofline_fraction", "kernel_gflops", "stream_gbs", "t_kernel")} for r in jsonl(os.path.join(M4d, "hb-v4.jsonl"))]},
        "p1_056M_runM4d": jsonl(os.path.join(M4d, "p1-056.jsonl")) or None,
        "p1_sweep_runM3": jsonl(os.path.join(M3, "p1-sweep.jsonl")) or None,
        "sanitizer_runM3": open(os.path.join(M3, "sanitizer-summary.txt")).read().split("\n")[:-1] if os.path.exists(os.path.join(M3, "sanitizer-summary.txt")) else None,
    }
    json.dump(rec, open(out_json, "w"), indent=1, sort_keys=False)
    print("wrote", out_json)


if __name__ == "__main__":
    main()
