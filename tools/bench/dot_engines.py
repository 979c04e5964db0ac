#!/usr/bin/env python3
"""Times `trtlens dot -o x.svg` (and optionally `report`) on synthetic engines shaped like the real
ones that make Graphviz slow: transformer blocks whose attention mask, position ids and RoPE
cos/sin tensors are read by every block; ResNet bottleneck blocks; a plain chain; a chain with
long skip connections. Engines are --exportLayerInfo JSON written to a temporary directory.

A fifth shape, `hub` (one tensor read by every layer of a chain), is the 100k-reader case:
  tools/bench/dot_engines.py --shapes hub --sizes 100000
Usage: tools/bench/dot_engines.py [--trtlens build/trtlens] [--shapes transformer,resnet,...]
                                  [--sizes 300,1000,5000,10000] [--report] [--keep DIR]
Prints one Markdown row per engine: shape, layers, wall and CPU seconds, SVG size. On a shared
machine the wall time includes waiting for a core; CPU (user + sys) is what the drawing costs.
Bounds: every engine <= 10 s, a 300-layer transformer <= 2 s.
"""
import argparse, json, os, random, resource, subprocess, sys, tempfile, time


def tensor(name, dims=(1, 256, 56, 56), fmt="Row major linear FP16 format"):
    return {"Name": name, "Location": "Device", "Dimensions": list(dims), "Format/Datatype": fmt}


class Engine:
    def __init__(self, seed=7):
        self.layers, self.rng = [], random.Random(seed)

    def add(self, name, kind, ins, out=None, dims=(1, 256, 56, 56)):
        out = out or "t%d" % len(self.layers)
        self.layers.append({"Name": name, "LayerType": kind,
                            "Inputs": [tensor(i, dims) for i in ins], "Outputs": [tensor(out, dims)],
                            "TacticValue": "0x%016x" % self.rng.getrandbits(64)})
        return out

    def full(self):
        return len(self.layers)


def transformer(n):
    e = Engine()
    d = (1, 128, 768)
    mask = e.add("/model/attn_mask/Expand", "PointWiseV2", ["attention_mask"], "mask", d)
    pos = e.add("/model/position_ids/Range", "PointWiseV2", ["input_ids"], "position_ids", d)
    cos = e.add("/model/rotary/Cos", "PointWiseV2", [pos], "rope_cos", d)
    sin = e.add("/model/rotary/Sin", "PointWiseV2", [pos], "rope_sin", d)
    h = e.add("/model/embed_tokens/Gather", "Gather", ["input_ids", pos], "h0", d)
    b = 0
    while e.full() < n:
        p = "/model/layers.%d" % b
        ln = e.add(p + "/input_layernorm/LayerNorm", "Normalization", [h], p + "/ln1", d)
        q = e.add(p + "/self_attn/q_proj/MatMul", "CaskGemm", [ln], p + "/q", d)
        k = e.add(p + "/self_attn/k_proj/MatMul", "CaskGemm", [ln], p + "/k", d)
        v = e.add(p + "/self_attn/v_proj/MatMul", "CaskGemm", [ln], p + "/v", d)
        qr = e.add(p + "/self_attn/rotary_q/Mul + Add", "PointWiseV2", [q, cos, sin, pos], p + "/qr", d)
        kr = e.add(p + "/self_attn/rotary_k/Mul + Add", "PointWiseV2", [k, cos, sin, pos], p + "/kr", d)
        a = e.add(p + "/self_attn/MatMul + Softmax + MatMul_1", "CaskFlashAttention", [qr, kr, v, mask], p + "/attn", d)
        o = e.add(p + "/self_attn/o_proj/MatMul", "CaskGemm", [a], p + "/o", d)
        r = e.add(p + "/Add", "PointWiseV2", [h, o], p + "/res1", d)
        ln2 = e.add(p + "/post_attention_layernorm/LayerNorm", "Normalization", [r], p + "/ln2", d)
        g = e.add(p + "/mlp/gate_proj/MatMul", "CaskGemm", [ln2], p + "/gate", d)
        u = e.add(p + "/mlp/up_proj/MatMul", "CaskGemm", [ln2], p + "/up", d)
        s = e.add(p + "/mlp/act/Sigmoid + Mul + Mul_1", "PointWiseV2", [g, u], p + "/act", d)
        dn = e.add(p + "/mlp/down_proj/MatMul", "CaskGemm", [s], p + "/down", d)
        h = e.add(p + "/Add_1", "PointWiseV2", [r, dn], p + "/res2", d)
        b += 1
    e.add("/model/norm/LayerNorm", "Normalization", [h], "logits", d)
    return e.layers[:n], ["attention_mask", "input_ids", "logits"]


