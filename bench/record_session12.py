#!/usr/bin/env python3
"""Turn the raw output of the twelfth GPU session (resT1-resT3 in RAW_DIR, see its README.md; one H200 each, the
script that ran them is RAW_DIR/runT-script.sh) into one versioned record.

    python3 bench/record_session12.py RAW_DIR OUT_JSON

Every number is read from the raw files (the device's clocks from smi.txt, the commit from commit.txt). The issue
ceiling of a launch is the time its warp instructions would take with every scheduler issuing one each cycle (132 SMs
x 4 sub-partitions, at the launch's clock): a single-precision kernel cannot run faster than that, whatever its
arithmetic costs."""
import json
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rawio import jsonl, record_head, run_dirs, write_record  # noqa: E402
from record_session8 import bubble  # noqa: E402
from record_session11 import best, ncu_metrics  # noqa: E402

RUNS = ("resT1", "resT2", "resT3", "resT4", "resT5", "resT6", "resT7", "resT8")
SCHEDULERS = 132 * 4


def ncu_summary(path):
    """per kernel, the first launch's main counters and its issue ceiling"""
    out = {}
    for k in ncu_metrics(path, r"ESDG\w+<[^>]*>"):
        if k["kernel"] in out:
            continue
        t_us, inst, hz = k["gpu__time_duration.sum"], k["smsp__inst_executed.sum"], k["sm__cycles_elapsed.avg.per_second"]
        floor_us = inst / SCHEDULERS / hz * 1e6
        out[k["kernel"]] = {
            "time_us": t_us,
            "warp_instructions": inst,
            "issue_active_pct": k["smsp__issue_active.avg.pct_of_peak_sustained_active"],
            "warps_active_pct": k["sm__warps_active.avg.pct_of_peak_sustained_active"],
            "fp64_pipe_pct": k["sm__pipe_fp64_cycles_active.avg.pct_of_peak_sustained_active"],
            "instructions_by_pipe": {p: k["smsp__inst_executed_pipe_" + p + ".sum"] for p in ("fma", "fp64", "alu", "lsu", "xu")},
            "dram_gb_per_s": round(k["dram__bytes.sum"] * 1e6 / (t_us * 1e-6) / 1e9, 1),
            "issue_ceiling_us": round(floor_us, 1),
            "stall_cycles_per_warp": {s: k["smsp__average_warp_latency_issue_stalled_" + s + ".ratio"] for s in ("long_scoreboard", "barrier", "wait", "not_selected", "selected", "short_scoreboard", "dispatch_stall", "math_pipe_throttle", "mio_throttle", "lg_throttle")},
        }
    return out


def ncu_sections(path):
    """the headline values of ncu's sections for the one launch profiled (name (unit) -> number)"""
    out = {}
    keys = ("Duration", "DRAM Throughput", "Memory Throughput", "L1/TEX Hit Rate", "L2 Hit Rate", "Issue Slots Busy", "Warp Cycles Per Issued Instruction", "Avg. Active Threads Per Warp", "Registers Per Thread", "Block Size", "Theoretical Occupancy", "Achieved Occupancy")
    text = open(path).read()
    for key in keys:
        m = re.search(r"^\s*" + re.escape(key) + r"\s+(\S+)?\s+([0-9.,]+)\s*$", text, re.M)
        if m:
            out[key + (" (" + m.group(1) + ")" if m.group(1) else "")] = float(m.group(2).replace(",", ""))
    m = re.search(r"stalled waiting for a scoreboard dependency\s+on\s+a L1TEX.*?represents about ([0-9.]+)%", text, re.S)
    out["L1TEX scoreboard share of the stalls (%)"] = float(m.group(1)) if m else None
    return out


def hb_records(path):
    """hb_bench's lines; its session-12 build printed the prefetch distance with PETSc's %g, "1." (not JSON)"""
    return [json.loads(re.sub(r'"prefetch":(\d+)\.}', r'"prefetch":\1.0}', line)) for line in open(path) if line.startswith("{")]


def hb_best(path):
    """per order and prefetch distance, the fastest kernel (over variants and layers): its % of the roofline"""
    out = {}
    for r in hb_records(path):
        if r.get("bench") != "hb_operator":
            continue
        k = out.setdefault(str(r["N"]), {}).setdefault(str(r["prefetch"]), {"roofline_pct": 0})
        if 100 * r["roofline_fraction"] > k["roofline_pct"]:
            k.update({"roofline_pct": round(100 * r["roofline_fraction"], 1), "kernel": r["kernel"], "layers": r["v3_layers"], "gflops": r["kernel_gflops"], "t_kernel": r["t_kernel"], "stream_gbs": r["stream_gbs"]})
    return out


def sass(path, pattern):
    """static opcode counts of the kernels whose mangled name matches pattern (cuobjdump -sass, counted on the device)"""
    out = {}
    for line in open(path):
        f, op, n = line.split()
        if re.search(pattern, f):
            out.setdefault(f, {})[op] = int(n)
    return {f: dict(sorted(c.items(), key=lambda x: -x[1])) for f, c in out.items()}


