#!/usr/bin/env python3
"""Writes doc/benchmarks.md and its plots from the results of bench/run.

    bench/report.py RESULTS_DIR [RESULTS_DIR ...] [--doc doc/benchmarks.md] [--plots doc/benchmarks]

Each RESULTS_DIR is what one bench/run wrote: results.jsonl (one JSON object per figure, the
"@result" lines of the benchmark programs), run.json (date, host, commit, devices), commands.jsonl
(every command with its exit status and duration) and logs/. Several folders are merged (for
example one per device group, when a machine limits how long one command may run); the report
names each. The text around the tables comes from bench/notes/<bench>.md. What the page holds
between the markers DATED_BEGIN and DATED_END (the dated sections: the latest figures and what each
change measured, written by hand) is kept as it is, after the headline; the folders under
doc/benchmarks/logs/ stay too. Plots need matplotlib (Debian: python3-matplotlib); without it the
report has tables only and says so.
"""
import argparse
import json
import os
import re
import shutil
import sys
from collections import OrderedDict

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DATED_BEGIN = "<!-- dated sections: bench/report.py keeps what lies between these markers -->"
DATED_END = "<!-- end of the dated sections -->"

# The order of sections and what each benchmark measures.
BENCHES = OrderedDict([
    ("primitives", "Primitive ops: streaming `primitive.bitwise.xor` (`bench_primitives`)"),
    ("build", "Kernel build and dispatch latency of every standard op (`bench_primitives`)"),
    ("lz4", "compression.lz4 decompression (`bench_lz4`, `bench_nvcomp`)"),
    ("zstd", "compression.zstd hybrid decompression (`bench_zstd`, `bench_nvcomp`)"),
    ("deflate", "compression.deflate decompression (`bench_deflate`, `bench_nvcomp`)"),
    ("lz4_pages", "LZ4 compression of 4 KiB pages (`bench_lz4_pages`, `bench_nvcomp`)"),
    ("graph", "graph.bfs and graph.reachability (`bench_graph`)"),
    ("dataflow", "engine::dataflow taint analysis (`bench_dataflow`)"),
    ("unpack", "`vyre unpack` against the usual tools (`bench/unpack.sh`)"),
])

# Metrics where larger is better; every other metric with "seconds"/"ms"/"us" is smaller-is-better.
def higher_is_better(metric):
    return not re.search(r"\b(seconds|ms|us)\b", metric)


def is_ours(series):
    return series.startswith("vyre")


def is_limit(series):
    return "bound" in series or series.startswith("device copy") or series == "input"


def load(dirs):
    results, runs, commands = [], [], []
    for d in dirs:
        with open(os.path.join(d, "run.json")) as f:
            run = json.load(f)
        run["dir"] = d
        runs.append(run)
        path = os.path.join(d, "results.jsonl")
        if os.path.exists(path):
            with open(path) as f:
                for line in f:
                    line = line.strip()
                    if line:
                        r = json.loads(line)
                        r["run"] = len(runs) - 1
                        results.append(r)
        path = os.path.join(d, "commands.jsonl")
        if os.path.exists(path):
            with open(path) as f:
                for line in f:
                    if line.strip():
                        c = json.loads(line)
                        c["run"] = len(runs) - 1
                        commands.append(c)
    # One figure per key: a program measured twice in one run (liblz4 beside each lz4 variant)
    # keeps its first figure.
    seen, unique = set(), []
    for r in results:
        key = (r["bench"], r["device"], r["input"], r["x_name"], r["x"], r["series"], r["metric"])
        if key not in seen:
            seen.add(key)
            unique.append(r)
    return unique, runs, commands


def fmt(v):
    if v is None:
        return ""
    a = abs(v)
    if a >= 1000:
        return f"{v:,.0f}"
    if a >= 100:
        return f"{v:.1f}"
    if a >= 1:
        return f"{v:.2f}"
    return f"{v:.3g}"


