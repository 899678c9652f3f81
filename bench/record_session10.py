#!/usr/bin/env python3
"""Turn the raw output of the tenth GPU session (resR1, resR2 in RAW_DIR, see its README.md; one H200 each, the
script that ran them is RAW_DIR/runR-script.sh) into one versioned record.

    python3 bench/record_session10.py RAW_DIR OUT_JSON

Every number is read from the raw files (the device's clocks from smi.txt, the commit from commit.txt); the
ratios are computed here from the median times of the records named next to them."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rawio import jsonl, read_text, run_dirs, tests  # noqa: E402
from record_session9 import ncu_durations  # noqa: E402

RUNS = ("resR1", "resR2", "resR3", "resR4", "resR5", "resR6", "resR7", "resR8", "resR9", "resR10")


def p1(path):
    """one p1_assembly run: its set-up line, the matrix times (median, min; ms) per method and block size, and the
    reduce maps' statistics"""
    out = {"setup": None, "matrix": {}, "reduce_map": None}
    for r in jsonl(path):
        if r["method"] == "setup":
            out["setup"] = {k: r[k] for k in ("cells", "tets", "nodes", "nnz", "element_order") if k in r}
        elif r["method"] == "reduce_map":
            out["reduce_map"] = {k: r[k] for k in ("blocks", "contributions", "block_entries", "contributions_per_atomic", "single_block_entries")}
        elif r.get("op") == "matrix" and "time_ms" in r and r["method"] != "speedup_reduce_variant":
            out["matrix"]["%s_bs%d" % (r["method"], r["bs"])] = {k: r[k] for k in ("time_ms", "time_ms_min", "GBps", "maxreldiff_vs_atomic_search") if k in r}
    m = out["matrix"]
    for bs in (1, 3):
        coo = m.get("gpu_coo_bs%d" % bs)
        for v in ("affine_shared", "affine_xyz", "affine"):
            k = m.get("gpu_reduce_%s_bs%d" % (v, bs))
            if coo and k:
                k["over_coo"] = round(coo["time_ms"] / k["time_ms"], 3)
            if k and "GBps" in k:
                k["pct_of_4350_GBps"] = round(100 * k["GBps"] / 4350, 1)
    return out


def ncu_metrics(path, names):
    """the named metrics of each profiled launch in an Nsight Compute text report (name -> list of values)"""
    if not os.path.exists(path):
        return None
    t = open(path).read()
    return {n: [float(x.replace(",", "")) for x in re.findall(r"^\s*" + re.escape(n) + r"\s+(?:[^\s0-9]\S*\s+)?([0-9.,]+)\s*$", t, re.M)] for n in names}


