#!/usr/bin/env python3
"""Turn the raw output of the thirteenth GPU session (resU* in RAW_DIR, see its README.md; one H200 each, the script
that ran them is RAW_DIR/runU-script.sh) into one versioned record.

    python3 bench/record_session13.py RAW_DIR OUT_JSON

Every number is read from the raw files (the device's clocks from smi.txt, the commit from commit.txt)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rawio import jsonl, record_head, run_dirs, write_record  # noqa: E402
from record_session12 import ncu_sections  # noqa: E402

RUNS = ("resU1", "resU2", "resU3", "resU4", "resU5", "resU6")


def by_order_and_kernel(path):
    """per order, per kernel name: the % of the streaming roofline, GFLOP/s and time of each hb_operator line"""
    out = {}
    for r in jsonl(path):
        if r.get("bench") != "hb_operator":
            continue
        k = out.setdefault(str(r["N"]), {}).setdefault(r["kernel"], {"roofline_pct": 0})
        if 100 * r["roofline_fraction"] > k["roofline_pct"]:
            k.update({"roofline_pct": round(100 * r["roofline_fraction"], 1), "gflops": r["kernel_gflops"], "t_kernel": r["t_kernel"], "stream_gbs": r["stream_gbs"], "tag": r["tag"]})
    return out


def write_hb_session(raw, out_json, runs, title, single=(), parsers=None):
    """the record of one session's calls: per run (double_ or single_ by the precision it ran), the hb_bench tables by
    order and kernel (or by parsers[stem] for the .jsonl files it names), ncu's sections, the atomic probe and the
    sanitizer summary"""
    parsers = parsers or {}
    p = run_dirs(raw, runs)
    rec = record_head(p, title, "2026-12-01")
    rec["note"] = "hb_bench, double, 2e7 unknowns, 20 back-to-back applications per timing; the streaming roofline measured in the same process (8 reads : 1 write); ncu with the clocks as found"
    for r in runs:
        if r not in p:
            continue
        d = rec[("single_" if r in single else "double_") + r] = {}
        for f in sorted(os.listdir(p[r])):
            path = os.path.join(p[r], f)
            if f.startswith("hb-") and f.endswith(".jsonl"):
                d[f[:-6]] = parsers.get(f[:-6], by_order_and_kernel)(path)
            elif f.startswith("ncu-") and f.endswith(".txt"):
                d[f[:-4]] = ncu_sections(path)
            elif f == "p1-probe.jsonl":
                d["p1_atomic_probe"] = [{k: v for k, v in r.items() if k not in ("bench", "method")} for r in jsonl(path) if r.get("method") == "atomic_probe"]
            elif f == "sanitizer-summary.txt":
                d["sanitizer"] = open(path).read().split("\n")[:-1]
    write_record(rec, out_json)


def main():
    write_hb_session(sys.argv[1], sys.argv[2], RUNS, "squall GPU session 13: hipBone v7, the element's contractions on the FP64 tensor cores (mma.sync m8n8k4), against v4 and v5 at N = 9..15", single=("resU4",))


if __name__ == "__main__":
    main()