def fmt_x(x_name, x):
    if x_name == "block_bytes":
        return f"{int(x) >> 20} MiB" if x >= 1 << 20 else f"{int(x) >> 10} KiB"
    return f"{int(x):,}" if float(x).is_integer() else str(x)


def slug(s):
    return re.sub(r"[^A-Za-z0-9]+", "-", s).strip("-").lower()[:60]


def peer_value(rows_at_x, peer, metric):
    """The peer's figure to compare ours' `metric` with: the same metric, else its only figure of
    the same kind (a CPU library has one GB/s figure: kernel and end to end are the same thing)."""
    if (peer, metric) in rows_at_x:
        return rows_at_x[(peer, metric)]
    for bare in ("GB/s", "GTEPS", "seconds"):
        if metric.endswith(bare) and (peer, bare) in rows_at_x:
            return rows_at_x[(peer, bare)]
    return None


def table(results):
    """One row per (x, series): ours first, then the peers, then the limits; one column per metric;
    a last column with ours' speed-up over each peer at the same x."""
    x_name = results[0]["x_name"]
    xs = sorted({r["x"] for r in results})
    results = [r for r in results if "speed-up" not in r["metric"]]
    metrics, series = [], []
    for r in results:
        if r["metric"] not in metrics:
            metrics.append(r["metric"])
        if r["series"] not in series:
            series.append(r["series"])
    series.sort(key=lambda s: 0 if is_ours(s) else 2 if is_limit(s) else 1)
    # kernel figures, then end to end, then the peers' single figure, then the rest
    metrics.sort(key=lambda m: 0 if m.startswith("kernel") else 1 if m.startswith("e2e") else 2 if m in ("GB/s", "GTEPS", "seconds") else 3)
    at = {x: {} for x in xs}
    for r in results:
        at[r["x"]][(r["series"], r["metric"])] = r["value"]
    peers = [s for s in series if not is_ours(s) and not is_limit(s)] if any(is_ours(s) for s in series) else []
    head = ([x_name] if x_name else []) + ["series"] + metrics + (["speed-up over the peers"] if peers else [])
    lines = ["| " + " | ".join(head) + " |",
             "|" + "|".join([" --- "] * (2 if x_name else 1) + [" ---: "] * len(metrics) + ([" --- "] if peers else [])) + "|"]
    for x in xs:
        for s in series:
            if not any((s, m) in at[x] for m in metrics):
                continue
            cells = ([fmt_x(x_name, x)] if x_name else []) + [s] + [fmt(at[x].get((s, m))) for m in metrics]
            if peers:
                notes = []
                if is_ours(s):
                    for p in peers:
                        parts, kinds = [], set()
                        for m in metrics:
                            # Kernel and end-to-end figures only, one comparison per kind (a bench
                            # may print the same figure as seconds and as a rate).
                            kind_m = re.match(r"(kernel|e2e) (GB/s|GTEPS|seconds)$", m)
                            if not kind_m or kind_m.group(1) in kinds or (s, m) not in at[x]:
                                continue
                            a, b = at[x][(s, m)], peer_value(at[x], p, m)
                            if a and b:
                                speedup = a / b if higher_is_better(m) else b / a
                                kinds.add(kind_m.group(1))
                                parts.append(f"{kind_m.group(1)} {speedup:.2f}×")
                        if parts:
                            notes.append(f"{', '.join(parts)} vs {p}")
                cells.append("; ".join(notes))
            lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