def main():
    raw, out_json = sys.argv[1:3]
    p = run_dirs(raw, RUNS)
    rd = lambda r, f: read_text(p, r, f)  # noqa: E731
    r1, r2, r3, r4, r5, r6, r7, r8, r9, r10 = (p.get(r) for r in RUNS)
    rec = {
        "benchmark": "squall GPU session 10: the P1 reduce kernel affine_shared (the block's vertex fields in shared memory) and the Morton element order; every GPU test in both precisions at the session's last library code; hipBone v6 with 80 registers per thread (3 blocks per SM) at N = 3..6",
        "date": "2026-12-01",
        "device": {r: rd(r, "smi.txt") for r in p},
        "smi_fields": "index, name, clocks.sm (idle at query), clocks.max.sm, clocks.mem, driver",
        "commit": {r: rd(r, "commit.txt") for r in p},
        "tests": {r: tests(os.path.join(p[r], "ctest.log")) for r in p},
        "tests_note": "ctest -L gpu -R p1: every P1 GPU test (entry-by-entry against host MatSetValues, 1 and 2 ranks, every mode and reduce variant)",
        "note": "p1_assembly (double, 32-bit PetscInt): the mountain mesh, 558,624 tets (46,46,44 cells) and 21,059,808 (154,154,148); median of 20 timed calls (CUDA events around the whole call: zeroing, kernel, host side); GBps by the bench's byte model (its byte_model line); ncu at boost clocks (--clock-control none)",
    }
    if r1:
        rec["p1_resR1"] = {"558624_tets": p1(os.path.join(r1, "p1.jsonl")), "21059808_tets": p1(os.path.join(r1, "p1-large.jsonl")),
                           "ncu_reduce_kernels_558624_tets": {"order": "affine_xyz twice, then affine_shared twice", **ncu_durations(os.path.join(r1, "ncu-p1.txt"))},
                           "sanitizer": rd("resR1", "sanitizer-summary.txt").split("\n") if rd("resR1", "sanitizer-summary.txt") else None}
    if r2:
        rec["p1_element_order_resR2"] = {o: {"558624_tets": p1(os.path.join(r2, "p1-%s.jsonl" % o)), "21059808_tets": p1(os.path.join(r2, "p1-large-%s.jsonl" % o))} for o in ("natural", "morton")}
        rec["p1_element_order_resR2"]["ncu_affine_shared_morton_558624_tets"] = ncu_durations(os.path.join(r2, "ncu-p1.txt"))
    if r3:
        rec["p1_final_resR3"] = {"558624_tets": p1(os.path.join(r3, "p1.jsonl")),
                                 "ncu_affine_shared_558624_tets": {**ncu_durations(os.path.join(r3, "ncu-p1.txt")),
                                                                   **ncu_metrics(os.path.join(r3, "ncu-p1.txt"), ("Warp Cycles Per Issued Instruction", "Issued Warp Per Scheduler", "Active Warps Per Scheduler", "Eligible Warps Per Scheduler", "Issued Instructions", "L1/TEX Cache Throughput", "DRAM Throughput"))},
                                 "ncu_note": "the same kernel profiled twice; also reported there: 2-way shared-memory bank conflicts on average (2.9 M of 7.2 M shared-load wavefronts), 1.85 M fused and 3.91 M unfused FP64 instructions, spill loads and stores",
                                 "sanitizer": rd("resR3", "sanitizer-summary.txt").split("\n") if rd("resR3", "sanitizer-summary.txt") else None}
    if r4:
        rec["p1_single_resR4"] = {"558624_tets": p1(os.path.join(r4, "p1.jsonl"))}
    hb = [r for d in (r5, r6) if d for r in jsonl(os.path.join(d, "hb.jsonl")) if r.get("bench") == "hb_operator"]
    if hb:
        rec["hipbone_v6_registers_resR5_resR6"] = {
            "note": "hb_bench, double, 2e7 unknowns, 50 back-to-back applications, roofline = the 8-read:1-write streaming kernel of the same run; tags: default (v4's 2D kernel at these orders), v6_regs128 (v6 as built: 128 registers per thread, 2 blocks per SM at Nq >= 4), v6_regs80 (src/cuda/hbop.cu built with 80, 3 blocks per SM; ptxas 8-24 bytes of spill at Nq = 4-6, 180 at Nq = 7); resR5's v6_regs80 runs failed (the library path was wrong), resR6 ran them",
            "runs": [{k: r[k] for k in ("tag", "N", "kernel", "v3_layers", "t_kernel", "kernel_gflops", "stream_gbs", "roofline_fraction")} for r in hb],
        }
    if r7:
        rec["p1_length_classes_resR7"] = {
            "note": "the reduce map with a block's entries of more than 4 contributions first (classes, b79673c) against position order only (a961075's library through LD_LIBRARY_PATH, the same bench binary), alternating in one call; one map for both block sizes in both",
            **{"%s_558624_tets_run%d" % (o, r): p1(os.path.join(r7, "p1-%s-r%d.jsonl" % (o, r))) for o in ("classes", "position") for r in (1, 2)},
            **{"%s_21059808_tets" % o: p1(os.path.join(r7, "p1-large-%s.jsonl" % o)) for o in ("classes", "position")},
        }
    if r8:
        rec["p1_final_resR8"] = {"note": "the final code: a reduce map per block size on the GPU, scalar with the length classes, 3x3 blocks in position order",
                                 "558624_tets_run1": p1(os.path.join(r8, "p1-r1.jsonl")), "558624_tets_run2": p1(os.path.join(r8, "p1-r2.jsonl")), "21059808_tets": p1(os.path.join(r8, "p1-large.jsonl"))}
    if r9:
        rec["p1_final_single_resR9"] = {"note": "the final code in single precision", "558624_tets_run1": p1(os.path.join(r9, "p1-r1.jsonl")), "558624_tets_run2": p1(os.path.join(r9, "p1-r2.jsonl"))}
    if r10:
        rec["p1_review_mend_resR10"] = {"note": "double, after the review mend of the staging code (one rule for the fields read, one templated staging loop)", "558624_tets": p1(os.path.join(r10, "p1-r1.jsonl")),
                                        "sanitizer": rd("resR10", "sanitizer-summary.txt").split("\n") if rd("resR10", "sanitizer-summary.txt") else None}
    with open(out_json, "w") as f:
        json.dump(rec, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
