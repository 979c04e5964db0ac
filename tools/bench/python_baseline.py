#!/usr/bin/env python3
"""The way existing Python tools read a verbose build log, for comparison with trtlens.

Reads the log line by line and applies regular expressions per line, like the pytorch
engine_layer_visualize.py state machine and TREx's log parser do: the layer block, the
per-layer memory lines and the reformat lines. Prints what it found so the work is not
optimised away.
"""
import re
import sys

PREFIX = re.compile(r"^\[\d+/\d+/\d+-\d+:\d+:\d+\] \[[VIWEF]\] (?:\[TRT\] )?")
LAYER = re.compile(r"^Layer\((.+?)\): (.+), Tactic: (-?\w+), (.*) -> (.*)$")
MEMORY = re.compile(r"^Layer: (.+) Host Persistent: (\d+)(?: bytes)? Device Persistent: (\d+)"
                    r"(?: bytes)? Scratch Memory: (\d+)")
REFORMAT = re.compile(r"^Adding reformat layer: (.+) \((.+)\) from (.+) to (.+)$")


def main(path):
    layers = memory = reformats = blocks = 0
    in_block = False
    with open(path, "r", encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            msg = PREFIX.sub("", line, count=1)
            if "Engine Layer Information" in msg:
                in_block = True
                blocks += 1
                continue
            if in_block:
                if LAYER.match(msg):
                    layers += 1
                    continue
                in_block = False
            if MEMORY.match(msg):
                memory += 1
            elif REFORMAT.match(msg):
                reformats += 1
    print(f"blocks={blocks} layers={layers} memory_lines={memory} reformat_lines={reformats}")


if __name__ == "__main__":
    main(sys.argv[1])
