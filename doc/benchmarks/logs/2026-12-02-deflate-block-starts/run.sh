#!/bin/bash
# usage: run.sh MODE: from the repository root on the device machine, after . ./opencl-nvidia.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/r62bin
for z in $here/bin/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/r62bin/$n ] || { $here/bin/zstd -q -d -f "$z" -o /tmp/r62bin/$n; chmod +x /tmp/r62bin/$n; }; done
export PATH=/tmp/r62bin:$here/bin:$PATH
export VYRE_CACHE_DIR=/tmp/vyre-cache
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc; lscpu | grep -i "model name"
sp=/opt/torch/.venv/lib/python3.12/site-packages
c=/dev/shm/corpus.tar
[ -s $c ] || (tar cf - /usr/include /usr/share/doc $sp/torch/lib 2>/dev/null | head -c $((1100<<20)) > $c)
ls -l $c
mode=${1:-a}
repo=$(cd "$here/../.." && pwd); export VYRE_SOURCE_DIR=$repo
tests() { # tests DIR: every test program DIR/*.zst, both platforms
  mkdir -p /tmp/r62t; rm -f /tmp/r62t/*
  for t in $1/*.zst; do zstd -q -d -f "$t" -o /tmp/r62t/$(basename "$t" .zst); chmod +x /tmp/r62t/$(basename "$t" .zst); done
  for t in /tmp/r62t/*; do
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
  one 256m-32k --mib 256 --piece-kib 32 --runs 3 --search device,host
  one 256m-16k --mib 256 --piece-kib 16 --runs 3 --search device
  one 256m-64k --mib 256 --piece-kib 64 --runs 3 --search device
  one 64m-32k --mib 64 --piece-kib 32 --runs 3 --search device,host
  one 16m-16k --mib 16 --piece-kib 16 --runs 3 --search device,host
fi
if [ "$mode" = tests ]; then tests $here/tests; fi
echo "=== end $(date -u +%T)"
