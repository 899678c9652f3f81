#!/usr/bin/env python3
"""Turn the raw output of the eleventh GPU session (resS1, resS2, resS4-resS9 in RAW_DIR, see its README.md; one H200
each, the script that ran them is RAW_DIR/runS-script.sh) into one versioned record.

    python3 bench/record_session11.py RAW_DIR OUT_JSON

Every number is read from the raw files (the device's clocks from smi.txt, the commit from commit.txt). The A/B
ratios compare this session's library with c00643e's in the same call (the old library through LD_LIBRARY_PATH),
best of the runs of each; the volume kernel's rates are recomputed here from its times with the useful-flop count of
the final code (on boxes 88 flops per z pair, 54 + 12 + 2 x 11, and 79 per x or y pair, whose gravity terms the half
sweep leaves out since f4cd25a: 82 on average, SquallESDGVolumeFlops), since the libraries measured logged other counts
(95 before this session). The ncu ceiling of resS7 (at 15ea1ff, gravity in every direction) uses that code's 88."""
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rawio import jsonl, read_text, record_head, run_dirs, tests, write_record  # noqa: E402
from record_session8 import bubble  # noqa: E402

RUNS = ("resS1", "resS2", "resS4", "resS5", "resS6", "resS7", "resS8", "resS9")
KEYS = ("rhs_ms", "volume_half_ms", "volume_lift_ms", "faces_ms")
PEAK = {"double": 33.4, "single": 65.3}  # TFLOP/s, ../shared/spec/h200-anchors.md
FINAL_COUNT = (2 * 79.0 + 88.0) / 3  # useful flops per pair of the final code's box half sweep (x, y, z pairs)


def best(path, prefix):
    """per order, the smallest ms of each kernel over the esdg_bench runs whose tag starts with prefix, and the volume
    kernel's useful TFLOP/s and % of the FMA peak by the final flop count, whatever the library measured logged"""
    out = {}
    for r in jsonl(path):
        if not r.get("tag", "").startswith(prefix):
            continue
        k = out.setdefault(str(r["N"]), {"elements": r["elements"], "precision": r["precision"], "runs": 0})
        k["runs"] += 1
        for key in KEYS:
            k[key] = min(k.get(key, 1e30), r[key])
        nq = r["N"] + 1
        flops = 3.0 * nq * nq * nq * (nq - 1) / 2.0 * r["elements"] * FINAL_COUNT  # pairs x the final count (boxes)
        k["volume_half_tflops_final_count"] = round(flops / (k["volume_half_ms"] * 1e-3) / 1e12, 3)
        k["volume_half_pct_peak_final_count"] = round(100 * k["volume_half_tflops_final_count"] / PEAK[r["precision"]], 1)
    return out


def ab(path):
    """new over old, per order and kernel"""
    new, old = best(path, "new"), best(path, "old")
    return {n: {key: round(new[n][key] / old[n][key], 3) for key in KEYS} for n in new if n in old}


def ncu_metrics(path, kernel=r"ESDGVolumeHalf<[^>]*>"):
    """per profiled launch of ncu --metrics whose kernel matches kernel: its template arguments and its metrics (name ->
    number)"""
    out, cur = [], None
    for line in open(path):
        m = re.match(r"\s+void (" + kernel + ")", line)
        if m:
            cur = {"kernel": m.group(1)}
            out.append(cur)
            continue
        m = re.match(r"\s+([a-z0-9_]+__[a-z0-9_.]+)\s+(\S*)\s+([0-9.,]+)\s*$", line)
        if m and cur is not None:
            cur[m.group(1)] = float(m.group(3).replace(",", "")) * {"Ghz": 1e9, "Mhz": 1e6}.get(m.group(2), 1)  # clocks in Hz
    return out


def ceiling(k, useful_flops):
    """the useful-flop rate and % of the FP64 peak at which this launch's FP64 instructions would saturate the FP64 pipe
    (a warp's FP64 instruction takes 2 cycles of its SM sub-partition's 16-lane pipe: 132 SMs x 4 sub-partitions), at its clock"""
    cycles = k["smsp__inst_executed_pipe_fp64.sum"] * 2 / (132 * 4)
    t = cycles / k["sm__cycles_elapsed.avg.per_second"]  # s (the metric is in Hz)
    hw = 2 * k["smsp__sass_thread_inst_executed_op_dfma_pred_on.sum"] + k["smsp__sass_thread_inst_executed_op_dmul_pred_on.sum"] + k["smsp__sass_thread_inst_executed_op_dadd_pred_on.sum"]
    busy = k["l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"] / 132 / (k["gpu__time_duration.sum"] * 1e-6 * k["sm__cycles_elapsed.avg.per_second"])
    return {"fp64_pipe_saturated_ms": round(t * 1e3, 4), "useful_tflops_at_saturation": round(useful_flops / t / 1e12, 2), "pct_fp64_peak_at_saturation": round(100 * useful_flops / t / 1e12 / PEAK["double"], 1),
            "hardware_flops": hw, "hardware_tflops_measured": round(hw / (k["gpu__time_duration.sum"] * 1e-6) / 1e12, 2), "useful_over_hardware_flops": round(useful_flops / hw, 3),
            "shared_pipe_busy_fraction": round(busy, 3), "shared_bank_conflict_wavefront_fraction": round(k["l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum"] / k["l1tex__data_pipe_lsu_wavefronts_mem_shared.sum"], 3)}


