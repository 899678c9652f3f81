#!/usr/bin/env python3
"""Per-kernel share of the ESDG time step from PETSc -log_view files (run with -log_view_gpu_time so that
event times are GPU times). Usage: esdg_share.py LOGVIEW LABEL [LOGVIEW LABEL ...] -> JSON on stdout."""
import json
import re
import sys

EVENTS = {"TSStep": "step", "SqESDGVolume": "volume", "SqESDGSurface": "surface", "SqLSRKUpdate": "update", "SqESDGRHS": "rhs"}


def parse(path):
    out = {}
    for line in open(path):
        f = line.split()
        if len(f) > 4 and f[0] in EVENTS:
            try:
                out[EVENTS[f[0]]] = {"count": int(f[1]), "time_s": float(f[3])}
            except ValueError:
                pass
    return out


def main(argv):
    records = []
    for path, label in zip(argv[1::2], argv[2::2]):
        ev = parse(path)
        step = ev.get("step", {}).get("time_s", 0.0)
        rec = {"label": label, "source": path.split("/")[-1], "steps": ev.get("step", {}).get("count", 0), "step_time_s": step}
        for k in ("volume", "surface", "update"):
            if k in ev:
                rec[k + "_s"] = ev[k]["time_s"]
                rec[k + "_share"] = ev[k]["time_s"] / step if step else None
        if step:
            rec["other_share"] = 1 - sum(rec.get(k + "_share") or 0 for k in ("volume", "surface", "update"))
        records.append(rec)
    json.dump(records, sys.stdout, indent=1)
    print()


if __name__ == "__main__":
    main(sys.argv)
