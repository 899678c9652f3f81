#!/usr/bin/env python3
"""Turn the raw output of the seventh GPU session (runO1-runO6 in RAW_DIR, see its README.md; one H200 each,
the script that ran them is RAW_DIR/runO-script.sh) into one versioned record.

    python3 bench/record_session7.py RAW_DIR OUT_JSON

Every number is read from the raw files (the device's clocks from smi.txt, the commit from commit.txt)."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rawio import jsonl, tests  # noqa: E402
from record_session4 import run  # noqa: E402

RUNS = ("runO1", "runO2", "runO3", "runO4", "runO5", "runO6")


def operator(path):
    """the operator records of an hb_bench output: order, kernel actually run, % of the roofline, GFLOP/s"""
    return [{"N": r["N"], "kernel": r["kernel"], "roofline_pct": round(100 * r["roofline_fraction"], 1), "kernel_gflops": r["kernel_gflops"], "stream_gbs": r["stream_gbs"]} for r in jsonl(path) if r.get("bench") == "hb_operator"]


def fom(path):
    return [{k: r[k] for k in ("N", "NG", "iterations", "t_iter", "fom_gflops", "dofs_iter_per_s")} for r in jsonl(path) if r.get("bench") == "hb_cg"]


def ncu(path):
    """a few Nsight Compute section values of the one kernel profiled"""
    if not os.path.exists(path):
        return None
    text, out = open(path).read(), {}
    for key in ("Duration", "DRAM Throughput", "L1/TEX Cache Throughput", "L2 Cache Throughput", "Compute (SM) Throughput", "Achieved Occupancy", "Theoretical Occupancy", "Warp Cycles Per Issued Instruction", "L1/TEX Hit Rate", "Registers Per Thread"):
        m = re.search(r"^\s*" + re.escape(key) + r"\s+(\S+)\s+([0-9.,]+)\s*$", text, re.M)
        if m:
            out[key + " (" + m.group(1) + ")"] = float(m.group(2).replace(",", ""))
    k = re.search(r"(\w*(?:P1Assemble|HBLocalOp)\w*<[^>]*>)", text)
    out["kernel"] = k.group(1) if k else None
    return out


def logview_total(path):
    """the wall time PETSc's -log_view reports for the whole run"""
    if not os.path.exists(path):
        return None
    m = re.search(r"^Time \(sec\):\s+(\S+)", open(path).read(), re.M)
    return float(m.group(1)) if m else None


def main():
    raw, out_json = sys.argv[1:3]
    have = [r for r in RUNS if os.path.isdir(os.path.join(raw, r))]
    p = {r: os.path.join(raw, r) for r in have}
    rec = {
        "benchmark": "squall GPU session 7: hipBone low orders (v4's 2D kernel against the 3D one, new v6), new defaults, CG figure of merit; P1 reduce as the GPU default; ncu",
        "date": "2026-12-01",
        "device": {r: open(os.path.join(p[r], "smi.txt")).read().strip() for r in have},
        "smi_fields": "index, name, clocks.sm (idle at query), clocks.max.sm, clocks.mem, driver",
        "commit": {r: open(os.path.join(p[r], "commit.txt")).read().strip() for r in have},
        "tests": {r + "/" + f: tests(os.path.join(p[r], f)) for r in have for f in ("ctest-double.log", "ctest-single.log") if os.path.exists(os.path.join(p[r], f))},
        "sanitizer_runO4": open(os.path.join(p["runO4"], "sanitizer-summary.txt")).read().split("\n")[:-1] if "runO4" in p else None,
        "note": "hipBone: 2e7 unknowns, 50 back-to-back applications; roofline_pct = kernel bytes / time against the 8:1 streaming rate measured in the same run",
        "hipbone_operator_double": {
            "2d_kernels_switch1_runO1": operator(os.path.join(p["runO1"], "hb-lowN-2d.jsonl")),
            "3d_v2_runO1": operator(os.path.join(p["runO1"], "hb-lowN-3d.jsonl")),
            "v6_runO3": operator(os.path.join(p["runO3"], "hb-v6.jsonl")),
            "defaults_runO3": operator(os.path.join(p["runO3"], "hb-default.jsonl")),
            "2d_v4_N1_runO3": operator(os.path.join(p["runO3"], "hb-n1-2d.jsonl")),
            "final_defaults_N1_15_runO5": operator(os.path.join(p["runO5"], "hb-default.jsonl")) if "runO5" in p else None,
            "v6_64_registers_at_Nq_le_3_runO6": operator(os.path.join(p["runO6"], "hb-default.jsonl")) if "runO6" in p else None,
        },
        "hipbone_operator_single_runO2": {
            "defaults": operator(os.path.join(p["runO2"], "hb-default.jsonl")),
            "v6": operator(os.path.join(p["runO2"], "hb-v6.jsonl")),
            "3d_v2": operator(os.path.join(p["runO2"], "hb-3d.jsonl")),
            "2d_v4_layers": operator(os.path.join(p["runO2"], "hb-2d.jsonl")),
        },
        "hipbone_cg_fom": {"double_runO3": fom(os.path.join(p["runO3"], "hb-fom.jsonl")), "single_runO2": fom(os.path.join(p["runO2"], "hb-fom.jsonl")), "upstream_hipbone_same_gpu_gflops": {"3": 2270, "7": 2689, "15": 3430}},
        "ncu_runO3": {"p1_reduce_affine_xyz_bs1_558624_tets": ncu(os.path.join(p["runO3"], "ncu-p1.txt")), "hipbone_N15_default": ncu(os.path.join(p["runO3"], "ncu-hb15.txt"))},
        "mountain_advdiff_20_steps_total_s_runO1": {"reduce (GPU default)": logview_total(os.path.join(p["runO1"], "advdiff-reduce.txt")), "slots": logview_total(os.path.join(p["runO1"], "advdiff-slots.txt")), "note": "before the reduce map's bit-set sort (76 instead of 160 ms of host set-up)"},
        "bubble_N4_262144_double_perturbation_300_steps_runO1": run(raw, "runO1", "bubble-double-pert-300.txt"),
    }
    with open(out_json, "w") as f:
        json.dump(rec, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