def resnet(n):
    e = Engine()
    h = e.add("/conv1/Conv + /relu/Relu", "CaskConvolution", ["input"], "stem")
    b = 0
    while e.full() < n:
        p = "/layer%d/%d" % (1 + b // 10, b % 10)
        c1 = e.add(p + "/conv1/Conv + /relu/Relu", "CaskConvolution", [h], p + "/c1")
        c2 = e.add(p + "/conv2/Conv + /relu_1/Relu", "CaskConvolution", [c1], p + "/c2")
        if b % 10 == 0:
            sc = e.add(p + "/downsample/0/Conv", "CaskConvolution", [h], p + "/sc")
        else:
            sc = h
        if b % 4 == 3:
            c2 = e.add("Reformatting CopyNode for Input Tensor 0 to " + p + "/conv3/Conv",
                       "Reformat", [c2], p + "/c2r")
        h = e.add(p + "/conv3/Conv + /Add + /Relu", "CaskConvolution", [c2, sc], p + "/out")
        b += 1
    return e.layers[:n], ["input", e.layers[min(n, len(e.layers)) - 1]["Outputs"][0]["Name"]]


def chain(n):
    e = Engine()
    h = "input"
    for i in range(n):
        kind = "Reformat" if i % 25 == 24 else ("CaskConvolution" if i % 2 else "PointWiseV2")
        h = e.add("/model/blk.%d/op_%d/Conv + PWN(/model/blk.%d/Relu_%d)" % (i // 10, i, i // 10, i),
                  kind, [h])
    return e.layers, ["input", h]


def longskip(n):
    # A U-Net-like chain: every 10th layer also reads a tensor from hundreds of layers back.
    e = Engine()
    h = "input"
    for i in range(n):
        ins = [h]
        if i >= 100 and i % 10 == 0:
            ins.append("t%d" % e.rng.randrange(max(0, i - 800), i - 50))
        h = e.add("/unet/stage.%d/conv_%d/Conv" % (i // 50, i), "CaskConvolution", ins)
    return e.layers, ["input", h]


def hub(n):
    # One tensor read by every layer (a mask or a table every block reads), as a chain.
    e = Engine()
    e.add("/embed/Gather", "Gather", ["input"], "hub")
    h = "hub"
    for i in range(1, n):
        h = e.add("reader_%d" % i, "PointWiseV2", [h, "hub"])
    return e.layers, ["input", h]


SHAPES = {"transformer": transformer, "resnet": resnet, "chain": chain, "longskip": longskip,
          "hub": hub}


def timed(cmd, timeout):
    """(wall cell, CPU cell, wall seconds) of one run; a run past `timeout` is killed."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t0 = time.monotonic()
    try:
        subprocess.run(cmd, check=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return "> %.0f s (killed)" % timeout, "-", timeout
    wall = time.monotonic() - t0
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return "%.2f s" % wall, "%.2f s" % cpu, wall


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trtlens", default="build/trtlens")
    ap.add_argument("--shapes", default="transformer,resnet,chain,longskip")
    ap.add_argument("--sizes", default="300,1000,5000,10000")
    ap.add_argument("--report", action="store_true", help="also time `trtlens report`")
    ap.add_argument("--keep", help="write the engines here and keep them")
    ap.add_argument("--timeout", type=float, default=120)
    a = ap.parse_args()
    d = a.keep or tempfile.mkdtemp()
    os.makedirs(d, exist_ok=True)
    print("| engine | layers | `dot -o x.svg` wall | CPU | SVG | `report` wall | CPU |")
    print("| --- | ---: | ---: | ---: | ---: | ---: | ---: |")
    worst = 0.0
    for shape in a.shapes.split(","):
        for n in (int(s) for s in a.sizes.split(",")):
            layers, bindings = SHAPES[shape](n)
            path = os.path.join(d, "%s_%d.json" % (shape, n))
            with open(path, "w") as f:
                json.dump({"Layers": layers, "Bindings": bindings}, f)
            svg = os.path.join(d, "%s_%d.svg" % (shape, n))
            dot_cell, dot_cpu, dot_s = timed([a.trtlens, "dot", path, "-o", svg, "--quiet"], a.timeout)
            size = "%d KB" % (os.path.getsize(svg) // 1000) if os.path.exists(svg) else "-"
            worst = max(worst, dot_s)
            rep, rep_cpu = "-", "-"
            if a.report:
                rep, rep_cpu, _ = timed([a.trtlens, "report", path, "-o", os.path.join(d, "r.html"),
                                         "--quiet"], a.timeout)
                if os.path.exists(os.path.join(d, "r.html")):
                    os.remove(os.path.join(d, "r.html"))
            print("| %s | %d | %s | %s | %s | %s | %s |" % (shape, len(layers), dot_cell, dot_cpu,
                                                          size, rep, rep_cpu), flush=True)
            if not a.keep:
                os.remove(path)
                if os.path.exists(svg):
                    os.remove(svg)
    if not a.keep:
        for f in os.listdir(d):
            os.remove(os.path.join(d, f))
        os.rmdir(d)
    print("slowest: %.2f s wall (bound 10 s); load average %s" % (worst, open("/proc/loadavg").read().split()[0]))


if __name__ == "__main__":
    sys.exit(main())
