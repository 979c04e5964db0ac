#!/usr/bin/env python3
"""Writes a large, realistic trtexec --verbose build log for throughput and memory tests.

The lines repeat the shapes of real TensorRT 8.6 verbose logs: per layer a "Computing costs"
header, several "Autotuning format combination" sections, each with a few "Timing Runner"
sections of "Tactic Name: ... Tactic: 0x... Time: ..." lines and a "Fastest Tactic" line -
the tactic timing that dominates real logs (~32 KB per network layer) - then per build a
per-layer memory block, the memory totals and an "Engine Layer Information" block.
Several builds (backend strategies) follow each other, so the log holds a few layer blocks.

    python3 tools/make_large_log.py -o big.log            # about 210 MB
    python3 tools/make_large_log.py --size-mb 20 -o small.log
"""
import argparse
import random
import sys

RUNNERS = [
    ("CaskConvolution[0x80000009]", "sm80_xmma_fprop_implicit_gemm_f16f16_f16f16_f16_nhwckrsc_nhwc_tilesize{t}_stage{s}_warpsize2x2x1_g1_tensor16x8x16"),
    ("CaskFlattenConvolution[0x80000036]", "sm80_xmma_fprop_implicit_gemm_indexed_f16f16_f16f16_f16_nhwckrsc_nhwc_tilesize{t}_stage{s}_warpsize2x1x2_g1_tensor16x8x16_simple_t1r3s3"),
    ("CudnnConvolution[0x80000000]", "cudnn_convolution_tactic_{t}_{s}"),
]
TILES = ["128x128x32", "128x64x64", "64x64x64", "256x64x32", "64x128x32", "128x256x64"]
FORMATS = [
    ("Float({c}{hw},{hw},{w},1)", "Float({k}{hw},{hw},{w},1)"),
    ("Half({c}{hw},{hw},{w},1)", "Half({k}{hw},{hw},{w},1)"),
    ("Half({c}{hw}:2,{hw},{w},1)", "Half({k}{hw}:2,{hw},{w},1)"),
    ("Half({hw},1:8,{w8},{c8})", "Half({hw},1:8,{w8},{k8})"),
]


