#!/usr/bin/env python3
"""Times `trtlens diff` on two synthetic 10,000-layer builds.

The builds are --exportLayerInfo JSON in the shape of the TREx corpus (ResNet-like blocks of
reformat + conv + pointwise layers). The head build renames every third layer (so those pair
by signature, not name), changes every seventh tactic, adds a reformat every 50 layers and
drops every 97th layer.

usage: tools/bench/diff_10k.py [--trtlens build/trtlens] [--layers 10000] [--runs 5]
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


def make_layers(n, head):
    layers = []
    prev = "input"
    channels = [64, 128, 256, 512]
    i = 0
    while len(layers) < n:
        c = channels[(i // 200) % 4]
        hw = 56 // (1 << ((i // 200) % 4))
        dims = [32, c, hw, hw]
        kind = i % 3
        name = f"Conv_{i} + Relu_{i + 1}" if kind != 2 else f"PWN(Add_{i}, Relu_{i + 1})"
        if head and i % 3 == 1:
            name = f"node_{i}/conv + node_{i}/relu"  # renamed: aligned by signature
        if head and i % 97 == 0:
            i += 1
            continue
        out = f"t{i}"
        ltype = "CaskConvolution" if kind != 2 else "PointWiseV2"
        tactic = 0x0866DDEE325D07A6 + (i % 13)
        if head and i % 7 == 0:
            tactic += 1
        layer = {
            "Name": name, "LayerType": ltype,
            "Inputs": [tensor(prev, dims, "Channel major FP16 format where channel % 8 == 0")],
            "Outputs": [tensor(out, dims, "Channel major FP16 format where channel % 8 == 0")],
            "ParameterType": "Convolution" if kind != 2 else "PointWise",
            "TacticValue": "0x%016x" % tactic,
        }
        layers.append(layer)
        prev = out
        if head and i % 50 == 0:
            rname = f"Reformatting CopyNode for Output Tensor 0 to {name}"
            layers.append({
                "Name": rname, "LayerType": "Reformat",
                "Inputs": [tensor(prev, dims, "Channel major FP16 format where channel % 8 == 0")],
                "Outputs": [tensor(rname + "_out", dims, "Row major linear FP16 format")],
                "ParameterType": "Reformat", "TacticValue": "0x00000000000003e8",
            })
            prev = rname + "_out"
        i += 1
    return layers[:n]


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--trtlens", default=os.path.join(here, "..", "..", "build", "trtlens"))
    ap.add_argument("--layers", type=int, default=10000)
    ap.add_argument("--runs", type=int, default=5)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as d:
        paths = []
        for side in ("base", "head"):
            p = os.path.join(d, side + ".json")
            with open(p, "w") as f:
                json.dump({"Layers": make_layers(args.layers, side == "head"),
                           "Bindings": ["input"]}, f)
            paths.append(p)
        best = best_cpu = None
        for _ in range(args.runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            t0 = time.perf_counter()
            r = subprocess.run([args.trtlens, "diff", paths[0], paths[1], "--format", "json",
                                "-o", os.devnull], capture_output=True, text=True)
            dt = time.perf_counter() - t0
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
            if r.returncode != 0:
                raise SystemExit("trtlens diff failed: " + r.stderr)
            best = dt if best is None else min(best, dt)
            best_cpu = cpu if best_cpu is None else min(best_cpu, cpu)
        summary = json.loads(subprocess.run(
            [args.trtlens, "diff", paths[0], paths[1], "--format", "json"],
            capture_output=True, text=True).stdout)["summary"]
        print(f"layers per side: {args.layers}; aligned: {summary['aligned']}, "
              f"only base {summary['only_base']}, only head {summary['only_head']}")
        # CPU time is the stable figure on a shared machine; wall time includes waiting for a core.
        print(f"trtlens diff: best of {args.runs}: wall {best:.3f} s, cpu {best_cpu:.3f} s "
              f"(target <= 1 s); load average {os.getloadavg()[0]:.1f}")


if __name__ == "__main__":
    main()
