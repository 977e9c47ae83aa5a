"""`vyre-ray`: the command line of the driver (python -m vyre_ray does the same)."""

from __future__ import annotations

import argparse
import json
import os
import re
import shlex
import sys

from .driver import Options, run


def parse_size(text: str) -> int:
    m = re.fullmatch(r"(\d+)([KMGT]?)i?B?", text.strip(), re.IGNORECASE)
    if not m:
        raise argparse.ArgumentTypeError(f"not a size: {text!r} (as 512M, 2G)")
    return int(m.group(1)) << (10 * " KMGT".index((m.group(2) or " ").upper()))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(
        prog="vyre-ray",
        description="Runs `vyre unpack --json` (or `vyre scan --json`) over many archives on a Ray cluster, one batch "
                    "of archives per task and GPU, retrying failed batches elsewhere, and prints one JSON report with "
                    "a record per archive. Exit status: 0 all archives ok, 1 some had problems, 2 some failed.")
    p.add_argument("paths", nargs="+", help="archives, and folders searched for them recursively")
    p.add_argument("--address", help="the Ray cluster (default: RAY_ADDRESS, else a cluster started on this machine)")
    p.add_argument("--vyre", default="vyre", help="the vyre command on every node (default: vyre on PATH)")
    p.add_argument("--command", choices=("unpack", "scan"), default="unpack")
    p.add_argument("--vyre-args", default="", help="more arguments for each vyre run, as one string (\"-e password --nocase\")")
    p.add_argument("--batch-files", type=int, default=64, help="archives per batch at most (default 64)")
    p.add_argument("--batch-bytes", type=parse_size, default=parse_size("1G"), help="archive bytes per batch at most (default 1G)")
    p.add_argument("--gpus-per-task", type=float, help="GPUs of one batch (default: 1 where the cluster has GPUs, else 0)")
    p.add_argument("--cpus-per-task", type=float, default=1, help="CPUs of one batch (default 1)")
    p.add_argument("--retries", type=int, default=3, help="runs of a failed batch after the first (default 3)")
    p.add_argument("--timeout", type=float, default=3600, help="seconds one vyre run may take (default 3600)")
    p.add_argument("--keep-entries", action="store_true", help="every entry (or hit) in the report, not only counts")
    p.add_argument("-o", "--output", help="write the report here (default: standard output)")
    a = p.parse_args(argv)
    # A vyre given by a path runs from the tasks' own folders: make it absolute (a bare name is looked up on PATH).
    vyre = os.path.abspath(a.vyre) if os.sep in a.vyre else a.vyre
    options = Options(vyre=vyre, command=a.command, vyre_args=shlex.split(a.vyre_args), batch_files=a.batch_files,
                      batch_bytes=a.batch_bytes, gpus_per_task=a.gpus_per_task, cpus_per_task=a.cpus_per_task,
                      retries=a.retries, timeout=a.timeout, keep_entries=a.keep_entries)
    show = sys.stderr.isatty()

    def progress(done: int, total: int) -> None:
        if show:
            print(f"\rvyre-ray: {done}/{total} archives", end="", file=sys.stderr, flush=True)

    report = run(a.paths, options, address=a.address, progress=progress)
    if show:
        print(file=sys.stderr)
    text = json.dumps(report, indent=1)
    if a.output:
        with open(a.output, "w", encoding="utf-8") as f:
            f.write(text + "\n")
    else:
        print(text)
    s = report["summary"]
    for r in report["archives"]:
        if r["status"] == "failed":
            print(f"vyre-ray: failed: {r['archive']}: {r['problems'][0]['message']}", file=sys.stderr)
    print(f"vyre-ray: {s['archives']} archives ({s['ok']} ok, {s['problems']} with problems, {s['failed']} failed), "
          f"{s['entries']} entries, {s['hits']} hits; {s['batches']} batches in {s['attempts']} attempts "
          f"({s['failed_attempts']} failed) on {s['workers']} workers; {s['seconds']:.2f} s, "
          f"{s['archives_per_second']:.1f} archives/s", file=sys.stderr)
    return 2 if s["failed"] else 1 if s["problems"] else 0
