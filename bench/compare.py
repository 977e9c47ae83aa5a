#!/usr/bin/env python3
"""Runs one benchmark program from two builds (before and after a change) on the same input, in
alternating rounds on the same machine, and prints every figure of both with their ratio.

    bench/compare.py --before DIR --after DIR [--rounds N (3)] [--out DIR] -- PROGRAM [ARGS...]

DIR holds the built programs (DIR/PROGRAM). Rounds alternate before, after, before, after, ... so
that drift of the machine (clocks, other tenants) falls on both sides alike; each figure is the
median of its rounds. Every "@result" line of the program counts (ours and the peer's: the peer's
ratio shows how much the machine itself moved between the builds' rounds). With --out, each
round's output is kept there as PROGRAM-before-K.log / PROGRAM-after-K.log, and the table as
PROGRAM-compare.md.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys


def run(path, args, log):
    p = subprocess.run([path] + args, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if log:
        with open(log, "w") as f:
            f.write(p.stdout)
    if p.returncode != 0:
        sys.stdout.write(p.stdout)
        sys.exit(f"compare.py: {path} exited {p.returncode}")
    rows = []
    for line in p.stdout.splitlines():
        if line.startswith("@result "):
            rows.append(json.loads(line[len("@result "):]))
    return rows


def key(r):
    return (r.get("device", ""), r.get("input", ""), r.get("x_name", ""), r.get("x", ""), r["series"], r["metric"])


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--out")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    a = ap.parse_args()
    cmd = a.command[1:] if a.command[:1] == ["--"] else a.command
    if not cmd:
        sys.exit("compare.py: no program given (… -- PROGRAM ARGS)")
    program, args = cmd[0], cmd[1:]
    if a.out:
        os.makedirs(a.out, exist_ok=True)
    values = {"before": {}, "after": {}}
    order = []
    for k in range(a.rounds):
        for side in ("before", "after"):
            path = os.path.join(getattr(a, side), program)
            log = os.path.join(a.out, f"{program}-{side}-{k + 1}.log") if a.out else None
            for r in run(path, args, log):
                if key(r) not in order:
                    order.append(key(r))
                values[side].setdefault(key(r), []).append(r["value"])
    lines = [f"`{program} {' '.join(args)}`, {a.rounds} alternating rounds, medians", "",
             "| device | input | size | series | metric | before | after | after / before |",
             "| --- | --- | ---: | --- | --- | ---: | ---: | ---: |"]
    for k in order:
        b, af = values["before"].get(k), values["after"].get(k)
        if not b or not af:
            continue
        mb, ma = statistics.median(b), statistics.median(af)
        ratio = f"{ma / mb:.3f}" if mb else "-"
        lines.append(f"| {k[0]} | {k[1]} | {k[3]} | {k[4]} | {k[5]} | {mb:.4g} | {ma:.4g} | {ratio} |")
    text = "\n".join(lines) + "\n"
    sys.stdout.write(text)
    if a.out:
        with open(os.path.join(a.out, f"{program}-compare.md"), "w") as f:
            f.write(text)


if __name__ == "__main__":
    main()
