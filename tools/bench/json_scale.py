#!/usr/bin/env python3
"""Time and memory per record of the profile and times JSON readers, at 1M and 10M records.

For each size, an `--exportProfile` file (given alone) and an `--exportTimes` file are written
in trtexec's shape; `trtlens summary FILE` runs interleaved with `wc -l FILE` (and Python's
`json.load` up to --py-max records: it needs about 1 KB per record) for --rounds rounds, page
cache warm. Printed per row: min / median / max wall seconds, CPU seconds, nanoseconds and peak
RSS bytes per record (RSS above trtlens on a one-record file of the same kind), and the ratio of
trtlens's CPU time to `wc -l`'s. Linear time: the ns per record at 10M is close to that at 1M.

usage: tools/bench/json_scale.py [--trtlens build/trtlens] [--records 1000000,10000000]
                                 [--rounds 3] [--py-max 1000000] [--kinds profile,times]
"""
import argparse
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, HERE)
from importlib.machinery import SourceFileLoader  # noqa: E402

bench = SourceFileLoader("bench_run", os.path.join(HERE, "run")).load_module()

TIMES_REC = ('{ "startEnqMs" : %.5f, "endEnqMs" : %.5f, "startH2dMs" : %.5f, "endH2dMs" : %.5f, '
             '"startComputeMs" : %.5f, "endComputeMs" : %.5f, "startD2hMs" : %.5f, '
             '"endD2hMs" : %.5f, "h2dMs" : 0.01, "computeMs" : 0.48, "d2hMs" : 0.01, '
             '"latencyMs" : 0.5 }')


def write_profile(path, n):
    # trtexec's layout: the count first, then one row per line with the separator in front.
    with open(path, "w", buffering=1 << 22) as f:
        f.write('[\n  { "count" : 1000 }\n')
        chunk = []
        for i in range(n):
            chunk.append(', { "name" : "block%d/conv%d + PWN(Relu_%d)", "timeMs" : %.4f, '
                         '"averageMs" : %.6f, "medianMs" : %.6f, "percentage" : %.5f }\n'
                         % (i // 10, i, i, 10 + i % 97 * 0.01, 0.01 + i % 97 * 1e-5,
                            0.01 + i % 89 * 1e-5, 100.0 / n))
            if len(chunk) == 4096:
                f.write("".join(chunk))
                chunk.clear()
        f.write("".join(chunk))
        f.write("]\n")


def write_times(path, n):
    with open(path, "w", buffering=1 << 22) as f:
        f.write("[\n  ")
        chunk = []
        for i in range(n):
            x = 4 + i * 0.5
            chunk.append(("\n, " if i else "") +
                         TIMES_REC % (x, x + .05, x, x + .01, x + .01, x + .49, x + .49, x + .5))
            if len(chunk) == 4096:
                f.write("".join(chunk))
                chunk.clear()
        f.write("".join(chunk))
        f.write("\n]\n")


WRITERS = {"profile": write_profile, "times": write_times}


def measure(tl, kind, sizes, rounds, py_max, d):
    """Rows (one per size) for `kind`: a dict of the figures each table prints."""
    tiny = os.path.join(d, "tiny_%s.json" % kind)
    WRITERS[kind](tiny, 1)
    base = bench.interleaved(rounds, [[tl, "summary", tiny]])[0]
    out = []
    for n in sizes:
        p = os.path.join(d, "%s_%d.json" % (kind, n))
        WRITERS[kind](p, n)
        subprocess.run(["cat", p], stdout=subprocess.DEVNULL, check=True)  # page cache warm
        cmds = [["wc", "-l", p], [tl, "summary", p]]
        if n <= py_max:
            cmds.append([sys.executable, "-c", "import json,sys; json.load(open(sys.argv[1]))", p])
        l0 = bench.load()
        res = bench.interleaved(rounds, cmds)
        out.append({"kind": kind, "n": n, "mb": os.path.getsize(p) / 1e6, "wc": res[0],
                    "tl": res[1], "py": res[2] if len(res) > 2 else None,
                    "ns": res[1].cpu_med() * 1e9 / n,
                    "bytes": (res[1].rss_max_mib() - base.rss_max_mib()) * 1048576 / n,
                    "load": "%.1f-%.1f" % (l0, bench.load())})
        os.remove(p)
    os.remove(tiny)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trtlens", default=os.path.join(ROOT, "build", "trtlens"))
    ap.add_argument("--records", default="1000000,10000000")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--py-max", type=int, default=1000000)
    ap.add_argument("--kinds", default="profile,times")
    a = ap.parse_args()
    tl = os.path.abspath(a.trtlens)
    if not os.access(tl, os.X_OK):
        sys.exit("no trtlens binary at %s (build it first)" % tl)
    d = tempfile.mkdtemp(prefix="trtlens_json_scale_")
    rows = []
    try:
        sizes = [int(x) for x in a.records.split(",")]
        for kind in a.kinds.split(","):
            rows += measure(tl, kind, sizes, a.rounds, a.py_max, d)
    finally:
        shutil.rmtree(d, ignore_errors=True)
    print("Machine: %d cores; %d interleaved rounds; wall seconds min / median / max; "
          "per record: CPU ns and peak RSS above a one-record file" % (os.cpu_count(), a.rounds))
    print()
    print("| input | `trtlens summary` | CPU per record | peak RSS, per record | `wc -l` | "
          "CPU vs `wc -l` | python `json.load` (median) | speed-up vs python | load avg |")
    print("| --- | --- | --- | --- | --- | --- | --- | --- | --- |")
    for r in rows:
        t, wc, py = r["tl"], r["wc"], r["py"]
        print("| " + " | ".join((
            "%s, %gM records (%.0f MB)" % (r["kind"], r["n"] / 1e6, r["mb"]),
            "%s s, %.2f s CPU" % (t.spread(), t.cpu_med()),
            "%.0f ns" % r["ns"],
            "%.0f MiB, %.0f B" % (t.rss_max_mib(), r["bytes"]),
            "%s s, %.2f s CPU" % (wc.spread(), wc.cpu_med()),
            "%.1f" % (t.cpu_med() / max(wc.cpu_med(), 1e-3)),
            ("%.3f s" % py.med()) if py else "-",
            ("%.1fx" % (py.med() / t.med())) if py else "-",
            r["load"])) + " |")


if __name__ == "__main__":
    main()
