#!/usr/bin/env python3
"""Turn the raw output of the ninth GPU session (resQ1-resQ6 in RAW_DIR, see its README.md; one H200 each,
the script that ran them is RAW_DIR/runQ-script.sh) into one versioned record.

    python3 bench/record_session9.py RAW_DIR OUT_JSON

Every number is read from the raw files (the device's clocks from smi.txt, the commit from commit.txt);
the ratios are computed here from the s/step of the runs named next to them."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rawio import jsonl, read_text, run_dirs, tests  # noqa: E402
from record_session8 import bubble, kernels  # noqa: E402

RUNS = ("resQ1", "resQ2", "resQ3", "resQ4", "resQ5", "resQ6")


def p1(path):
    """the scalar-matrix records (bs 1) of one p1_assembly run: method -> time_ms, and the reduce variants' speed-ups"""
    out = {}
    for r in jsonl(path):
        if r.get("bs") != 1 or r.get("op") not in ("matrix", "element_kernel"):
            continue
        if r["method"] == "speedup_reduce_variant":
            out["speedup_" + r["variant"]] = {k: r[k] for k in ("time_ms", "over_slots", "over_coo")}
        elif "time_ms" in r:
            out[r["method"]] = {k: r[k] for k in ("tets", "nnz", "time_ms", "time_ms_min") if k in r}
    return out


def ncu_durations(path):
    """the kernel durations (us) and SM clocks (GHz) Nsight Compute printed, one per profiled launch"""
    if not os.path.exists(path):
        return None
    t = open(path).read()
    return {"duration_us": [float(x) for x in re.findall(r"^\s*Duration\s+us\s+([0-9.]+)", t, re.M)], "sm_ghz": [float(x) for x in re.findall(r"^\s*SM Frequency\s+Ghz\s+([0-9.]+)", t, re.M)]}


def main():
    raw, out_json = sys.argv[1:3]
    p = run_dirs(raw, RUNS)
    rd = lambda r, f: read_text(p, r, f)  # noqa: E731
    q1, q2, q3, q4, _, _ = (p.get(r) for r in RUNS)
    rec = {
        "benchmark": "squall GPU session 9: every GPU test at the final code in both precisions; a face-kernel L2 prefetch (measured slower, removed); P1 assembly without the host wait; the bubble in both precisions at the current defaults",
        "date": "2026-12-01",
        "device": {r: rd(r, "smi.txt") for r in p},
        "smi_fields": "index, name, clocks.sm (idle at query), clocks.max.sm, clocks.mem, driver",
        "commit": {r: rd(r, "commit.txt") for r in p},
        "tests": {r + "/" + f: tests(os.path.join(p[r], f)) for r in p for f in ("ctest.log", "ctest-facepf.log") if os.path.exists(os.path.join(p[r], f))},
        "tests_note": "resQ6 ran the hipBone GPU tests and every test named forest or hipbone: its one failure is valgrind_hb_operator_forest, reported Not Run (no valgrind on the device machine; it passes in CI)",
        "sanitizer_resQ1": rd("resQ1", "sanitizer-summary.txt").split("\n") if rd("resQ1", "sanitizer-summary.txt") else None,
        "note": "esdg_bench: boxes, 32,768 elements for N=2..6 and 4,096 for N=7, 8, median of 10 launches. Bubble: N=4, 262,144 elements, 14-stage LSRK fused into the volume kernel, L2 prefetch of the volume kernel at its default (2, half a wave). P1: the 558,624-tet mountain mesh, median of 20 timed calls (CUDA events around the whole call, host work included)",
    }
    if q1:
        rec["face_prefetch_resQ1"] = {
            "kernels_by_distance": {d: kernels(os.path.join(q1, "bench.jsonl"), "facepf" + d) for d in ("0", "0.5", "1")},
            "bubble_plain_300_steps_by_distance": {d: bubble(os.path.join(q1, "bubble300-facepf" + d + ".txt")) for d in ("0", "0.5")},
        }
        rec["p1_558624_tets_resQ1"] = {"methods": p1(os.path.join(q1, "p1.jsonl")), "ncu_reduce_affine_xyz_boost_clocks": ncu_durations(os.path.join(q1, "ncu-p1.txt"))}
    if q2:
        rec["single_resQ2"] = {"kernels": kernels(os.path.join(q2, "bench.jsonl"), "single"), "bubble_plain_1000_steps": bubble(os.path.join(q2, "bubble1000-plain.txt")),
                               "bubble_perturbation_1000_steps": bubble(os.path.join(q2, "bubble1000-pert.txt")), "bubble_plain_300_steps": bubble(os.path.join(q2, "bubble300-plain.txt"))}
    if q3:
        rec["double_resQ3"] = {"kernels": kernels(os.path.join(q3, "bench.jsonl"), "double"), "bubble_plain_1000_steps": bubble(os.path.join(q3, "bubble1000-plain.txt")),
                               "bubble_perturbation_300_steps": bubble(os.path.join(q3, "bubble300-pert.txt"))}
    if q4:
        rec["face_kernel_register_cap_N4_resQ4"] = {"note": "faces: the production face kernel, uncapped (132 registers, 3 blocks of 128 per SM); tune_faces_minb4/6: capped at 4/6 blocks; tune_faces_minb5: the per-node geometry at 5 blocks (before session 5)",
                                                    "runs": [{k: v for k, v in kernels(os.path.join(q4, "bench.jsonl"), tag)["4"].items()} for tag in ("n4r1", "n4r2")]}
        # (esdg_bench of 520fe83 also printed a volume-flop rate for the two new face variants: meaningless, left out)
        rec["face_kernel_register_cap_N4_resQ4"]["runs_tune_ms"] = [{k: r[k] for k in r if (k.startswith("tune_faces") or k == "faces_ms") and k.endswith("_ms")} for r in jsonl(os.path.join(q4, "bench.jsonl"))]
    if q2 and q3:
        s, d = rec["single_resQ2"], rec["double_resQ3"]
        dp, dq = d["bubble_plain_1000_steps"]["s_per_step"], d["bubble_perturbation_300_steps"]["s_per_step"]
        sp, sq = s["bubble_plain_1000_steps"]["s_per_step"], s["bubble_perturbation_1000_steps"]["s_per_step"]
        rec["bubble_ratios_double_over_single"] = {"plain_over_plain": round(dp / sp, 3), "plain_double_over_perturbation_single": round(dp / sq, 3), "perturbation_over_perturbation": round(dq / sq, 3)}
    with open(out_json, "w") as f:
        json.dump(rec, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
