#!/usr/bin/env python3
"""What an ESDG tutorial run printed (tutorials/esdg_run.h, with -esdg_wall_time): elements, steps, final
time, TSSolve wall time and time per step, relative change of mass, energy and entropy, max|w|, the
minimum surface pressure, and for an
implicit run Newton and Krylov iterations per step.

    tutorial_log.py FILE [key=value ...]   one JSON line: the parsed values plus the given keys
    (values that read as JSON numbers are numbers); fields the run did not print are null."""
import json
import re
import sys


def parse(path):
    t = open(path).read()
    m = re.search(r"wall time of TSSolve ([0-9.eE+-]+) s, ([0-9.eE+-]+) s per step", t)
    c = re.search(r"relative change: mass ([0-9.eE+-]+) energy ([0-9.eE+-]+) entropy ([0-9.eE+-]+)", t)
    w = re.search(r"max\|w\| ([0-9.eE+-]+) m/s", t)
    ps = re.search(r"min surface pressure ([0-9.eE+-]+) Pa", t)
    s = re.search(r"(\d+) steps to t = ([0-9.eE+-]+)", t)
    e = re.search(r"= (\d+) elements", t)
    n = re.search(r"Newton (\d+) and Krylov (\d+) iterations", t)
    steps = int(s.group(1)) if s else None
    return {"elements": int(e.group(1)) if e else None, "steps": steps, "t_final": float(s.group(2)) if s else None,
            "wall_s": float(m.group(1)) if m else None, "s_per_step": float(m.group(2)) if m else None,
            "rel_change_mass": float(c.group(1)) if c else None, "rel_change_energy": float(c.group(2)) if c else None,
            "rel_change_entropy": float(c.group(3)) if c else None, "max_w": float(w.group(1)) if w else None,
            "min_ps": float(ps.group(1)) if ps else None,
            "newton_per_step": int(n.group(1)) / steps if n and steps else None, "krylov_per_step": int(n.group(2)) / steps if n and steps else None}


def value(text):
    try:
        return json.loads(text)
    except ValueError:
        return text


if __name__ == "__main__":
    rec = {k: value(v) for k, v in (a.split("=", 1) for a in sys.argv[2:])}
    rec.update(parse(sys.argv[1]))
    rec["ok"] = rec["s_per_step"] is not None
    print(json.dumps(rec))
