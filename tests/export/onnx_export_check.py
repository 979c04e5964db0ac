#!/usr/bin/env python3
"""`trtlens export --format onnx` on a real --exportLayerInfo JSON: the model passes the ONNX
checker, and its nodes round-trip the engine's layers (count, names in order, types) and edges
(producer layer -> consumer layer by tensor name, worked out here from the JSON itself).

usage: onnx_export_check.py TRTLENS OUT_DIR INPUT.json...
Exit 77 (CTest SKIP) when python3-onnx or an input is missing."""
import json, os, subprocess, sys

try:
    import onnx
except ImportError:
    # python3-onnx is a Debian package: it lives with the system interpreter, which another
    # python3 earlier on PATH (pyenv, a venv) does not see.
    system = "/usr/bin/python3"
    if os.path.realpath(sys.executable) != os.path.realpath(system) and os.path.exists(system):
        os.execv(system, [system] + sys.argv)
    print("SKIP: python3-onnx is not installed"); sys.exit(77)


def engine_edges(layers):
    # Independent of trtlens: the last layer that wrote a name before the reader produced it.
    producer, edges = {}, set()
    for i, l in enumerate(layers):
        for t in l.get("Inputs", []):
            if t["Name"] in producer:
                edges.add((producer[t["Name"]], i))
        for t in l.get("Outputs", []):
            producer[t["Name"]] = i
    return edges


def model_edges(graph):
    producer, edges = {}, set()
    for i, n in enumerate(graph.node):
        for t in n.input:
            if t in producer:
                edges.add((producer[t], i))
        for t in n.output:
            producer[t] = i
    return edges


def main():
    trtlens, out = sys.argv[1], sys.argv[2]
    os.makedirs(out, exist_ok=True)
    failures = []
    for path in sys.argv[3:]:
        if not os.path.exists(path):
            print("SKIP: input absent: " + path); return 77
        doc = json.load(open(path))
        layers = doc["Layers"]
        model_path = os.path.join(out, os.path.basename(path) + ".onnx")
        subprocess.run([trtlens, "export", "--format", "onnx", path, "-o", model_path, "-q"], check=True)
        model = onnx.load(model_path)
        try:
            onnx.checker.check_model(model)
        except Exception as e:  # the checker's own error types differ between versions
            failures.append("%s: checker: %s" % (path, e))
        g = model.graph
        if len(g.node) != len(layers):
            failures.append("%s: %d nodes, %d layers" % (path, len(g.node), len(layers)))
        if [n.name for n in g.node] != [l["Name"] for l in layers]:
            failures.append("%s: node names differ from the layer names" % path)
        if [n.op_type for n in g.node] != [l.get("LayerType", "Unknown") for l in layers]:
            failures.append("%s: op types differ from LayerType" % path)
        want, got = engine_edges(layers), model_edges(g)
        if want != got:
            failures.append("%s: edges differ: %d only in the engine, %d only in the model" %
                            (path, len(want - got), len(got - want)))
        bindings = set(doc.get("Bindings", []))
        io = {v.name for v in g.input} | {v.name for v in g.output}
        if bindings and not bindings <= io:
            failures.append("%s: bindings missing from graph inputs/outputs: %s" % (path, sorted(bindings - io)))
        tactics = [a.s.decode() for n in g.node for a in n.attribute if a.name == "tactic"]
        want_tactics = sum(1 for l in layers if "TacticValue" in l)
        if len(tactics) < want_tactics:
            failures.append("%s: %d tactic attributes, %d layers with TacticValue" % (path, len(tactics), want_tactics))
        typed = sum(1 for v in g.value_info if v.type.tensor_type.elem_type != 0)
        print("%s: %d nodes, %d edges, %d value_info (%d typed), inputs %s, outputs %s" %
              (os.path.basename(path), len(g.node), len(got), len(g.value_info), typed,
               [v.name for v in g.input][:4], [v.name for v in g.output][:4]))
    for f in failures:
        print("FAIL: " + f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
