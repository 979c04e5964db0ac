#!/usr/bin/env python3
"""Opens a trtlens HTML report in headless Chromium as a person would: no console errors, the
SVG graph and the tables are there, sorting and filtering work; saves a screenshot.

usage: report_browser_test.py --trtlens BIN --out DIR --name NAME INPUT...
       report_browser_test.py --diff-page BIN ... A B   (a diff page of two inputs instead)
Exit 77 (CTest SKIP) when chromium or an input is missing."""
import argparse, html, json, os, re, shutil, subprocess, sys, tempfile

CHROMIUM_FLAGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                  "--disable-component-update", "--disable-sync", "--no-first-run",
                  "--disable-extensions", "--enable-logging=stderr", "--v=0"]


def expected_layers(path):
    # Independent of trtlens: the JSON's Layers array, or the log's "Layer(" lines.
    if path.endswith(".json"):
        return len(json.load(open(path))["Layers"])
    return sum(1 for line in open(path, errors="replace") if line.startswith("Layer("))


def fmt_ms(v):
    # The report's convention: three significant digits.
    if v < 1: return "%.3g ms" % v
    return ("%.2f ms" if v < 10 else "%.1f ms" if v < 100 else "%.0f ms") % v


def expected_headline(inputs):
    # Independent of trtlens: the trace's median latency (trtexec: mean of the middle two when
    # even) and the profile's sum of averageMs.
    want = []
    for p in inputs:
        if not p.endswith(".json"): continue
        doc = json.load(open(p))
        if isinstance(doc, list) and doc and isinstance(doc[0], dict) and "latencyMs" in doc[0]:
            lat = sorted(r["latencyMs"] for r in doc)
            n = len(lat)
            want.append(fmt_ms(lat[n // 2] if n % 2 else (lat[n // 2 - 1] + lat[n // 2]) / 2))
            want.append("%d queries" % n)
        elif isinstance(doc, list) and any(isinstance(r, dict) and "averageMs" in r for r in doc):
            want.append(fmt_ms(sum(r["averageMs"] for r in doc if isinstance(r, dict) and "averageMs" in r)))
    return want


def chromium(args, profile):
    cmd = [shutil.which("chromium") or "chromium"] + CHROMIUM_FLAGS + ["--user-data-dir=" + profile] + args
    return subprocess.run(cmd, capture_output=True, text=True, timeout=120)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--trtlens", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--name", required=True)
    ap.add_argument("--diff-page")
    ap.add_argument("inputs", nargs="+")
    a = ap.parse_args()
    if not shutil.which("chromium"):
        print("SKIP: chromium not installed"); return 77
    for p in a.inputs:
        if not os.path.exists(p):
            print("SKIP: input absent: " + p); return 77
    os.makedirs(a.out, exist_ok=True)
    report = os.path.join(a.out, a.name + ".html")
    if a.diff_page:
        subprocess.run([a.diff_page, a.inputs[0], a.inputs[1], report], check=True)
    else:
        subprocess.run([a.trtlens, "report", *a.inputs, "-o", report, "-q"], check=True)
    size = os.path.getsize(report)
    failures = []
    page = open(report, encoding="utf-8").read()
    if re.search(r'(src|href)="(https?:)?//', page):
        failures.append("report references an external resource")

    with tempfile.TemporaryDirectory() as tmp:
        probe = open(os.path.join(os.path.dirname(__file__), "probe.js")).read()
        probed = os.path.join(tmp, "probed.html")
        open(probed, "w", encoding="utf-8").write(page.replace("<head>", "<head><script>" + probe + "</script>", 1))
        run = chromium(["--window-size=800,1000", "--virtual-time-budget=5000", "--dump-dom", "file://" + probed],
                       os.path.join(tmp, "p1"))
        found = [x for x in re.findall(r'<pre id="probe-result">(\{.*?)</pre>', run.stdout, re.S)]
        if not found:
            print(run.stderr[-2000:]); print("FAIL: the probe did not run"); return 1
        r = json.loads(html.unescape(found[-1]))
        console = [l for l in run.stderr.splitlines() if ":CONSOLE" in l and ("Uncaught" in l or "Refused" in l or "rror" in l)]
        shot = os.path.join(a.out, a.name + ".png")
        chromium(["--window-size=1400,1400", "--hide-scrollbars", "--screenshot=" + shot, "file://" + os.path.abspath(report)],
                 os.path.join(tmp, "p2"))
        shot800 = os.path.join(a.out, a.name + "-800.png")
        chromium(["--window-size=800,1400", "--hide-scrollbars", "--screenshot=" + shot800,
                  "file://" + os.path.abspath(report)], os.path.join(tmp, "p3"))

    print(json.dumps(r), "report bytes:", size)
    if r["errors"] or console: failures.append("errors: %s %s" % (r["errors"], console))
    if r["scroll_width"] > r["client_width"]:
        failures.append("page scrolls sideways at 800 px: %d > %d" % (r["scroll_width"], r["client_width"]))
    if a.diff_page:
        # Change rows of diff_page.cc, counted independently: names only in A, only in B, and
        # common names whose TacticValue differs.
        la, lb = [{l["Name"]: l.get("TacticValue") for l in json.load(open(p))["Layers"]} for p in a.inputs]
        want = (len(set(la) - set(lb)) + len(set(lb) - set(la)) +
                sum(1 for k in set(la) & set(lb) if la[k] != lb[k]))
        if r["svgs"] != 2: failures.append("diff page has %d svgs, want 2" % r["svgs"])
        if r["rows"] != want: failures.append("change list has %d rows, want %d" % (r["rows"], want))
        if not (r.get("sort_name_asc") and r.get("sort_name_desc")): failures.append("sorting failed")
        if not os.path.exists(shot) or os.path.getsize(shot) < 10000: failures.append("no screenshot")
        for f in failures: print("FAIL: " + f)
        print("screenshot: " + shot)
        return 1 if failures else 0
    for want in expected_headline(a.inputs):
        if want not in r["headline"]: failures.append("headline lacks %r: %r" % (want, r["headline"]))
    if r["chart_svgs"] < 1: failures.append("no charts")
    if r["svg_nodes"] and not r["graph_legend"]: failures.append("graph without a legend")
    n = expected_layers(a.inputs[0])
    print("expected layers:", n)
    if r["svg_nodes"] < n: failures.append("svg has %d nodes, want >= %d" % (r["svg_nodes"], n))
    if r["tables"] < 1 or r["rows"] != n: failures.append("layers table has %d rows, want %d" % (r["rows"], n))
    if not (r.get("sort_name_asc") and r.get("sort_name_desc")): failures.append("sorting by name failed")
    if r.get("first_index_desc") != str(n - 1): failures.append("numeric sort: first row %r" % r.get("first_index_desc"))
    if not (1 <= r.get("visible_after_filter", 0) < n): failures.append("filter left %r rows" % r.get("visible_after_filter"))
    if not r.get("zoomed"): failures.append("zoom did not change the graph's view")
    if r.get("search_hits", 0) < 1: failures.append("searching layer 1's name found no node")
    if r.get("clicked_row") != "1": failures.append("clicking layer 1 selected row %r" % r.get("clicked_row"))
    if not os.path.exists(shot) or os.path.getsize(shot) < 10000: failures.append("no screenshot")
    if size > 25 * 1024 * 1024: failures.append("report is %d bytes (> 25 MB)" % size)
    for f in failures: print("FAIL: " + f)
    print("screenshot: " + shot)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
