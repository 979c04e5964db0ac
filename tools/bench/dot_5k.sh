#!/bin/sh
# Times `trtlens dot -o x.svg` on a synthetic engine of N layers (default 5000) shaped like the
# hard cases of anchors-and-user-asks.md §4.3: a chain with residual adds, a few hub tensors read
# by many layers (attention masks / RoPE tables) and ~3% long skip edges.
# Usage: tools/bench/dot_5k.sh [path/to/trtlens] [layers]   Budget: <= 10 s for 5000 layers.
set -eu
TRTLENS=${1:-build/trtlens}
N=${2:-5000}
DIR=$(mktemp -d)
trap 'rm -rf "$DIR"' EXIT
python3 - "$N" > "$DIR/engine.json" <<'PY'
import json, random, sys
n = int(sys.argv[1]); rng = random.Random(7)
def t(name, dims=(1, 256, 56, 56), fmt="Row major linear FP16 format"):
    return {"Name": name, "Location": "Device", "Dimensions": list(dims), "Format/Datatype": fmt}
layers, hubs = [], []
prev = "input"
for i in range(n):
    ins = [t(prev)]
    if i % 3 == 2 and i >= 3: ins.append(t(f"t{i-3}"))                 # residual
    if i >= 100 and rng.random() < 0.03: ins.append(t(f"t{rng.randrange(max(0, i-300), i-10)}"))  # long skip
    if i % 100 == 50: hubs.append(f"t{i}")                               # hub producer
    if hubs and i % 7 == 0: ins.append(t(hubs[-1]))                      # hub reader
    kind = "Reformat" if i % 25 == 24 else ("CaskConvolution" if i % 2 else "PointWiseV2")
    layers.append({"Name": f"/model/blk.{i//10}/op_{i}/MatMul + PWN(/model/blk.{i//10}/Add_{i})",
                   "LayerType": kind, "Inputs": ins, "Outputs": [t(f"t{i}")],
                   "TacticValue": "0x%016x" % rng.getrandbits(64)})
    prev = f"t{i}"
json.dump({"Layers": layers, "Bindings": ["input", prev]}, sys.stdout)
PY
echo "layers: $N, JSON $(wc -c < "$DIR/engine.json") bytes"
python3 - "$TRTLENS" "$DIR" <<'PY'
import resource, subprocess, sys, time
trtlens, d = sys.argv[1], sys.argv[2]
t0 = time.monotonic()
subprocess.run([trtlens, "dot", d + "/engine.json", "-o", d + "/x.svg"], check=True)
wall = time.monotonic() - t0
cpu = resource.getrusage(resource.RUSAGE_CHILDREN)
print("svg: %d bytes" % len(open(d + "/x.svg", "rb").read()))
print("trtlens dot -o x.svg: %.2f s wall, %.2f s CPU (user+sys)" % (wall, cpu.ru_utime + cpu.ru_stime))
PY
