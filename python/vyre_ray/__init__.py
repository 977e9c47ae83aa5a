"""vyre on a Ray cluster: shards archives over workers, one `vyre` run per batch, one merged report."""

from .driver import Options, init, list_archives, make_batches, merge, per_archive, run, run_vyre

__all__ = ["Options", "init", "list_archives", "make_batches", "merge", "per_archive", "run", "run_vyre"]
