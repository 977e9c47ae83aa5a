"""Shards a list of archives over a Ray cluster, one `vyre` run per batch, and merges the results.

A batch is a run of `vyre unpack --json` (or `vyre scan --json`) over some archives on one worker.
Every archive is in exactly one batch; a batch that fails (the worker dies, `vyre` crashes or
exits with an error) runs again on another node where there is one, up to `retries` times, and
a batch that keeps failing is split in halves so that one bad archive costs only itself. The
merged report has one record per archive, taken from the first attempt of its batch that
succeeded, so none is lost or counted twice.
"""

from __future__ import annotations

import dataclasses
import json
import os
import signal
import socket
import subprocess
import threading
import time
from pathlib import Path
from typing import Any, Iterable, Sequence


@dataclasses.dataclass
class Options:
    vyre: str = "vyre"                  # the vyre command on every node
    command: str = "unpack"             # unpack (an inventory: every entry, SHA-256) or scan
    vyre_args: Sequence[str] = ()       # e.g. ["-e", "password"] for scan, ["--max-depth", "4"]
    batch_files: int = 64               # archives per batch at most
    batch_bytes: int = 1 << 30          # bytes of archives per batch at most (a batch has one at least)
    gpus_per_task: float | None = None  # Ray resources of one batch: GPUs (None: 1 where the cluster has GPUs, else 0) ...
    cpus_per_task: float = 1            # ... and CPUs
    retries: int = 3                    # runs of a failed batch after the first, each elsewhere if possible
    timeout: float = 3600               # seconds one vyre run may take
    keep_entries: bool = False          # keep every entry (or hit) in the report, not only counts


def list_archives(paths: Iterable[str]) -> list[str]:
    """Files named, and the regular files below folders named (sorted; links not followed), as
    absolute paths: the tasks run in other folders, and on a cluster on other hosts."""
    out: list[str] = []
    for p in paths:
        path = Path(os.path.abspath(p))
        if path.is_dir() and not path.is_symlink():
            found = []
            for root, dirs, files in os.walk(path):
                dirs.sort()
                for f in files:
                    q = Path(root) / f
                    if q.is_file() and not q.is_symlink():
                        found.append(str(q))
            out.extend(sorted(found))
        else:
            out.append(str(path))
    return out


def make_batches(archives: Sequence[str], sizes: Sequence[int], batch_files: int, batch_bytes: int) -> list[list[int]]:
    """Contiguous batches of archive indices: at most batch_files each, and batch_bytes unless one archive is larger."""
    if batch_files < 1:
        raise ValueError(f"batch_files must be at least 1, not {batch_files}")
    batches: list[list[int]] = []
    current: list[int] = []
    size = 0
    for i, _ in enumerate(archives):
        if current and (len(current) >= batch_files or size + sizes[i] > batch_bytes):
            batches.append(current)
            current, size = [], 0
        current.append(i)
        size += sizes[i]
    if current:
        batches.append(current)
    return batches


