#!/usr/bin/env python3
"""Turn the raw output of the fourteenth GPU session (resV* in RAW_DIR, see its README.md; one H200 each, the script
that ran them is RAW_DIR/runV-script.sh) into one versioned record.

    python3 bench/record_session14.py RAW_DIR OUT_JSON

Every number is read from the raw files (the device's clocks from smi.txt, the commit from commit.txt)."""
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from record_session13 import write_hb_session  # noqa: E402

RUNS = ("resV1",)

if __name__ == "__main__":
    write_hb_session(sys.argv[1], sys.argv[2], RUNS, "squall GPU session 14: hipBone v8 (v7 persistent, the geometric factors streamed into shared memory by cp.async), against v7, v5 and v4 at N = 9..15")
