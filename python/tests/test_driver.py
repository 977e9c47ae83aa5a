"""Tests of vyre_ray: the batching and merging rules alone, then whole runs on a Ray cluster
started on this machine with several workers, against the vyre binary named by VYRE_BIN
(default: vyre on PATH). Run: python3 -m unittest discover -s python/tests -v
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tarfile
import tempfile
import unittest
import zipfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import vyre_ray  # noqa: E402
from vyre_ray.driver import Options, make_batches, per_archive  # noqa: E402

VYRE = os.environ.get("VYRE_BIN") or shutil.which("vyre") or ""


class Rules(unittest.TestCase):
    def test_batches_are_contiguous_and_bounded(self):
        sizes = [10, 10, 50, 200, 5, 5, 5, 5, 5]
        batches = make_batches([str(i) for i in range(len(sizes))], sizes, batch_files=3, batch_bytes=60)
        self.assertEqual(batches, [[0, 1], [2], [3], [4, 5, 6], [7, 8]])
        self.assertEqual([i for b in batches for i in b], list(range(len(sizes))))
        with self.assertRaises(ValueError):
            make_batches(["a"], [1], batch_files=0, batch_bytes=1)

    def test_items_go_to_the_archive_named_by_input(self):
        result = {"report": {"entries": [
            {"input": 1, "type": "file", "status": "ok", "size": 5},
            {"input": 1, "type": "dir", "status": "ok", "size": 0},
            {"input": 0, "type": "file", "status": "ok", "size": 7}],
            "problems": [{"input": 2, "path": "c", "status": "refused", "message": "not an archive"}]}}
        a, b, c = per_archive(["a", "b", "c"], result, "unpack", keep_entries=False)
        self.assertEqual((a["status"], a["files"], a["bytes"]), ("ok", 1, 7))
        self.assertEqual((b["entries"], b["files"], b["bytes"]), (2, 1, 5))
        self.assertEqual((c["status"], c["problems"][0]["message"]), ("problems", "not an archive"))
        with self.assertRaises(RuntimeError):
            per_archive(["a"], {"report": {"entries": [{"input": 3}]}}, "unpack", False)

    def test_warnings_are_listed_but_not_failures(self):
        result = {"report": {"entries": [{"input": 0, "type": "file", "status": "ok", "size": 3}],
                             "problems": [{"input": 0, "path": "a", "status": "warning", "message": "gzip: 9 byte(s) after"}]}}
        (a,) = per_archive(["a"], result, "unpack", keep_entries=False)
        self.assertEqual((a["status"], a["problems"][0]["status"]), ("ok", "warning"))


def make_archives(root: Path) -> list[Path]:
    """Twelve archives of three kinds, one truncated gzip and one plain file: fourteen inputs."""
    src = root / "src"
    out = []
    for i in range(12):
        d = src / f"pkg{i}"
        (d / "lib").mkdir(parents=True)
        for k in range(i % 4 + 1):
            (d / "lib" / f"m{k}.py").write_text(f"# module {k} of package {i}\npassword = 'x{i}{k}'\n" * (50 + i))
        (d / "README").write_text(f"package {i}\n")
        if i % 3 == 0:
            p = root / f"pkg{i}.tar.gz"
            with tarfile.open(p, "w:gz") as t:
                t.add(d, arcname=f"pkg{i}")
        elif i % 3 == 1:
            p = root / f"pkg{i}.zip"
            with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED) as z:
                for f in sorted(d.rglob("*")):
                    z.write(f, f.relative_to(src))
        else:
            p = root / f"pkg{i}.tar"
            with tarfile.open(p, "w") as t:
                t.add(d, arcname=f"pkg{i}")
        out.append(p)
    whole = (root / "pkg0.tar.gz").read_bytes()
    (root / "broken.tar.gz").write_bytes(whole[: len(whole) // 2])
    (root / "notes.txt").write_text("not an archive\n")
    shutil.rmtree(src)
    return sorted(out + [root / "broken.tar.gz", root / "notes.txt"])


@unittest.skipUnless(VYRE, "needs the vyre binary: set VYRE_BIN")
class OnRay(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        import ray  # noqa: F401  (skips nothing: Ray is this package's one dependency)
        cls.tmp = tempfile.TemporaryDirectory()
        cls.root = Path(cls.tmp.name)
        cls.archives = make_archives(cls.root / "archives")
        # What one vyre run over everything lists, archive by archive: what every sharded run must give.
        done = subprocess.run([VYRE, "unpack", "--json", "--no-progress", "--", *map(str, cls.archives)],
                              capture_output=True, check=False)
        assert done.returncode == 1, done.stderr  # broken.tar.gz and notes.txt are problems
        cls.single = per_archive([str(a) for a in cls.archives], {"report": json.loads(done.stdout)}, "unpack", True)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def run_job(self, env=None, **kw):
        import ray
        ray.shutdown()
        vyre_ray.init(num_cpus=3, include_dashboard=False, runtime_env={"env_vars": env or {}})
        try:
            return vyre_ray.run([str(self.root / "archives")], Options(vyre=VYRE, batch_files=3, keep_entries=True, **kw))
        finally:
            ray.shutdown()

    def check_same_as_one_run(self, report):
        archives = report["archives"]
        self.assertEqual([r["archive"] for r in archives], [str(a) for a in self.archives])
        for mine, one in zip(archives, self.single):
            self.assertEqual(mine["status"], one["status"], mine["archive"])
            self.assertEqual(mine["items"], one["items"], mine["archive"])
            self.assertEqual(mine["problems"], one["problems"], mine["archive"])
        by_name = {Path(r["archive"]).name: r for r in archives}
        self.assertEqual(by_name["notes.txt"]["status"], "problems")
        self.assertEqual(by_name["broken.tar.gz"]["status"], "problems")
        self.assertEqual(by_name["pkg3.tar.gz"]["files"], 5)
        s = report["summary"]
        self.assertEqual((s["archives"], s["ok"], s["problems"], s["failed"]), (14, 12, 2, 0))

    def test_sharded_run_gives_the_listing_of_one_run(self):
        report = self.run_job()
        self.check_same_as_one_run(report)
        s = report["summary"]
        self.assertEqual((s["batches"], s["attempts"], s["failed_attempts"]), (5, 5, 0))
        self.assertEqual(s["workers"], 3)

    def test_a_killed_worker_loses_and_repeats_nothing(self):
        marker = self.root / "killed-once"
        report = self.run_job(env={"VYRE_RAY_KILL_ONCE": str(marker), "VYRE_RAY_KILL_AFTER": "0"})
        self.assertTrue(marker.exists(), "no worker was killed")
        self.check_same_as_one_run(report)
        s = report["summary"]
        self.assertEqual(s["failed_attempts"], 1)
        self.assertEqual((s["batches"], s["attempts"]), (5, 6))
        self.assertEqual(sum(1 for r in report["archives"] if r["attempts"] == 2), 3)  # the killed batch's archives

    def test_an_archive_that_always_fails_is_isolated(self):
        # A vyre that crashes on one archive: its batch fails every time, is split, and only that archive fails.
        wrapper = self.root / "crashing-vyre"
        wrapper.write_text("#!/bin/sh\nfor a; do case \"$a\" in *pkg4.zip) kill -SEGV $$;; esac; done\n"
                           f"exec {VYRE} \"$@\"\n")
        wrapper.chmod(0o755)
        import ray
        ray.shutdown()
        vyre_ray.init(num_cpus=3, include_dashboard=False)
        try:
            report = vyre_ray.run([str(self.root / "archives")], Options(vyre=str(wrapper), batch_files=3, retries=1))
        finally:
            ray.shutdown()
        failed = [r for r in report["archives"] if r["status"] == "failed"]
        self.assertEqual([Path(r["archive"]).name for r in failed], ["pkg4.zip"])
        self.assertIn("signal 11", failed[0]["problems"][0]["message"])
        self.assertEqual(report["summary"]["ok"], 11)
        self.assertEqual(len(report["archives"]), 14)


    def test_a_cluster_of_two_nodes_retries_elsewhere(self):
        # Two Ray nodes on this machine (ray.cluster_utils), joined by address as on a real cluster.
        # A vyre that crashes once: the batch it crashed on runs again on the other node.
        from ray.cluster_utils import Cluster
        import ray
        ray.shutdown()
        marker = self.root / "crashed-once"
        wrapper = self.root / "vyre-crashing-once"
        wrapper.write_text(f"#!/bin/sh\nif mkdir {marker} 2>/dev/null; then kill -SEGV $$; fi\nexec {VYRE} \"$@\"\n")
        wrapper.chmod(0o755)
        cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
        try:
            cluster.add_node(num_cpus=2)
            cluster.wait_for_nodes()
            vyre_ray.init(address=cluster.address)
            self.assertEqual(len([n for n in ray.nodes() if n["Alive"]]), 2)
            report = vyre_ray.run([str(self.root / "archives")], Options(vyre=str(wrapper), batch_files=3, keep_entries=True))
        finally:
            ray.shutdown()
            cluster.shutdown()
        self.check_same_as_one_run(report)
        self.assertEqual(report["summary"]["failed_attempts"], 1)
        retried = [r for r in report["archives"] if r["failed_on"]]
        self.assertIn(len(retried), (2, 3))  # the crashed batch's archives (the last batch has 2)
        for r in retried:
            self.assertEqual(r["attempts"], 2)
            self.assertNotIn(r["node"], r["failed_on"])
        self.assertEqual(len({r["node"] for r in report["archives"]}), 2)  # both nodes worked


if __name__ == "__main__":
    unittest.main()