def run_vyre(paths: Sequence[str], options: Options) -> dict[str, Any]:
    """One vyre run over `paths` on this machine: its JSON report, exit status and where it ran.

    Raises RuntimeError when vyre could not run its job (exit status 2 or more, a signal, no JSON),
    which the driver treats as a failed attempt. Exit status 1 is not a failure: unpack says some
    archive had a problem, scan that nothing was found; the report says which.
    """
    # Fault injection, for the tests and the failure figures: the first task to find the file
    # VYRE_RAY_KILL_ONCE missing creates it, and VYRE_RAY_KILL_AFTER seconds into its vyre run
    # (default 0) kills that run and its own worker process, as a crash or a lost node would.
    marker = os.environ.get("VYRE_RAY_KILL_ONCE")
    doomed = False
    if marker:
        try:
            os.close(os.open(marker, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
            doomed = True
        except FileExistsError:
            pass
    cmd = [options.vyre, options.command, "--json", "--no-progress", *options.vyre_args, "--", *paths]
    started = time.monotonic()
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    except OSError as e:
        raise RuntimeError(f"cannot run {options.vyre}: {e}") from e
    if doomed:
        def kill() -> None:
            proc.kill()
            os.kill(os.getpid(), signal.SIGKILL)
        threading.Timer(float(os.environ.get("VYRE_RAY_KILL_AFTER", "0")), kill).start()
    try:
        stdout, stderr_bytes = proc.communicate(timeout=options.timeout)
    except subprocess.TimeoutExpired as e:
        proc.kill()
        proc.communicate()
        raise RuntimeError(f"vyre ran over {options.timeout} s on {len(paths)} archives") from e
    done = subprocess.CompletedProcess(cmd, proc.returncode, stdout, stderr_bytes)
    seconds = time.monotonic() - started
    stderr = done.stderr.decode("utf-8", "replace")
    if done.returncode not in (0, 1):
        how = f"signal {-done.returncode}" if done.returncode < 0 else f"exit status {done.returncode}"
        raise RuntimeError(f"vyre {options.command} failed with {how}: {stderr.strip()[-2000:]}")
    try:
        report = json.loads(done.stdout)
    except ValueError as e:
        raise RuntimeError(f"vyre {options.command} printed no JSON report ({e}): {stderr.strip()[-2000:]}") from e
    return {"report": report, "exit_status": done.returncode, "seconds": seconds, "host": socket.gethostname(),
            "gpus": os.environ.get("CUDA_VISIBLE_DEVICES", "")}


def per_archive(paths: Sequence[str], result: dict[str, Any], command: str, keep_entries: bool) -> list[dict[str, Any]]:
    """One record per archive of a batch, from its vyre report (entries, hits, problems carry "input")."""
    report = result["report"]
    records = [{"archive": p, "status": "ok", "bytes": 0, "entries": 0, "files": 0, "hits": 0, "problems": []} for p in paths]
    if keep_entries:
        for r in records:
            r["items"] = []
    items = report.get("entries" if command == "unpack" else "hits", [])
    for item in items:
        i = item.get("input")
        if i is None or not 0 <= i < len(records):
            raise RuntimeError(f"vyre {command} listed an item of no input of the batch: {item}")
        r = records[i]
        if command == "unpack":
            r["entries"] += 1
            if item.get("status") == "ok" and item.get("type") in ("file", "hardlink"):
                r["files"] += 1
                r["bytes"] += item.get("size", 0)
        else:
            r["hits"] += 1
        if keep_entries:  # "input" counted the batch's archives; the record names its archive
            r["items"].append({k: v for k, v in item.items() if k != "input"})
    for problem in report.get("problems", []):
        i = problem.get("input")
        if i is None or not 0 <= i < len(records):
            raise RuntimeError(f"vyre {command} reported a problem of no input of the batch: {problem}")
        records[i]["problems"].append({k: problem[k] for k in ("path", "status", "message") if k in problem})
        if problem.get("status") != "warning":  # input read in full: listed, not a failure
            records[i]["status"] = "problems"
    return records


def merge(archives: Sequence[str], records: dict[int, dict[str, Any]], batches_run: int, attempts: int,
          failed_attempts: int, seconds: float, input_bytes: int, workers: int) -> dict[str, Any]:
    """The job's report: every archive once, in the order given, and the job's figures."""
    ordered = [records[i] for i in range(len(archives))]
    count = {s: sum(1 for r in ordered if r["status"] == s) for s in ("ok", "problems", "failed")}
    return {
        "archives": ordered,
        "summary": {
            "archives": len(ordered), **count,
            "entries": sum(r["entries"] for r in ordered), "files": sum(r["files"] for r in ordered),
            "bytes": sum(r["bytes"] for r in ordered), "hits": sum(r["hits"] for r in ordered),
            "input_bytes": input_bytes, "batches": batches_run, "attempts": attempts, "failed_attempts": failed_attempts,
            "workers": workers, "seconds": seconds,
            "archives_per_second": len(ordered) / seconds if seconds > 0 else None,
            "input_gb_per_second": input_bytes / seconds / 1e9 if seconds > 0 else None,
        },
    }


def init(address: str | None = None, **kwargs: Any) -> None:
    """ray.init with this package sent to every worker (runtime_env's py_modules), so that a node
    needs Ray and vyre but not vyre-ray. Takes ray.init's arguments; runtime_env is added to."""
    import ray
    env = dict(kwargs.pop("runtime_env", None) or {})
    env["py_modules"] = [*env.get("py_modules", []), str(Path(__file__).resolve().parent)]
    kwargs.setdefault("log_to_driver", False)
    ray.init(address=address, runtime_env=env, **kwargs)


def _batch_task(paths: Sequence[str], options: Options):
    """The body of one Ray task: (node id, True, run_vyre's result) or (node id, False, why)."""
    import ray
    node = ray.get_runtime_context().get_node_id()
    try:
        return node, True, run_vyre(paths, options)
    except RuntimeError as e:
        return node, False, str(e)


def run(paths: Sequence[str], options: Options, address: str | None = None, progress=None) -> dict[str, Any]:
    """Runs the whole job on the Ray cluster at `address` (None: ray.init() joins RAY_ADDRESS or
    starts one here). Returns the merged report (see merge)."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    archives = list_archives(paths)
    sizes = []
    for a in archives:
        try:
            sizes.append(os.path.getsize(a))
        except OSError:
            sizes.append(0)  # vyre reports it, as it reports any unreadable input
    if not ray.is_initialized():
        init(address=address)
    started = time.monotonic()  # the job's time: connecting to (or starting) the cluster is not part of it
    resources = ray.cluster_resources()
    options = dataclasses.replace(options)
    if options.gpus_per_task is None:
        options.gpus_per_task = 1 if resources.get("GPU", 0) >= 1 else 0
    per_task = options.gpus_per_task or options.cpus_per_task
    workers = max(1, int(resources.get("GPU" if options.gpus_per_task else "CPU", 1) / per_task)) if per_task else 1
    # max_retries=0: the driver retries itself, so that a retry can go elsewhere and be counted.
    task = ray.remote(max_retries=0)(_batch_task)

    def submit(batch: list[int], attempt: int, avoid: frozenset[str]):
        strategy: Any = "DEFAULT"
        others = [n["NodeID"] for n in ray.nodes() if n.get("Alive") and n["NodeID"] not in avoid]
        if avoid and others:
            # Elsewhere if possible: a soft affinity to a node that has not failed this batch.
            strategy = NodeAffinitySchedulingStrategy(node_id=others[attempt % len(others)], soft=True)
        ref = task.options(num_gpus=options.gpus_per_task, num_cpus=options.cpus_per_task,
                           scheduling_strategy=strategy).remote([archives[i] for i in batch], options)
        pending[ref] = (batch, attempt, avoid)

    records: dict[int, dict[str, Any]] = {}
    pending: dict[Any, tuple[list[int], int, frozenset[str]]] = {}
    for b in make_batches(archives, sizes, options.batch_files, options.batch_bytes):
        submit(b, 0, frozenset())
    batches_run = attempts = failed_attempts = 0
    while pending:
        ready, _ = ray.wait(list(pending), num_returns=1)
        batch, attempt, avoid = pending.pop(ready[0])
        attempts += 1
        node = None
        try:
            node, ok, result = ray.get(ready[0])
            if not ok:
                raise RuntimeError(result)
            batch_records = per_archive([archives[i] for i in batch], result, options.command, options.keep_entries)
        except Exception as e:  # a lost worker (a RayError) or a failed vyre run (RuntimeError)
            failed_attempts += 1
            text = str(e).strip()
            why = text.splitlines()[-1] if text else type(e).__name__
            if attempt < options.retries:
                submit(batch, attempt + 1, avoid | {node} if node else avoid)
            elif len(batch) > 1:  # keeps failing: halves, so that one bad archive costs only itself
                half = len(batch) // 2
                submit(batch[:half], 0, frozenset())
                submit(batch[half:], 0, frozenset())
            else:
                records[batch[0]] = {"archive": archives[batch[0]], "status": "failed", "bytes": 0, "entries": 0,
                                     "files": 0, "hits": 0, "attempts": attempt + 1,
                                     "problems": [{"path": archives[batch[0]], "status": "failed", "message": why}]}
        else:
            for i, record in zip(batch, batch_records):
                if i in records:
                    raise AssertionError(f"archive {archives[i]} would be counted twice")
                record.update(attempts=attempt + 1, host=result["host"], node=node, gpus=result["gpus"],
                              failed_on=sorted(avoid))
                records[i] = record
            batches_run += 1
        if progress:
            progress(len(records), len(archives))
    return merge(archives, records, batches_run, attempts, failed_attempts, time.monotonic() - started, sum(sizes), workers)
