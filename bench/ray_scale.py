#!/usr/bin/env python3
"""The Ray driver (python/vyre_ray) on this machine over a folder of archives: with 1 GPU worker,
with N, and with N while one worker is killed one second into its batch. Prints one "RAY ..."
line per run and whether every run gave the same record for every archive.

    bench/ray_scale.py CORPUS_DIR VYRE N_GPUS     (PYTHONPATH must reach python/ and Ray)
"""
import os
import sys
import tempfile

import ray
import vyre_ray

corpus, vyre, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
opts = vyre_ray.Options(vyre=vyre, gpus_per_task=1, cpus_per_task=1, batch_files=32, vyre_args=["--max-total", "200G"])


def one(label, gpus, env=None):
    vyre_ray.init(num_gpus=gpus, num_cpus=os.cpu_count(), include_dashboard=False, runtime_env={"env_vars": env or {}})
    try:
        r = vyre_ray.run([corpus], opts)
    finally:
        ray.shutdown()
    s = r["summary"]
    per_gpu = {}
    for a in r["archives"]:
        per_gpu[a.get("gpus", "")] = per_gpu.get(a.get("gpus", ""), 0) + 1
    print(f"RAY {label}: workers {s['workers']} archives {s['archives']} ok {s['ok']} problems {s['problems']} failed {s['failed']} "
          f"entries {s['entries']} bytes {s['bytes']} batches {s['batches']} attempts {s['attempts']} failed_attempts {s['failed_attempts']} "
          f"seconds {s['seconds']:.2f} archives/s {s['archives_per_second']:.1f} input GB/s {s['input_gb_per_second']:.3f} "
          f"content GB/s {s['bytes'] / s['seconds'] / 1e9:.3f} archives by CUDA_VISIBLE_DEVICES {per_gpu}", flush=True)
    return {a["archive"]: (a["status"], a["entries"], a["bytes"]) for a in r["archives"]}


marker = os.path.join(tempfile.mkdtemp(), "killed-once")
base = one("1 GPU", 1)
many = one(f"{n} GPUs", n)
killed = one(f"{n} GPUs, one worker killed 1 s into its batch", n, {"VYRE_RAY_KILL_ONCE": marker, "VYRE_RAY_KILL_AFTER": "1"})
print(f"RAY every archive once, the same record in all three runs: {base == many == killed} ({len(killed)} archives); "
      f"a worker was killed: {os.path.exists(marker)}", flush=True)
