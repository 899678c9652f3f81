#!/usr/bin/env python3
"""Turn the raw output of the fourteenth GPU session (resV* in RAW_DIR, see its README.md; one H200 each, the script
that ran them is RAW_DIR/runV-script.sh) into one versioned record.

    python3 bench/record_session14.py RAW_DIR OUT_JSON

Every number is read from the raw files (the device's clocks from smi.txt, the commit from commit.txt)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from rawio import jsonl  # noqa: E402
from record_session13 import write_hb_session  # noqa: E402

RUNS = ("resV1", "resV2", "resV3", "resV4", "resV5")


def by_order_tag_and_kernel(path):
    """per order, per tag (here -hb_2d_elements E or the defaults), per kernel name: % of the streaming roofline and GFLOP/s"""
    out = {}
    for r in jsonl(path):
        if r.get("bench") == "hb_operator":
            out.setdefault(str(r["N"]), {}).setdefault(r["tag"], {})[r["kernel"]] = {"roofline_pct": round(100 * r["roofline_fraction"], 1), "gflops": r["kernel_gflops"]}
    return out


def operator_and_fom(path):
    """per order: the default kernel's % of the streaming roofline and GFLOP/s, and each CG solver's NekBone figure of merit"""
    out = {}
    for r in jsonl(path):
        o = out.setdefault(str(r.get("N")), {})
        if r.get("bench") == "hb_operator":
            o.update({"kernel": r["kernel"], "roofline_pct": round(100 * r["roofline_fraction"], 1), "gflops": r["kernel_gflops"]})
        elif r.get("bench") == "hb_cg":
            o["fom_gflops_" + r["solver"]] = r["fom_gflops"]
    return {k: v for k, v in out.items() if v}


if __name__ == "__main__":
    write_hb_session(sys.argv[1], sys.argv[2], RUNS, "squall GPU session 14: hipBone v8 (v7 persistent, the geometric factors streamed into shared memory by cp.async), against v7, v5 and v4 at N = 9..15; the 2D kernel with several elements per block at N = 9 and 11; v7 at three blocks per SM (the element unpadded and swizzled, 4, 6, 8 warps); the final defaults at N = 1..15 with the CG figure of merit", parsers={"hb-elems": by_order_tag_and_kernel, "hb-v8": by_order_tag_and_kernel, "hb-final": operator_and_fom})
