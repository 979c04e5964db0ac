#!/usr/bin/env python3
"""Scaling benchmark: trtlens on inputs of N and 10*N records, in the same run.

Each case is generated at two sizes; the CPU time ratio (large / small, user + system, so a
busy machine does not skew it) is about 10 when time is linear in the input and about 100 when
quadratic; peak RSS over records gives bytes per record. Cases: one-line (inspector) layers in a chain, one-layer listings repeated, and a
profile JSON given alone.

usage: tools/bench/scale.py [build/trtlens] [N] [--instructions]
    (default N = 10000, so 10k and 100k)
--instructions also counts the instructions each run executes (valgrind's callgrind, about 50x
slower): a count does not depend on the machine's load or caches, so its ratio shows whether the
work is linear when the CPU-time ratio is above 10.
"""
import os
import subprocess
import sys
import tempfile


def oneline_chain(path, n):
    with open(path, "w") as f:
        f.write("[09/12/2024-10:11:12] [I] Layer Information:\nLayers:\n")
        for i in range(n):
            f.write(
                f"Name: layer_{i}, LayerType: CaskConvolution, Inputs: [ {{ Name: t{i}, Location: Device, "
                f"Dimensions: [1,64,56,56], Format/Datatype: Row major linear FP16 }}], Outputs: [ {{ Name: "
                f"t{i + 1}, Location: Device, Dimensions: [1,64,56,56], Format/Datatype: Row major linear "
                f"FP16 }}], ParameterType: Convolution, TacticValue: 0x0000000000000001, StreamId: 0, "
                f"Metadata: \n")
        f.write(f"\nBindings:\nt0\nt{n}\n")


def many_listings(path, n):
    with open(path, "w") as f:
        for i in range(n):
            f.write("[02/08/2023-15:25:37] [V] [TRT] Engine Layer Information:\n")
            f.write(f"Layer(CaskConvolution): conv_{i}, Tactic: 0x0000000000000001, "
                    f"in_{i}[Float(1,64,56,56)] -> out_{i}[Float(1,64,56,56)]\n")


def profile_alone(path, n):
    with open(path, "w") as f:
        f.write('[\n  { "count" : 100 }\n')
        for i in range(n):
            f.write(f', {{ "name" : "layer_{i}", "timeMs" : 1.5, "averageMs" : 0.015, '
                    f'"medianMs" : 0.015, "percentage" : 0.001 }}\n')
        f.write("]\n")


def main():
    args = [a for a in sys.argv[1:] if a != "--instructions"]
    count = len(args) != len(sys.argv) - 1
    binary = args[0] if len(args) > 0 else "build/trtlens"
    n = int(args[1]) if len(args) > 1 else 10000
    cases = [
        ("one-line layers in a chain", oneline_chain, ".log", ["summary"]),
        ("one-line layers in a chain", oneline_chain, ".log", ["json"]),
        ("one-layer listings", many_listings, ".log", ["summary"]),
        ("one-layer listings", many_listings, ".log", ["json"]),
        ("profile JSON alone (x100 rows)", profile_alone, ".json", ["summary"]),
    ]
    print("| case | command | CPU, small | CPU, 10x larger | ratio (10 = linear) | "
          "peak RSS, larger | bytes/record |" + (" instructions, small / larger | ratio |" if count else ""))
    print("| --- | --- | --- | --- | --- | --- | --- |" + (" --- | --- |" if count else ""))
    with tempfile.TemporaryDirectory(prefix="trtlens-scale-") as d:
        for name, make, ext, cmd in cases:
            sizes = [n, 10 * n]
            if make is profile_alone:
                sizes = [10 * n, 100 * n]
            times, rss, instr = [], [], []
            for size in sizes:
                path = os.path.join(d, f"in{ext}")
                make(path, size)
                t, r = measure(binary, cmd + [path])
                times.append(t)
                rss.append(r)
                if count:
                    instr.append(instructions(binary, cmd + [path]))
                os.remove(path)
            ratio = times[1] / max(times[0], 1e-3)
            per = rss[1] * 1024 / sizes[1]
            print(f"| {name} | {cmd[0]} | {sizes[0]}: {times[0]:.2f} s | {sizes[1]}: {times[1]:.2f} s | "
                  f"{ratio:.1f} | "
                  f"{rss[1] / 1024:.0f} MiB | {per:.0f} |" +
                  (f" {instr[0] / 1e6:.0f} M / {instr[1] / 1e6:.0f} M | {instr[1] / instr[0]:.1f} |"
                   if count else ""), flush=True)


def measure(binary, args):
    """CPU seconds (user + system) and peak RSS (KiB) through /usr/bin/time."""
    r = subprocess.run(["/usr/bin/time", "-f", "%U %S %M", binary] + args,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    err = r.stderr.decode().strip().splitlines()
    if r.returncode not in (0, 1):
        sys.exit(f"trtlens {' '.join(args)}: exit {r.returncode}: {' '.join(err)[:300]}")
    user, system, rss = err[-1].split()
    return float(user) + float(system), int(rss)


def instructions(binary, args):
    """Instructions executed, all threads, counted by callgrind."""
    r = subprocess.run(["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", binary] + args,
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    for line in r.stderr.decode(errors="replace").splitlines():
        if "refs:" in line:
            return int(line.split("refs:")[1].strip().replace(",", ""))
    sys.exit(f"valgrind gave no instruction count for {' '.join(args)}")


if __name__ == "__main__":
    main()
