#!/bin/bash
# usage: run.sh MODE: from the repository root on the device machine, after . ./opencl-nvidia.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/r61bin
for z in $here/bin/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/r61bin/$n ] || { $here/bin/zstd -q -d -f "$z" -o /tmp/r61bin/$n; chmod +x /tmp/r61bin/$n; }; done
export PATH=/tmp/r61bin:$here/bin:$PATH
export VYRE_CACHE_DIR=/tmp/vyre-cache
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc; lscpu | grep -i "model name"
sp=/opt/torch/.venv/lib/python3.12/site-packages
c=/dev/shm/corpus.tar
[ -s $c ] || (tar cf - /usr/include /usr/share/doc $sp/torch/lib 2>/dev/null | head -c $((1100<<20)) > $c)
ls -l $c
mode=${1:-a}
repo=$(cd "$here/../.." && pwd); export VYRE_SOURCE_DIR=$repo
tests() { # tests DIR: every test program DIR/*.zst, both platforms
  mkdir -p /tmp/r61t; rm -f /tmp/r61t/*
  for t in $1/*.zst; do zstd -q -d -f "$t" -o /tmp/r61t/$(basename "$t" .zst); chmod +x /tmp/r61t/$(basename "$t" .zst); done
  for t in /tmp/r61t/*; do
    n=$(basename $t); echo "=== $n $(date -u +%H:%M:%S)"
    (cd $repo && timeout ${TEST_TIMEOUT:-280} $t --log_level=test_suite > $OUT/$n.log 2>&1); echo "rc=$?"
    grep -a -E "No errors|failure|error:" $OUT/$n.log | tail -4
  done
}
one() { # one NAME ARGS...: bench_deflate --one-stream, appended to $OUT/bench.log
  n=$1; shift
  echo "=== $n $(date -u +%T)" | tee -a $OUT/bench.log; VYRE_DEVICE=nvidia bench_deflate $c --one-stream "$@" 2>&1 | tee -a $OUT/bench.log | grep -a -v "^@result"
}
if [ "$mode" = a ]; then
  one p32-256m --mib 256 --piece-kib 32 --runs 3
  one p16-256m --mib 256 --piece-kib 16 --runs 3
  one p64-256m --mib 256 --piece-kib 64 --runs 3
  one p32-64m --mib 64 --piece-kib 32 --runs 3
  one p16-16m --mib 16 --piece-kib 16 --runs 3
  tests $here/tests
fi
if [ "$mode" = tests ]; then tests $here/tests; fi
echo "=== end $(date -u +%T)"
