#!/usr/bin/env python3
"""Run a command and compare its standard output with an expected file, number by number.

Text must match exactly once numbers are masked; each number must agree within
|a - b| <= atol + rtol * |b|; --line-tol REGEX RTOL ATOL sets other tolerances for the numbers
on lines that match REGEX. Set SQUALL_REGENERATE=1 to rewrite the expected file instead.
Exit code 200 from the command (a skipped GPU test) is passed through."""
import argparse
import os
import re
import subprocess
import sys

NUM = re.compile(r"[-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?|[-+]?(?:inf|nan)\b")


def split(text):
    nums = [float(x) for x in NUM.findall(text)]
    return NUM.sub("#", text), nums


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--expected", required=True)
    p.add_argument("--rtol", type=float, default=1e-8)
    p.add_argument("--atol", type=float, default=1e-10)
    p.add_argument("--line-tol", nargs=3, action="append", default=[], metavar=("REGEX", "RTOL", "ATOL"))
    p.add_argument("cmd", nargs=argparse.REMAINDER)
    a = p.parse_args()
    cmd = a.cmd[1:] if a.cmd and a.cmd[0] == "--" else a.cmd
    run = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if run.returncode == 200:
        print("skipped")
        return 200
    if run.returncode != 0:
        sys.stdout.write(run.stdout)
        sys.stderr.write(run.stderr)
        print(f"command failed with exit code {run.returncode}")
        return 1
    if os.environ.get("SQUALL_REGENERATE"):
        with open(a.expected, "w") as f:
            f.write(run.stdout)
        print(f"wrote {a.expected}")
        return 0
    with open(a.expected) as f:
        want = f.read()
    gt, gn = split(run.stdout)
    wt, wn = split(want)
    if gt != wt or len(gn) != len(wn):
        sys.stdout.write("--- got ---\n" + run.stdout + "--- expected ---\n" + want)
        print("text differs from the expected output")
        return 1
    tols = []  # (rtol, atol) of each number, from the line it is on
    for line in want.splitlines():
        rtol, atol = a.rtol, a.atol
        for regex, r, t in a.line_tol:
            if re.search(regex, line):
                rtol, atol = float(r), float(t)
                break
        tols += [(rtol, atol)] * len(NUM.findall(line))
    bad = [(i, g, w) for i, (g, w) in enumerate(zip(gn, wn)) if not abs(g - w) <= tols[i][1] + tols[i][0] * abs(w)]
    if bad:
        sys.stdout.write(run.stdout)
        for i, g, w in bad[:10]:
            print(f"number {i}: got {g!r}, expected {w!r} (rtol={tols[i][0]} atol={tols[i][1]})")
        print(f"{len(bad)} numbers differ beyond their tolerances (rtol={a.rtol} atol={a.atol} unless --line-tol)")
        return 1
    print(f"output matches ({len(gn)} numbers)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
