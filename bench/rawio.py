"""Readers of the benchmark scripts' raw output, shared by the record scripts: JSON lines and ctest's
summary."""
import json
import os
import re


def jsonl(path):
    """the JSON objects of a file's lines that start with '{' (none if the file is missing)"""
    out = []
    if os.path.exists(path):
        for line in open(path):
            line = line.strip()
            if line.startswith("{"):
                out.append(json.loads(line))
    return out


def tests(path):
    """ctest's count of tests and failures in a log, None if the log is missing"""
    if not os.path.exists(path):
        return None
    t = open(path).read()
    failed = re.findall(r"\d+ - (\S+) \(Failed\)", t)
    m = re.search(r"(\d+)% tests passed, (\d+) tests failed out of (\d+)", t)
    if m:
        return {"total": int(m.group(3)), "failed": int(m.group(2)), "failed_tests": failed}
    m = re.search(r"100% tests passed out of (\d+)", t)
    return {"total": int(m.group(1)) if m else None, "failed": 0, "failed_tests": []}


def run_dirs(raw, runs):
    """the folders of the named runs that RAW holds, by run name"""
    return {r: os.path.join(raw, r) for r in runs if os.path.isdir(os.path.join(raw, r))}


def read_text(dirs, run, name):
    """a run's small text file (smi.txt, commit.txt, ...) stripped, None if the run or the file is missing"""
    if run not in dirs or not os.path.exists(os.path.join(dirs[run], name)):
        return None
    return open(os.path.join(dirs[run], name)).read().strip()


def record_head(dirs, benchmark, date):
    """the fields every session record starts with: what was measured, when, each run's device line (smi.txt),
    commit and ctest summary (where the run has a ctest.log)"""
    return {
        "benchmark": benchmark,
        "date": date,
        "device": {r: read_text(dirs, r, "smi.txt") for r in dirs},
        "smi_fields": "index, name, clocks.sm (idle at query), clocks.max.sm, clocks.mem, driver",
        "commit": {r: read_text(dirs, r, "commit.txt") for r in dirs},
        "tests": {r: tests(os.path.join(dirs[r], "ctest.log")) for r in dirs if os.path.exists(os.path.join(dirs[r], "ctest.log"))},
    }


def write_record(rec, path):
    """the record as indented JSON with a final newline"""
    with open(path, "w") as f:
        json.dump(rec, f, indent=1)
        f.write("\n")
