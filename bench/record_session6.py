#!/usr/bin/env python3
"""Turn the raw output of the sixth GPU session (runN1, runN2 in RAW_DIR, see its README.md; one H200 each,
the script that ran them is RAW_DIR/runN-script.sh) into one versioned record.

    python3 bench/record_session6.py RAW_DIR OUT_JSON

Every number is read from the raw files (the device's clocks from smi.txt, the commit from commit.txt)."""
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rawio import jsonl, tests  # noqa: E402
from record_session4 import run  # noqa: E402


def main():
    raw, out_json = sys.argv[1:3]
    N1, N2 = (os.path.join(raw, r) for r in ("runN1", "runN2"))
    rec = {
        "benchmark": "squall GPU session 6: P1 reduce variant affine_xyz, hipBone v5 against v4, ESDG reference component masks (reverted)",
        "date": "2026-12-01",
        "device": {r: open(os.path.join(raw, r, "smi.txt")).read().strip() for r in ("runN1", "runN2")},
        "smi_fields": "index, name, clocks.sm (idle at query), clocks.max.sm, clocks.mem, driver",
        "commit": {r: open(os.path.join(raw, r, "commit.txt")).read().strip() for r in ("runN1", "runN2")},
        "tests": {"runN1/ctest-double.log": tests(os.path.join(N1, "ctest-double.log")), "runN2/ctest-single.log": tests(os.path.join(N2, "ctest-single.log"))},
        "sanitizer_runN1": open(os.path.join(N1, "sanitizer-summary.txt")).read().split("\n")[:-1],
        "hipbone_operator": {
            tag: [{k: r[k] for k in ("N", "kernel", "v3_layers", "roofline_fraction", "kernel_gflops", "stream_gbs")} for r in jsonl(os.path.join(d, "hb-v5.jsonl")) if r.get("bench") == "hb_operator"]
            for tag, d in (("double_runN1", N1), ("single_runN2", N2))
        },
        "p1_assembly_runN1": [r for r in jsonl(os.path.join(N1, "p1-xyz.jsonl")) if r.get("method") in ("speedup_reduce_variant", "gpu_coo", "gpu_atomic_slots", "gpu_reduce_affine_xyz", "gpu_reduce_affine")],
        "bubble_N4_262144": {
            "double_plain_300_steps_runN1": run(raw, "runN1", "bubble-double-plain-300.txt"),
            "single_perturbation_1000_steps_runN2_with_masks": run(raw, "runN2", "bubble-single-pert.txt"),
            "single_perturbation_300_steps_runN2_with_masks": run(raw, "runN2", "bubble-single-pert-300.txt"),
            "single_plain_300_steps_runN2": run(raw, "runN2", "bubble-single-plain-300.txt"),
            "note": "runN1's double perturbation run hit its 60 s timeout (set-up included); the masks of runN2 were reverted in 360c93f",
        },
    }
    with open(out_json, "w") as f:
        json.dump(rec, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
