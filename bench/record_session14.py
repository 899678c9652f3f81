#!/usr/bin/env python3
"""Turn the raw output of the fourteenth GPU session (resV* in RAW_DIR, see its README.md; one H200 each, the script
that ran them is RAW_DIR/runV-script.sh) into one versioned record.

    python3 bench/record_session14.py RAW_DIR OUT_JSON

Every number is read from the raw files (the device's clocks from smi.txt, the commit from commit.txt)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rawio import record_head, run_dirs, write_record  # noqa: E402
from record_session12 import ncu_sections  # noqa: E402
from record_session13 import by_order_and_kernel  # noqa: E402

RUNS = ("resV1",)


def main():
    raw, out_json = sys.argv[1:3]
    p = run_dirs(raw, RUNS)
    rec = record_head(p, "squall GPU session 14: hipBone v8 (v7 persistent, the geometric factors streamed into shared memory by cp.async), against v7, v5 and v4 at N = 9..15", "2026-12-01")
    rec["note"] = "hb_bench, double, 2e7 unknowns, 20 back-to-back applications per timing; the streaming roofline measured in the same process (8 reads : 1 write); ncu with the clocks as found"
    for r in RUNS:
        if r not in p:
            continue
        d = rec["double_" + r] = {}
        for f in sorted(os.listdir(p[r])):
            path = os.path.join(p[r], f)
            if f.startswith("hb-") and f.endswith(".jsonl"):
                d[f[:-6]] = by_order_and_kernel(path)
            elif f.startswith("ncu-") and f.endswith(".txt"):
                d[f[:-4]] = ncu_sections(path)
            elif f == "sanitizer-summary.txt":
                d["sanitizer"] = open(path).read().split("\n")[:-1]
    write_record(rec, out_json)


if __name__ == "__main__":
    main()