def sass_counts(path):
    """static SASS opcode counts of one kernel (cuobjdump -sass)"""
    c = {}
    for m in re.finditer(r"^\s+/\*[0-9a-f]+\*/\s+(?:@!?U?P[0-9T] )?([A-Z0-9_]+)", open(path).read(), re.M):
        c[m.group(1)] = c.get(m.group(1), 0) + 1
    return {k: c.get(k, 0) for k in ("DFMA", "DMUL", "DADD", "MUFU", "LDS", "STS", "LDG", "STG", "BAR", "IMAD")}


def main():
    raw, out_json = sys.argv[1:3]
    p = run_dirs(raw, RUNS)
    rd = lambda r, f: read_text(p, r, f)  # noqa: E731
    rec = record_head(p, "squall GPU session 11: the ESDG pair flux with fewer multiplications (scaled pair values in the GPU half sweep, 1/(2(gamma-1)) as a constant), then the faces without per-node logarithms, then the box x/y pairs without gravity terms; A/B against c00643e in the same calls; the bubble in both precisions; ncu and SASS of the volume kernel", "2026-12-01")
    rec.update({
        "note": "esdg_bench: boxes, 32,768 elements for N=2..6 and 4,096 for N=7, 8, median of 10 launches per run; best of the runs per library. Bubble: N=4, 262,144 elements, 14-stage LSRK fused into the volume kernel, the defaults",
    })
    for r in ("resS1", "resS4"):
        if r in p:
            b = os.path.join(p[r], "bench.jsonl")
            rec["double_" + r] = {"kernels_new": best(b, "new"), "kernels_old_c00643e": best(b, "old"), "new_over_old": ab(b)}
            for f in sorted(os.listdir(p[r])):
                if f.startswith("bubble") and f.endswith(".txt"):
                    rec["double_" + r][f[:-4]] = bubble(os.path.join(p[r], f))
    for r in ("resS2", "resS5"):
        if r in p:
            rec["single_" + r] = {"kernels_new": best(os.path.join(p[r], "bench.jsonl"), "new")}
            for f in sorted(os.listdir(p[r])):
                if f.startswith("bubble") and f.endswith(".txt"):
                    rec["single_" + r][f[:-4]] = bubble(os.path.join(p[r], f))
    for r in ("resS8",):
        if r in p:
            b = os.path.join(p[r], "bench.jsonl")
            rec["double_" + r] = {"kernels_new": best(b, "new"), "kernels_old_c00643e": best(b, "old"), "new_over_old": ab(b), "bubble300-new": bubble(os.path.join(p[r], "bubble300-new.txt"))}
    if "resS9" in p:
        rec["single_resS9"] = {"kernels_new": best(os.path.join(p["resS9"], "bench.jsonl"), "new"), "bubble300-new": bubble(os.path.join(p["resS9"], "bubble300-new.txt"))}
    if "resS6" in p:
        rec["sanitizer_resS6"] = rd("resS6", "sanitizer-summary.txt").split("\n")
    if "resS7" in p:
        nq, el = 5, 32768
        useful = 3.0 * nq**3 * (nq - 1) / 2.0 * el * 88.0
        ks = ncu_metrics(os.path.join(p["resS7"], "ncu-volume.txt"))
        box = [k for k in ks if k["kernel"].startswith("ESDGVolumeHalf<5, 1, 0,")]
        rec["ncu_volume_N4_resS7"] = {"note": "ESDGVolumeHalf<5, 1, 0, ...>: the box half sweep at N = 4 without the faces' lift (esdg_bench's volume_half), 32,768 elements, ncu --metrics, clocks as found; the ceiling: the useful flops (88 per pair, the count of 15ea1ff's code) at the time the FP64 instructions alone would take with the FP64 pipe busy every cycle",
                                      "launches": box, "ceiling": ceiling(box[0], useful) if box else None,
                                      "sass_static_counts": {f[5:-4]: sass_counts(os.path.join(p["resS7"], f)) for f in sorted(os.listdir(p["resS7"])) if f.startswith("sass-")}}
    if "resS4" in p and "resS5" in p:
        d, s = rec["double_resS4"], rec["single_resS5"]
        dp, dq = d["bubble300-new"]["s_per_step"], d["bubble300-pert-new"]["s_per_step"]
        sp, sq = s["bubble1000-plain-new"]["s_per_step"], s["bubble1000-pert-new"]["s_per_step"]
        rec["bubble_ratios_double_over_single_resS4_resS5"] = {"plain_over_plain": round(dp / sp, 3), "plain_double_over_perturbation_single": round(dp / sq, 3), "perturbation_over_perturbation": round(dq / sq, 3)}
    write_record(rec, out_json)


if __name__ == "__main__":
    main()