# The issues' targets, checked against the figures of GPU devices (they were set for the H100).
# Each returns rows (device, what was asked, what was measured, met?).
def check_targets(results):
    def find(bench, device, inp, x, series_prefix, metric):
        for r in results:
            if (r["bench"], r["device"], r["input"], r["metric"]) == (bench, device, inp, metric) and \
                    r["series"].startswith(series_prefix) and (x is None or r["x"] == x):
                return r["value"]
        return None

    rows = []
    gpus = [d for d in OrderedDict((r["device"], 0) for r in results) if "NVIDIA" in d or "GPU" in d]
    for dev in gpus:
        def add(asked, value, bound, met_if_higher=True, unit=""):
            if value is None or bound is None:
                return
            met = value >= bound if met_if_higher else value <= bound
            rows.append((dev, asked, f"{fmt(value)}{unit} against {fmt(bound)}{unit}", "met" if met else "**not met**"))

        xs = sorted({r["x"] for r in results if r["bench"] == "primitives" and r["device"] == dev})
        if xs:
            x = xs[-1]
            copy = find("primitives", dev, "xor of random u32 pairs", x, "device copy", "kernel GB/s")
            add("xor kernel ≥ 80% of the device copy (GB/s)",
                find("primitives", dev, "xor of random u32 pairs", x, "vyre", "kernel GB/s"), copy and 0.8 * copy)
        add("LZ4 kernel ≥ 250 GB/s, 64 KiB blocks of the mixed corpus",
            find("lz4", dev, "corpus.tar", 65536, "vyre fast", "kernel GB/s"), 250.0)
        bound = find("lz4", dev, "corpus.tar", 65536, "pinned copy bound", "e2e GB/s")
        add("LZ4 end to end ≥ 80% of the pinned copy bound, 64 KiB blocks (GB/s)",
            find("lz4", dev, "corpus.tar", 65536, "vyre fast", "e2e GB/s"), bound and 0.8 * bound)
        for case in ("frames64k", "frames1m", "single"):
            lib = next((r["value"] for r in results if r["bench"] == "zstd" and r["device"] == dev and
                        r["input"] == "corpus.tar " + case and r["series"].startswith("libzstd")), None)
            paired = find("zstd", dev, "corpus.tar " + case, None, "vyre hybrid -> host", "paired ratio to libzstd")
            if paired is not None:  # the median of per-round ratios: drift of the host between rounds cancels
                add(f"zstd hybrid ≥ 0.95× libzstd on all cores, compressed-heavy ({case}; median of per-round ratios)",
                    paired, 0.95, unit="×")
            else:
                add(f"zstd hybrid ≥ 0.95× libzstd on all cores, compressed-heavy ({case}; GB/s)",
                    find("zstd", dev, "corpus.tar " + case, None, "vyre hybrid -> host", "e2e GB/s"), lib and 0.95 * lib)
        for x in sorted({r["x"] for r in results if r["bench"] == "lz4_pages" and r["device"] == dev}):
            if x >= 5000:
                add(f"page compression kernel ≥ 30 GB/s ({int(x):,} pages)",
                    find("lz4_pages", dev, "corpus.tar", x, "vyre", "kernel GB/s"), 30.0)
                add(f"page compression end to end above liblz4 on all cores ({int(x):,} pages; GB/s)",
                    find("lz4_pages", dev, "corpus.tar", x, "vyre", "e2e GB/s"),
                    find("lz4_pages", dev, "corpus.tar", x, "liblz4", "GB/s"))
            lib = find("lz4_pages", dev, "corpus.tar", x, "liblz4", "compression ratio")
            add(f"page compression ratio within 5% of liblz4 ({int(x):,} pages)",
                find("lz4_pages", dev, "corpus.tar", x, "vyre", "compression ratio"), lib and 0.95 * lib)
        cpu = next((r["value"] for r in results if r["bench"] == "dataflow" and r["device"] == dev and r["input"] == "rmat-22"
                    and r["x"] == 1024 and r["series"].startswith("cpu") and r["metric"] == "seconds"), None)
        for kind in ("kernel", "e2e"):
            add(f"dataflow ≥ 10× the CPU reference on all cores, RMAT 22, 1,024 sources ({kind} seconds)",
                find("dataflow", dev, "rmat-22", 1024, "vyre dataflow", f"{kind} seconds"), cpu and cpu / 10, met_if_higher=False)
    return rows