class Clock:
    def __init__(self):
        self.s = 0

    def stamp(self, step=0.004):
        self.s += step
        t = int(self.s)
        return "[08/20/2023-%02d:%02d:%02d]" % (11 + t // 3600 % 12, t // 60 % 60, t % 60)


def layer_names(n):
    names = []
    for i in range(n):
        blk, j = divmod(i, 3)
        if j == 2:
            names.append("/model/blk.%d/conv%d/Conv + /model/blk.%d/Add + /model/blk.%d/act%d/Relu" % (blk, j, blk, blk, j))
        else:
            names.append("/model/blk.%d/conv%d/Conv + /model/blk.%d/act%d/Relu" % (blk, j, blk, j))
    return names


def write_build(out, rnd, clock, names, build, tactics_per_runner):
    v = "[V] [TRT]"
    ts = clock.stamp
    out.write("%s [I] [TRT] [MemUsageChange] Init builder kernel library: CPU +1220, GPU +266, now: CPU 2066, GPU 3061 (MiB)\n" % ts())
    out.write("%s %s Constructing optimization profile number 0 [1/1].\n" % (ts(), v))
    chosen = []
    for idx, name in enumerate(names):
        c, k = 64 << (idx // 90 % 3), 64 << ((idx + 1) // 90 % 3)
        hw = 56 >> (idx // 200 % 3)
        dims = dict(c=c, k=k, hw=hw * hw, w=hw, w8=hw * 8, c8=c * 8, k8=k * 8)
        out.write("%s %s =============== Computing costs for %s\n" % (ts(), v, name))
        best = None
        for fin, fout in FORMATS[build % 2:]:
            out.write("%s %s *************** Autotuning format combination: %s -> %s ***************\n"
                      % (ts(), v, fin.format(**dims), fout.format(**dims)))
            for runner, kernel in RUNNERS[: 2 + (idx % 2)]:
                out.write("%s %s --------------- Timing Runner: %s (%s)\n" % (ts(), v, name, runner))
                fastest = None
                for i in range(tactics_per_runner):
                    tactic = rnd.getrandbits(64)
                    kname = kernel.format(t=rnd.choice(TILES), s=rnd.randint(3, 6))
                    # the last tactic of a runner is timed when all before it were skipped
                    if rnd.random() < 0.05 and (fastest or i + 1 < tactics_per_runner):
                        out.write("%s %s Skipping tactic 0x%016x due to insufficient memory on requested size of %d detected for tactic 0x%016x.\n"
                                  % (ts(), v, tactic, rnd.randint(1 << 20, 1 << 31), tactic))
                        continue
                    t = rnd.uniform(0.01, 0.9)
                    out.write("%s %s Tactic Name: %s Tactic: 0x%016x Time: %.6g\n" % (ts(), v, kname, tactic, t))
                    if fastest is None or t < fastest[1]:
                        fastest = (tactic, t)
                out.write("%s %s %s (%s) profiling completed in %.6g seconds. Fastest Tactic: 0x%016x Time: %.6g\n"
                          % (ts(), v, name, runner, rnd.uniform(0.05, 2.0), fastest[0], fastest[1]))
                if best is None or fastest[1] < best[1]:
                    best = fastest
        out.write("%s %s >>>>>>>>>>>>>>> Chose Runner Type: CaskConvolution Tactic: 0x%016x\n" % (ts(), v, best[0]))
        chosen.append((best[0], c, k, hw))
        if idx % 17 == 0:
            out.write("%s %s Adding reformat layer: Reformatted Input Tensor 0 to %s (t%d) from Half(%d,1:8,%d,%d) to Half(%d,%d,%d,1)\n"
                      % (ts(), v, name, idx, hw * hw, hw * 8, c * 8, c * hw * hw, hw * hw, hw))
    out.write("%s %s Formats and tactics selection completed in %.4f seconds.\n" % (ts(), v, rnd.uniform(100, 900)))
    out.write("%s %s After reformat layers: %d layers\n" % (ts(), v, len(names)))
    out.write("%s [I] [TRT] Detected 1 inputs and 1 output network tensors.\n" % ts())
    for name in names:
        out.write("%s %s Layer: %s Host Persistent: %d Device Persistent: 0 Scratch Memory: %d\n"
                  % (ts(), v, name, rnd.randint(1, 40) * 256, rnd.choice([0, 0, 512, 4096])))
    out.write("%s [I] [TRT] Total Host Persistent Memory: %d\n" % (ts(), len(names) * 5000))
    out.write("%s [I] [TRT] Total Device Persistent Memory: 0\n" % ts())
    out.write("%s [I] [TRT] Total Scratch Memory: 4608\n" % ts())
    out.write("%s [V] [TRT] Engine Layer Information:\n" % ts())
    prev = "input"
    for i, (name, (tactic, c, k, hw)) in enumerate(zip(names, chosen)):
        t_out = "t%d" % i if i + 1 < len(names) else "output"
        out.write("Layer(CaskConvolution): %s, Tactic: 0x%016x, %s (Half[1,%d:8,%d,%d]) -> %s (Half[1,%d:8,%d,%d])\n"
                  % (name, tactic, prev, c, hw, hw, t_out, k, hw, hw))
        prev = t_out
    out.write("%s [I] [TRT] [MemUsageChange] TensorRT-managed allocation in building engine: CPU +12, GPU +40, now: CPU 12, GPU 40 (MiB)\n" % ts())
    out.write("%s [I] Engine built in %.4f sec.\n" % (ts(), rnd.uniform(100, 900)))


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-o", "--output", default="-", help="output file (default stdout)")
    ap.add_argument("--size-mb", type=float, default=210, help="approximate size in MB (default 210)")
    ap.add_argument("--builds", type=int, default=3, help="layer blocks (builds) in the log")
    ap.add_argument("--tactics", type=int, default=22, help="tactic lines per timing runner")
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    # ~230 bytes per line, ~(3 combos x 2.5 runners x (tactics + 1) + 5) lines per layer.
    per_layer = 230 * (3 * 2.5 * (a.tactics + 1) + 5)
    layers = max(3, int(a.size_mb * 1e6 / a.builds / per_layer))
    out = sys.stdout if a.output == "-" else open(a.output, "w", buffering=1 << 20)
    rnd = random.Random(a.seed)
    clock = Clock()
    names = layer_names(layers)
    out.write("&&&& RUNNING TensorRT.trtexec [TensorRT v8601] # trtexec --onnx=big.onnx --fp16 --verbose\n")
    out.write("%s [I] TensorRT version: 8.6.1\n" % clock.stamp())
    for b in range(a.builds):
        write_build(out, rnd, clock, names, b, a.tactics)
    out.write("&&&& PASSED TensorRT.trtexec [TensorRT v8601] # trtexec --onnx=big.onnx --fp16 --verbose\n")
    if out is not sys.stdout:
        out.close()


if __name__ == "__main__":
    main()
