#!/usr/bin/env python3
"""Size and time of `trtlens report` on a synthetic 10,000-layer build (target: one file under
GitHub's 25 MB attachment limit). Time is printed as a ratio against `trtlens json` on the same
input in the same invocation (the reference: reading and analysing without rendering).

usage: tools/bench/report_10k.py [--trtlens build/trtlens] [--layers 10000]
"""
import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from diff_10k import make_layers  # noqa: E402  the same ResNet-like synthetic layers


def timed(cmd):
    t = time.perf_counter()
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)
    return time.perf_counter() - t


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trtlens", default="build/trtlens")
    ap.add_argument("--layers", type=int, default=10000)
    a = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        src = os.path.join(tmp, "engine.graph.json")
        json.dump({"Layers": make_layers(a.layers, False), "Bindings": ["input"]}, open(src, "w"))
        out = os.path.join(tmp, "report.html")
        ref = timed([a.trtlens, "json", src])
        rep = timed([a.trtlens, "report", src, "-o", out, "-q"])
        size = os.path.getsize(out)
        print(f"layers {a.layers}: report {size / 2**20:.1f} MiB "
              f"({size / (25 * 2**20):.2f} of 25 MiB), time {rep:.2f} s = {rep / ref:.2f} x json")
        return 0 if size < 25 * 2**20 else 1


if __name__ == "__main__":
    sys.exit(main())
