#!/usr/bin/env python3
"""Writes N capture bundles for the store benchmark: each a directory with manifest.json,
layers.json (--exportLayerInfo shape), profile.json (--exportProfile shape) and times.json
(--exportTimes shape). Models, targets and dates vary as a team's nightly builds would; every
capture differs in content (tactics and times), so none is a duplicate of another.

Usage: make_captures.py OUT_DIR [CAPTURES] [LAYERS_PER_CAPTURE]
"""
import json
import os
import random
import sys

out = sys.argv[1]
captures = int(sys.argv[2]) if len(sys.argv) > 2 else 10000
layers = int(sys.argv[3]) if len(sys.argv) > 3 else 500
models = [f"model{m:02d}" for m in range(20)]
targets = ["x86-A100", "orin-agx", "drive-thor"]
types = [("CaskConvolution", "Channel major FP16 format where channel % 8 == 0"),
         ("CaskPooling", "Channel major FP16 format where channel % 8 == 0"),
         ("PointWiseV2", "Row major linear FP32 format"),
         ("Reformat", "Row major linear FP32 format"),
         ("CaskGemmConvolution", "Thirty-two wide channel vectorized row major Int8 format")]
rng = random.Random(1)
os.makedirs(out, exist_ok=True)
for i in range(captures):
    d = os.path.join(out, f"capture{i:05d}")
    os.makedirs(d, exist_ok=True)
    model = models[i % len(models)]
    target = targets[(i // len(models)) % len(targets)]
    day = 1 + i // (len(models) * len(targets))
    ls, rows = [], [{"count": 100}]
    prev = "input"
    total = 0.0
    for k in range(layers):
        t, fmt = types[(k * 7 + i) % len(types)]
        name = f"/{model}/block{k // 4}/layer{k}/Conv + Relu"
        out_name = f"t{k}"
        ls.append({"Name": name, "LayerType": t,
                   "Inputs": [{"Name": prev, "Location": "Device", "Dimensions": [1, 64, 56, 56],
                               "Format/Datatype": fmt}],
                   "Outputs": [{"Name": out_name, "Location": "Device",
                                "Dimensions": [1, 64, 56, 56], "Format/Datatype": fmt}],
                   "TacticValue": "0x%016x" % rng.getrandbits(64)})
        ms = rng.uniform(0.001, 0.2)
        total += ms
        rows.append({"name": name, "timeMs": ms * 100, "averageMs": ms, "medianMs": ms,
                     "percentage": 0.0})
        prev = out_name
    for r in rows[1:]:
        r["percentage"] = r["averageMs"] / total * 100
    with open(os.path.join(d, "layers.json"), "w") as f:
        json.dump({"Layers": ls, "Bindings": ["input", prev]}, f)
    with open(os.path.join(d, "profile.json"), "w") as f:
        json.dump(rows, f)
    times, t0 = [], 0.0
    for q in range(50):
        lat = total * rng.uniform(1.0, 1.1)
        times.append({"startEnqMs": t0, "endEnqMs": t0 + 0.01, "startH2dMs": t0,
                      "endH2dMs": t0, "startComputeMs": t0, "endComputeMs": t0 + lat,
                      "startD2hMs": t0 + lat, "endD2hMs": t0 + lat, "h2dMs": 0,
                      "computeMs": lat, "d2hMs": 0, "latencyMs": lat})
        t0 += lat
    with open(os.path.join(d, "times.json"), "w") as f:
        json.dump(times, f)
    files = [{"path": p, "kind": k, "size": os.path.getsize(os.path.join(d, p))}
             for p, k in (("layers.json", "layer-json"), ("profile.json", "profile-json"),
                          ("times.json", "times-json"))]
    with open(os.path.join(d, "manifest.json"), "w") as f:
        json.dump({"schema": "trtlens-bundle/1", "tool": "make_captures.py",
                   "name": f"capture{i:05d}", "status": "ok", "model": f"{model}.onnx",
                   "target": target,
                   "trt_version": "10.16.2", "start": f"2026-{1 + (day - 1) // 28:02d}-"
                   f"{1 + (day - 1) % 28:02d}T02:00:00Z", "files": files}, f)