def plot(results, title, path):
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return False
    series = OrderedDict()
    for r in results:
        if re.search(r"(GB/s|GTEPS)$", r["metric"]) and r["series"] != "input":
            series.setdefault((r["series"], r["metric"]), []).append((r["x"], r["value"]))
    if not series:
        return False
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    for (s, m), pts in series.items():
        pts.sort()
        style = "-" if is_ours(s) else "--" if not is_limit(s) else ":"
        ax.plot([p[0] for p in pts], [p[1] for p in pts], style, marker="o", markersize=3, label=f"{s}: {m}")
    ax.set_xscale("log", base=2 if results[0]["x_name"] == "block_bytes" else 10)
    ax.set_xlabel(results[0]["x_name"])
    ax.set_ylabel(", ".join(sorted({m for _, m in series})))
    ax.set_title(title, fontsize=9)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)
    return True


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("dirs", nargs="+")
    ap.add_argument("--doc", default=os.path.join(ROOT, "doc", "benchmarks.md"))
    ap.add_argument("--plots", default=os.path.join(ROOT, "doc", "benchmarks"))
    a = ap.parse_args()
    results, runs, commands = load(a.dirs)
    if not results:
        sys.exit("report.py: no results in " + ", ".join(a.dirs))
    os.makedirs(a.plots, exist_ok=True)
    rel_plots = os.path.relpath(a.plots, os.path.dirname(os.path.abspath(a.doc)))
    plots_ok = True

    out = ["# Benchmarks", "",
           "Generated by `bench/report.py` from the results of `bench/run` (see “Reproduce” below); the",
           "text between tables comes from `bench/notes/`. Every figure was measured by the command named",
           "with it, on the device named, in the run named; every program checks its output against the",
           "input or a CPU reference before it prints a figure. Speed-up columns are ours divided by the",
           "peer (for times: the peer's time divided by ours); above 1.00× ours is faster.", ""]
    out += ["## Runs", "", "| run | date (UTC) | host CPU | cores | programs built from | devices |", "| --- | --- | --- | ---: | --- | --- |"]
    for i, r in enumerate(runs):
        out.append(f"| {i + 1} | {r['date']} | {r['cpu']} | {r['cores']} | {r['commit']} | {r['devices']} |")
    tests_dir = os.path.join(a.plots, "tests")
    if os.path.isdir(tests_dir) and os.listdir(tests_dir):
        out += ["", "Test-suite runs on the same machine (every test program, every case on every device): " +
                ", ".join(f"`{rel_plots}/tests/{f}`" for f in sorted(os.listdir(tests_dir))) + "."]
    out += ["", "Commands (logs in `doc/benchmarks/logs/`):", "", "| run | log | device filter | exit | seconds | command |",
            "| ---: | --- | --- | ---: | ---: | --- |"]
    for c in commands:
        cmd = c["command"].replace("|", "\\|")
        log = c["log"] + ".log" if len(runs) == 1 else f"run{c['run'] + 1}-{c['log']}.log"
        out.append(f"| {c['run'] + 1} | {log} | {c['device_filter'] or '(CUDA)'} | {c['exit']} | {c['seconds']} | `{cmd}` |")
    out.append("")

    # The headline: ours against nvCOMP wherever both measured the same thing on the same device.
    head = []
    for r in results:
        if not r["series"].startswith("nvCOMP"):
            continue
        ours = [o for o in results if is_ours(o["series"]) and o["metric"] == r["metric"] and
                (o["bench"], o["device"], o["input"], o["x"]) == (r["bench"], r["device"], r["input"], r["x"])]
        for o in ours:
            head.append((r["bench"], r["input"], fmt_x(r["x_name"], r["x"]) if r["x_name"] else "", o["series"], r["metric"],
                         o["value"], r["value"]))
    trows = check_targets(results)
    if trows:
        out += ["## Targets", "", "The issues' targets for the H100, checked against this run's figures.", "",
                "| device | target | measured | |", "| --- | --- | --- | --- |"]
        out += [f"| {d} | {a} | {m} | {ok} |" for d, a, m, ok in trows]
        out.append("")
    if head:
        out += ["## Headline: vyre against nvCOMP", "",
                "From the runs of the Runs table. The hand-kept table of the dated sections below (“Where each op",
                "stands”) has newer figures where it measures the same thing.", "",
                "| op | input | size | ours | metric | ours | nvCOMP | ours / nvCOMP |", "| --- | --- | --- | --- | --- | ---: | ---: | ---: |"]
        for b, inp, x, s, m, ov, nv in head:
            if nv:
                out.append(f"| {b} | {inp} | {x} | {s} | {m} | {fmt(ov)} | {fmt(nv)} | {ov / nv:.2f}× |")
        out.append("")

    # The dated sections (what each change measured, written by hand between the markers) are
    # carried over from the page as it is: a new run adds its tables, it does not erase the history.
    if os.path.exists(a.doc):
        with open(a.doc) as f:
            current = f.read()
        begin, end = current.find(DATED_BEGIN), current.find(DATED_END)
        if begin != -1 and end > begin:
            out += [current[begin:end + len(DATED_END)], ""]

    changes = os.path.join(HERE, "notes", "changes.md")
    if os.path.exists(changes):
        with open(changes) as f:
            out += ["## Before and after changes to shared code (`bench/compare.py`)", "", f.read().strip(), ""]

    for bench, title in BENCHES.items():
        mine = [r for r in results if r["bench"] == bench]
        notes_path = os.path.join(HERE, "notes", bench + ".md")
        if not mine and not os.path.exists(notes_path):
            continue
        out += [f"## {title}", ""]
        if os.path.exists(notes_path):
            with open(notes_path) as f:
                out += [f.read().strip(), ""]
        if not mine:
            out += ["No figures in this run.", ""]
            continue
        for device in OrderedDict((r["device"], 0) for r in mine):
            for inp in OrderedDict((r["input"], 0) for r in mine if r["device"] == device):
                rows = [r for r in mine if r["device"] == device and r["input"] == inp]
                out += [f"### {device}: {inp}", "", table(rows), ""]
                if rows[0]["x_name"] and len({r["x"] for r in rows}) > 1:
                    name = f"{bench}-{slug(device)}-{slug(inp)}.svg"
                    if plot(rows, f"{bench}: {inp} on {device}", os.path.join(a.plots, name)):
                        out += [f"![{bench} on {device}, {inp}]({rel_plots}/{name})", ""]
                    else:
                        plots_ok = False

    out += ["## Reproduce", "",
            "On a machine with the GPU, the build tools and the packages of `.ci/install-deps`:", "",
            "```sh", "bench/run --report                       # every bench on every OpenCL device, then this page",
            "bench/run --nvcomp DIR --report          # with nvCOMP (DIR: an unpacked nvidia-libnvcomp wheel)",
            "```", "",
            "Where the GPU machine cannot build, build elsewhere (Release, static Boost), run",
            "`bench/run --bin-dir DIR --out RESULTS` there, and `bench/report.py RESULTS...` here.", ""]
    if not plots_ok:
        out += ["(Plots were not drawn: matplotlib is missing where the report was written; `apt-get install python3-matplotlib`.)", ""]

    # The runs' logs replace the last report's (the files directly in logs/); the dated sections'
    # folders of logs stay.
    logs_dir = os.path.join(a.plots, "logs")
    os.makedirs(logs_dir, exist_ok=True)
    for f in os.listdir(logs_dir):
        if os.path.isfile(os.path.join(logs_dir, f)):
            os.remove(os.path.join(logs_dir, f))
    for i, r in enumerate(runs):
        src = os.path.join(r["dir"], "logs")
        if os.path.isdir(src):
            for f in os.listdir(src):
                shutil.copy(os.path.join(src, f), os.path.join(logs_dir, f if len(runs) == 1 else f"run{i + 1}-{f}"))
    with open(a.doc, "w") as f:
        f.write("\n".join(out).rstrip() + "\n")
    print(f"report.py: wrote {a.doc} ({len(results)} figures) and plots in {a.plots}")


if __name__ == "__main__":
    main()
