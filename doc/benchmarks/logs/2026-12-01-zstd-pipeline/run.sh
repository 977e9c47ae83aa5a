#!/bin/bash
# usage: run.sh MODE: from the repository root on the device machine, after . ./opencl-nvidia.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/r57lib; for z in $here/bin/lib/*.zst; do [ -e "$z" ] && [ ! -e /tmp/r57lib/$(basename "$z" .zst) ] && $here/bin/zstd -q -d -f "$z" -o /tmp/r57lib/$(basename "$z" .zst); done
export LD_LIBRARY_PATH=$here/bin/lib:/tmp/r57lib
export PATH=$here/bin:$PATH
export VYRE_CACHE_DIR=/tmp/vyre-cache
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc
sp=/opt/torch/.venv/lib/python3.12/site-packages
c=/dev/shm/corpus.tar
[ -s $c ] || (tar cf - /usr/include /usr/share/doc $sp/torch/lib 2>/dev/null | head -c $((1100<<20)) > $c)
ls -l $c
mode=${1:-tl}
repo=$(cd "$here/../.." && pwd)
tests() { # tests DIR: every test program DIR/*.zst, both platforms
  mkdir -p /tmp/r57t; rm -f /tmp/r57t/*
  for t in $1/*.zst; do zstd -q -d -f "$t" -o /tmp/r57t/$(basename "$t" .zst); chmod +x /tmp/r57t/$(basename "$t" .zst); done
  for t in /tmp/r57t/*; do
    n=$(basename $t); echo "=== $n $(date -u +%H:%M:%S)"
    (cd $repo && timeout ${TEST_TIMEOUT:-280} $t --log_level=test_suite > $OUT/$n.log 2>&1); echo "rc=$?"
    grep -a -E "No errors|failure|error:" $OUT/$n.log | tail -4
  done
}
nv() { echo "=== bench_nvcomp $(date -u +%T)"; bench_nvcomp $c --mib 1024 --runs 3 --cases zstd --zstd-chunks 65536,1048576 2>&1 | tee $OUT/nvcomp.log | grep -a -v "^@result"; }
one() { # one NAME BINARY ARGS...: one bench_zstd run, the device route's frames program, 1 GiB
  n=$1; b=$2; shift 2
  echo "=== $n $(date -u +%T)"; VYRE_DEVICE=nvidia $b $c --mib 1024 --runs 3 --routes device:frames "$@" 2>&1 | tee -a $OUT/$n.log | grep -a -v "^@result" | grep -a "timeline\|^#   *[0-9]\|^frames\|ours\|alone\|group"
}
if [ "$mode" = tl ]; then
  one tl-new bench_zstd_new --cases frames64k,frames1m --timeline
  for f in 8448 16384; do one fpd$f bench_zstd_new --cases frames64k --frames-per-dispatch $f --timeline; done
  nv
fi
if [ "$mode" = cmp ]; then shift; for r in 1 2; do for b in "$@"; do one r$r-$b $b --cases frames64k,frames1m; done; done; nv; fi
if [ "$mode" = pipe ]; then
  for r in 1 2; do
    one r$r-head bench_zstd_head --cases frames64k,frames1m
    one r$r-new bench_zstd_new --cases frames64k,frames1m --timeline
    one r$r-noramp bench_zstd_new --cases frames64k --frames-per-dispatch 4224 --timeline
    one r$r-in2 bench_zstd_in2 --cases frames64k --timeline
  done
  nv
fi
if [ "$mode" = pipe2 ]; then
  for r in 1 2 3; do
    one r$r-head bench_zstd_head --cases frames64k,frames1m
    one r$r-new bench_zstd_new --cases frames64k,frames1m --timeline
    one r$r-noramp bench_zstd_new --cases frames64k --frames-per-dispatch 4224
  done
  nv
fi
if [ "$mode" = tests ]; then tests $here/tests; fi
if [ "$mode" = final ]; then
  tests $here/tests
  for r in 1 2 3; do
    one r$r-head bench_zstd_head --cases frames64k,frames1m
    one r$r-new bench_zstd_new --cases frames64k,frames1m --timeline
  done
  nv
fi
echo "=== end $(date -u +%T)"
