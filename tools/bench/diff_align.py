#!/usr/bin/env python3
"""Alignment cost of `trtlens diff` as ratios measured in one invocation.

Builds two layer-JSON files per size in the shape of separate QAT exports of one model: every
conv carries its weight name ("blocks.17.conv.weight + QuantizeLinear_N + Conv_M") while the head
export renumbers every node (so node names mislead), renames every fifth pointwise layer, drops
every 97th layer and adds a reformat every 50. Then it times, by CPU of the child process:
  - reading both files alone (`trtlens layers` on each: the reference run),
  - `trtlens diff` at N/4 and N layers per side.
and prints diff / reference (alignment and change list on top of reading) and diff(N) /
diff(N/4) (4.0 is linear, 16 would be quadratic).

usage: tools/bench/diff_align.py [--trtlens build/trtlens] [--layers 10000] [--runs 3]
"""
import argparse
import json
import os
import resource
import subprocess
import tempfile
import time


def tensor(name, dims, fmt):
    return {"Name": name, "Location": "Device", "Dimensions": dims, "Format/Datatype": fmt}


INT8 = "Thirty-two wide channel vectorized row major Int8 format"


def make_layers(n, head):
    layers, prev, i = [], "input", 0
    shift = 7 if head else 0  # the head export numbers its nodes differently
    while len(layers) < n:
        c = [64, 128, 256, 512][(i // 250) % 4]
        dims = [32, c, 28, 28]
        out = f"t{i}"
        if head and i % 97 == 0:
            i += 1
            continue
        if i % 3 != 2:
            name = f"blocks.{i}.conv.weight + QuantizeLinear_{i + shift} + Conv_{i + shift + 2}"
            ltype, ptype = "CaskConvolution", "Convolution"
        else:
            name = f"PWN(Relu_{i + shift})"
            if head and i % 5 == 0:
                name = f"relu_block_{i}"
            ltype, ptype = "PointWiseV2", "PointWise"
        tactic = 0x0866DDEE325D07A6 + (i % 13) + (1 if head and i % 7 == 0 else 0)
        layers.append({
            "Name": name, "LayerType": ltype, "ParameterType": ptype,
            "Inputs": [tensor(prev, dims, INT8)], "Outputs": [tensor(out, dims, INT8)],
            "TacticValue": "0x%016x" % tactic,
        })
        prev = out
        if head and i % 50 == 0:
            rname = f"Reformatting CopyNode for Output Tensor 0 to {name}"
            layers.append({
                "Name": rname, "LayerType": "Reformat", "ParameterType": "Reformat",
                "Inputs": [tensor(prev, dims, INT8)],
                "Outputs": [tensor(rname + "_out", dims, "Row major linear FP16 format")],
                "TacticValue": "0x00000000000003e8",
            })
            prev = rname + "_out"
        i += 1
    return layers[:n]


def cpu_of(cmd, runs):
    best = None
    for _ in range(runs):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        r = subprocess.run(cmd, capture_output=True, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if r.returncode not in (0, 1):
            raise SystemExit(" ".join(cmd) + " failed: " + r.stderr)
        cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
        best = cpu if best is None else min(best, cpu)
    return best


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--trtlens", default=os.path.join(here, "..", "..", "build", "trtlens"))
    ap.add_argument("--layers", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=3)
    args = ap.parse_args()
    t = args.trtlens
    with tempfile.TemporaryDirectory() as d:
        def files(n):
            paths = []
            for side in ("base", "head"):
                p = os.path.join(d, f"{side}_{n}.json")
                with open(p, "w") as f:
                    json.dump({"Layers": make_layers(n, side == "head"), "Bindings": ["input"]}, f)
                paths.append(p)
            return paths

        small, big = files(args.layers // 4), files(args.layers)
        diff = lambda p: [t, "diff", p[0], p[1], "--format", "json", "-o", os.devnull]
        read = sum(cpu_of([t, "layers", p, "--format", "csv", "-o", os.devnull], args.runs) for p in big)
        d_small = cpu_of(diff(small), args.runs)
        d_big = cpu_of(diff(big), args.runs)
        summary = json.loads(subprocess.run(diff(big)[:-2], capture_output=True,
                                            text=True).stdout)["summary"]
    print(f"layers per side: {args.layers}; aligned: {summary['aligned']}, "
          f"only base {summary['only_base']}, only head {summary['only_head']}")
    print(f"cpu: read both {read:.3f} s, diff {d_big:.3f} s, diff at {args.layers // 4} "
          f"layers {d_small:.3f} s; load average {os.getloadavg()[0]:.1f}")
    print(f"ratio diff / read both: {d_big / read:.2f}")
    print(f"ratio diff({args.layers}) / diff({args.layers // 4}): {d_big / d_small:.2f} "
          f"(linear 4, quadratic 16)")


if __name__ == "__main__":
    main()
