#!/usr/bin/env python3
"""The first record of a benchmark's JSON lines: the GPU (nvidia-smi) and squall's commit.

    device_record.py NAME [ROOT]    one JSON line {"bench": NAME, "gpu": ..., clocks, driver, "commit": ...};
    the commit is $SQUALL_COMMIT, else ROOT's git HEAD (default: this script's repository)."""
import json
import os
import subprocess
import sys


def query(cmd):
    try:
        return subprocess.run(cmd, capture_output=True, text=True, timeout=20).stdout.strip()
    except (OSError, subprocess.TimeoutExpired):
        return ""


def main(name, root):
    smi = query(["nvidia-smi", "--query-gpu=name,clocks.sm,clocks.max.sm,clocks.mem,driver_version", "--format=csv,noheader"]).splitlines()
    f = ([x.strip() for x in smi[0].split(",")] if smi else []) + [None] * 5
    commit = os.environ.get("SQUALL_COMMIT") or query(["git", "-C", root, "rev-parse", "--short", "HEAD"]) or "unknown"
    print(json.dumps({"bench": name, "gpu": f[0], "clocks_sm_mhz_at_start": f[1], "clocks_max_sm_mhz": f[2], "clocks_mem_mhz": f[3], "driver": f[4], "commit": commit}))


if __name__ == "__main__":
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
