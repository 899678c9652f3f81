#!/usr/bin/env python3
"""The benchmark results of squall: files, tables and plots.

    report.py collect OUTDIR CAP...   bench/run.sh's last step: OUTDIR/meta.json + limits.json + CAP.jsonl
                                      into bench/results/CAP-<gpu>.json (replacing the previous file)
    report.py tables [--check]        the tables between the markers <!-- report:NAME --> ... <!-- /report -->
                                      of README.md and docs/*.md, and the plots in docs/img/, from
                                      bench/results/*.json; --check: fail if a document is out of date

Every figure the documents show comes from the results files through this script."""
import glob
import json
import os
import re
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RESULTS = os.path.join(ROOT, "bench", "results")
CAPS = {"esdg": "ESDG dynamical core", "hb": "hipBone-style matrix-free CG", "p1": "P1 tetrahedral assembly",
        "precision": "single against double precision (ESDG)"}
EXTRA = {"esdg": ["cfl"]}


def gpu_slug(name):
    """'NVIDIA H200' -> 'h200', 'NVIDIA H100 80GB HBM3' -> 'h100', 'CPU ...' -> 'cpu'"""
    if name.startswith("CPU"):
        return "cpu"
    words = [w for w in name.split() if w.upper() not in ("NVIDIA", "TESLA")]
    return re.sub(r"[^a-z0-9]", "", (words[0] if words else name).lower()) or "gpu"


def read_jsonl(path):
    recs = []
    for line in open(path):
        line = line.strip()
        if line.startswith("{"):
            recs.append(json.loads(line))
    return recs


def collect(out, caps):
    meta = json.load(open(os.path.join(out, "meta.json")))
    limits = json.load(open(os.path.join(out, "limits.json")))
    slug = gpu_slug(meta["gpu"])
    for cap in caps:
        if cap not in CAPS:
            sys.exit(f"report.py: unknown capability {cap} (one of {', '.join(CAPS)})")
        path = os.path.join(out, cap + ".jsonl")
        recs = read_jsonl(path) if os.path.exists(path) else []
        for extra in EXTRA.get(cap, []):  # further scripts of the same capability
            p = os.path.join(out, extra + ".jsonl")
            recs += read_jsonl(p) if os.path.exists(p) else []
        if not recs:
            sys.exit(f"report.py: {path} holds no records; bench/results/{cap}-{slug}.json is left as it was")
        doc = {"capability": CAPS[cap]}
        doc.update(meta)
        doc["limits"] = limits
        doc["records"] = recs
        dest = os.path.join(RESULTS, f"{cap}-{slug}.json")
        with open(dest + ".partial", "w") as f:
            json.dump(doc, f, indent=1)
            f.write("\n")
        os.replace(dest + ".partial", dest)
        print(f"report.py: wrote {os.path.relpath(dest, ROOT)} ({len(recs)} records)")


def load(cap):
    """the results file of a capability (the first GPU in name order), or None"""
    files = sorted(glob.glob(os.path.join(RESULTS, f"{cap}-*.json")))
    return json.load(open(files[0])) if files else None


def fmt(x, digits=3):
    if x is None:
        return "-"
    if isinstance(x, str):
        return x
    if x == 0:
        return "0"
    if abs(x) >= 1e5 or abs(x) < 1e-3:
        return f"{x:.{digits - 1}e}"
    return f"{x:.{digits}g}"


def table(head, rows):
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    lines += ["| " + " | ".join(fmt(c) for c in r) + " |" for r in rows]
    return "\n".join(lines)


def source(doc, cap):
    lim = doc["limits"]
    text = f"From `bench/results/{cap}-{gpu_slug(doc['gpu'])}.json`: {doc['gpu']}, {doc['date']}, PETSc {doc['petsc_version']}, {doc['precision']}, squall {doc['commit']}"
    if lim:
        text += (f"; limits measured in the same run: FP64 {lim['fp64_fma_tflops']:.1f} TFLOP/s, FP32 {lim['fp32_fma_tflops']:.1f} TFLOP/s, "
                 f"streaming {lim['stream_8r1w_tbs']:.2f} TB/s (8 reads : 1 write), copy {lim['copy_tbs']:.2f} TB/s")
    return text + "."


# ------------------------------------------------------------------ tables, one function per block name
def recs(doc, **match):
    return [r for r in doc["records"] if all(r.get(k) == v for k, v in match.items())]


BLOCKS = {}


def block(name):
    def deco(f):
        BLOCKS[name] = f
        return f
    return deco


def render(name):
    if name not in BLOCKS:
        sys.exit(f"report.py: unknown block <!-- report:{name} -->")
    return BLOCKS[name]()


def update_documents(check):
    stale = []
    for path in [os.path.join(ROOT, "README.md")] + sorted(glob.glob(os.path.join(ROOT, "docs", "*.md"))):
        text = open(path).read()
        new = re.sub(r"(<!-- report:([a-z0-9_-]+) -->\n).*?(<!-- /report -->)", lambda m: m.group(1) + render(m.group(2)).rstrip() + "\n" + m.group(3), text, flags=re.S)
        if new != text:
            stale.append(os.path.relpath(path, ROOT))
            if not check:
                open(path, "w").write(new)
    return stale


def main(argv):
    if len(argv) >= 3 and argv[1] == "collect":
        collect(argv[2], argv[3:])
    elif len(argv) >= 2 and argv[1] == "tables":
        check = "--check" in argv[2:]
        stale = update_documents(check)
        if not check:
            import report_plots
            report_plots.plot_all(load, os.path.join(ROOT, "docs", "img"))
        if check and stale:
            sys.exit("report.py: out of date (run bench/report.py tables): " + ", ".join(stale))
        for s in stale:
            print(f"report.py: updated {s}")
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    main(sys.argv)
