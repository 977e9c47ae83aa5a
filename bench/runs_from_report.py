#!/usr/bin/env python3
"""Rebuilds the results folders of an earlier report from doc/benchmarks.md and its logs.

    bench/runs_from_report.py OUT_DIR [--doc doc/benchmarks.md] [--logs doc/benchmarks/logs]
                              [--drop lz4,zstd,...]

bench/report.py writes doc/benchmarks.md from folders that bench/run wrote (run.json,
commands.jsonl, results.jsonl, logs/); those folders stay on the machine that measured. The report
keeps what is needed to rebuild them: the Runs table (date, CPU, cores, commit, devices), the
Commands table (log, device filter, exit status, seconds, command) and every log, whose "@result"
lines are the figures. This writes OUT_DIR/run1, run2, ... so that a new report can merge the
earlier runs of benchmarks that were not measured again with new runs of those that were:

    bench/runs_from_report.py /tmp/earlier --drop lz4,zstd
    bench/report.py /tmp/earlier/run* NEW_RESULTS...

--drop leaves out the commands of those benchmarks (the log name's part after "devN-", up to the
first "-": dev1-lz4-reference is lz4; nvcomp is its own), so that their old figures do not stand
beside the new ones. A run left with no command is not written.
"""
import argparse
import json
import os
import re
import shutil
import sys


def table_rows(text, header_start):
    """The rows of the markdown table whose header line starts with header_start, as cell lists."""
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith(header_start):
            rows = []
            for row in lines[i + 2:]:
                if not row.startswith("|"):
                    break
                cells = [c.strip() for c in re.split(r"(?<!\\)\|", row.strip())[1:-1]]
                rows.append([c.replace("\\|", "|") for c in cells])
            return rows
    sys.exit(f"runs_from_report: no table starting with {header_start!r}")


def bench_of(log):
    name = re.sub(r"^run\d+-", "", log)
    name = re.sub(r"\.log$", "", name)
    name = re.sub(r"^dev\d+-", "", name)
    return name.split("-")[0]


def main():
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("out")
    p.add_argument("--doc", default="doc/benchmarks.md")
    p.add_argument("--logs", default="doc/benchmarks/logs")
    p.add_argument("--drop", default="", help="benchmarks to leave out (comma-separated)")
    a = p.parse_args()
    drop = {d for d in a.drop.split(",") if d}
    text = open(a.doc).read()
    runs = table_rows(text, "| run | date (UTC) |")
    commands = table_rows(text, "| run | log | device filter |")
    for number, date, cpu, cores, commit, devices in runs:
        mine = [c for c in commands if c[0] == number and bench_of(c[1]) not in drop]
        if not mine:
            continue
        d = os.path.join(a.out, f"run{number}")
        os.makedirs(os.path.join(d, "logs"), exist_ok=True)
        with open(os.path.join(d, "run.json"), "w") as f:
            json.dump({"date": date, "host": "", "cpu": cpu, "cores": int(cores), "commit": commit, "devices": devices,
                       "quick": 0}, f)
            f.write("\n")
        devices_log = os.path.join(a.logs, f"run{number}-devices.log")
        if os.path.exists(devices_log):
            shutil.copy(devices_log, os.path.join(d, "logs", "devices.log"))
        with open(os.path.join(d, "commands.jsonl"), "w") as cf, open(os.path.join(d, "results.jsonl"), "w") as rf:
            for _, log, dev, code, seconds, command in mine:
                name = re.sub(r"^run\d+-", "", log)[: -len(".log")]
                src = os.path.join(a.logs, log)
                shutil.copy(src, os.path.join(d, "logs", name + ".log"))
                for line in open(src):
                    if line.startswith("@result "):
                        rf.write(line[len("@result "):])
                json.dump({"log": name, "device_filter": "" if dev == "(CUDA)" else dev, "exit": int(code),
                           "seconds": int(seconds), "command": command.strip("`")}, cf)
                cf.write("\n")
        print(f"runs_from_report: {d}: {len(mine)} commands")


if __name__ == "__main__":
    main()