def main():
    raw, out_json = sys.argv[1:3]
    p = run_dirs(raw, RUNS)
    rec = record_head(p, "squall GPU session 12: the compensated stage update folded into the ESDG GPU's fused stage and restricted to chosen fields (-ts_lsrk_compensated_fields); the bubble in both precisions with and without it; ncu and SASS of the N = 4 kernels in both precisions (where single precision's time goes); compute-sanitizer of the compensated stage; ncu of the hipBone kernels at N = 5, 8 and their L2 prefetch (-hb_prefetch_distance) over N = 3..15", "2026-12-01")
    rec["note"] = "esdg_bench: boxes, 32,768 elements for N=2..6 and 4,096 for N=7, 8, median of 10 launches. Bubble: N=4, 262,144 elements, 1000 steps of the 14-stage LSRK fused into the finishing volume kernel, the defaults; ncu with the clocks as found (1.93-1.96 GHz)"
    for r, prec in (("resT1", "single"), ("resT2", "double"), ("resT3", "single")):
        if r not in p:
            continue
        d = rec[prec + "_" + r] = {}
        b = os.path.join(p[r], "bench.jsonl")
        if os.path.exists(b):
            d["kernels"] = best(b, "new")
        for f in sorted(os.listdir(p[r])):
            if f.startswith("bubble") and f.endswith(".txt"):
                d[f[:-4]] = bubble(os.path.join(p[r], f))
        if os.path.exists(os.path.join(p[r], "ncu.txt")):
            d["ncu_N4"] = ncu_summary(os.path.join(p[r], "ncu.txt"))
        if os.path.exists(os.path.join(p[r], "sass-counts.txt")):
            d["sass_N4_box_volume"] = sass(os.path.join(p[r], "sass-counts.txt"), r"ESDGVolumeHalfILi5ELb1ELb[01]ELi0ELi6ELb0ELb0ELb0E")
    if "resT1" in p and "resT2" in p:
        s, d = rec["single_resT1"], rec["double_resT2"]
        sp, dp = s["bubble1000-plain"]["s_per_step"], d["bubble1000-plain"]["s_per_step"]
        k = "ESDGVolumeHalf<5, 1, 1, 0, 6, 0, 0, 0>"
        ks, kd = s["ncu_N4"][k], d["ncu_N4"][k]
        rec["single_vs_double"] = {
            "bubble_plain_double_over_single": round(dp / sp, 3),
            "bubble_double_plain_over_single_comp04": round(dp / s["bubble1000-comp04"]["s_per_step"], 3),
            "bubble_double_comp04_over_single_comp04": round(d["bubble1000-comp04"]["s_per_step"] / s["bubble1000-comp04"]["s_per_step"], 3),
            "finishing_volume_kernel_N4": {
                "time_double_over_single": round(kd["time_us"] / ks["time_us"], 3),
                "instructions_single_over_double": round(ks["warp_instructions"] / kd["warp_instructions"], 3),
                "best_ratio_at_full_issue_in_single": round(kd["time_us"] / ks["issue_ceiling_us"], 3),
                "single_issue_needed_for_1p95x_pct": round(100 * ks["issue_ceiling_us"] / (kd["time_us"] / 1.95), 1),
            },
        }
        if "resT3" in p:
            t = rec["single_resT3"]
            rec["single_vs_double"]["bubble_double_plain_over_single_comp0_resT3"] = round(dp / t["bubble1000-comp0"]["s_per_step"], 3)
            rec["single_vs_double"]["bubble_double_plain_over_single_plain_resT3"] = round(dp / t["bubble1000-plain"]["s_per_step"], 3)
    if "resT4" in p:
        d = rec["double_resT4"] = {"sanitizer": open(os.path.join(p["resT4"], "sanitizer-summary.txt")).read().split("\n")[:-1]}
        d["hb_bench"] = {str(r["N"]): {"kernel": r["kernel"], "layers": r["v3_layers"], "roofline_pct": round(100 * r["roofline_fraction"], 1), "kernel_gbs": r["kernel_gbs"], "stream_gbs": r["stream_gbs"]} for r in jsonl(os.path.join(p["resT4"], "hb.txt"))}
        d["ncu_hb"] = {n: ncu_sections(os.path.join(p["resT4"], "ncu-hb%s.txt" % n)) for n in ("5", "8")}
    if "resT5" in p:
        rec["double_resT5"] = {"hb_default_variants": hb_best(os.path.join(p["resT5"], "hb-pf.jsonl")), "hb_v4_v5": hb_best(os.path.join(p["resT5"], "hb-pf-v45.jsonl"))}
    if "resT6" in p:
        rec["double_resT6"] = {"hb_short_distances": hb_best(os.path.join(p["resT6"], "hb-pf-short.jsonl"))}
    for r in ("resT7", "resT8"):
        if r not in p:
            continue
        runs = {}
        for x in jsonl(os.path.join(p[r], "hb-elems.jsonl")):
            k = runs.setdefault(x["tag"], {"roofline_pct": 0})
            if 100 * x["roofline_fraction"] > k["roofline_pct"]:
                k.update({"roofline_pct": round(100 * x["roofline_fraction"], 1), "kernel": x["kernel"], "layers": x["v3_layers"], "gflops": x["kernel_gflops"], "t_kernel": x["t_kernel"], "stream_gbs": x["stream_gbs"]})
        rec["double_" + r] = {"note": "hb_bench N = 5, 2e7 unknowns: the best layer count of each run, by tag (E<n>: -hb_2d_elements n; default: the defaults), each in its own process", "hb_N5_elements_per_block": runs}
    write_record(rec, out_json)


if __name__ == "__main__":
    main()
