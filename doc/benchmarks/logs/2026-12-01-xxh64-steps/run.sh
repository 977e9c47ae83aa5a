#!/bin/bash
# usage: run.sh MODE: from the repository root on the device machine, after . ./opencl-nvidia.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/r58lib /tmp/r58bin
for z in $here/bin/lib/*.zst; do [ -e /tmp/r58lib/$(basename "$z" .zst) ] || $here/bin/zstd -q -d -f "$z" -o /tmp/r58lib/$(basename "$z" .zst); done
for z in $here/bin/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/r58bin/$n ] || { $here/bin/zstd -q -d -f "$z" -o /tmp/r58bin/$n; chmod +x /tmp/r58bin/$n; }; done
export LD_LIBRARY_PATH=/tmp/r58lib
export PATH=/tmp/r58bin:$here/bin:$PATH
export VYRE_CACHE_DIR=/tmp/vyre-cache
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc
sp=/opt/torch/.venv/lib/python3.12/site-packages
c=/dev/shm/corpus.tar
[ -s $c ] || (tar cf - /usr/include /usr/share/doc $sp/torch/lib 2>/dev/null | head -c $((1100<<20)) > $c)
ls -l $c
mode=${1:-hash}
repo=$(cd "$here/../.." && pwd); export VYRE_SOURCE_DIR=$repo
tests() { # tests DIR: every test program DIR/*.zst, both platforms
  mkdir -p /tmp/r58t; rm -f /tmp/r58t/*
  for t in $1/*.zst; do zstd -q -d -f "$t" -o /tmp/r58t/$(basename "$t" .zst); chmod +x /tmp/r58t/$(basename "$t" .zst); done
  for t in /tmp/r58t/*; do
    n=$(basename $t); echo "=== $n $(date -u +%H:%M:%S)"
    (cd $repo && timeout ${TEST_TIMEOUT:-280} $t --log_level=test_suite > $OUT/$n.log 2>&1); echo "rc=$?"
    grep -a -E "No errors|failure|error:" $OUT/$n.log | tail -4
  done
}
bytes() { # bytes NAME BINARY: bench_bytes at several range lengths
  n=$1; b=$2
  for r in 65536 262144 1048576 4194304 16777216 134217728; do
    echo "=== $n range $r $(date -u +%T)"; VYRE_DEVICE=nvidia $b $c --mib 1024 --runs 3 --range-bytes $r 2>&1 | tee -a $OUT/$n.log | grep -a "xxh64\|XXH64\|ranges of"
  done
}
one() { # one NAME BINARY ARGS...: one bench_zstd run, 1 GiB
  n=$1; b=$2; shift 2
  echo "=== $n $(date -u +%T)"; VYRE_DEVICE=nvidia $b $c --mib 1024 --runs 3 "$@" 2>&1 | tee -a $OUT/$n.log | grep -a -v "^@result" | grep -a "timeline\|^#   *[0-9]\|^frames\|ours\|alone\|group\|device\|libzstd\|host walk"
}
nv() { echo "=== bench_nvcomp $(date -u +%T)"; bench_nvcomp $c --mib 1024 --runs 3 --cases zstd --zstd-chunks 65536,1048576 2>&1 | tee $OUT/nvcomp.log | grep -a -v "^@result"; }
if [ "$mode" = hash ]; then
  bytes bytes-head bench_bytes_head
  bytes bytes-new bench_bytes_new
  for r in 1 2; do
    one r$r-head bench_zstd_head --routes device,device:frames --cases frames1m
    one r$r-new bench_zstd_new --routes device,device:frames --cases frames1m --timeline
  done
  one r3-new64k bench_zstd_new --routes device:frames --cases frames64k
fi
if [ "$mode" = x ]; then
  for e in base nomul noload; do for r in 1048576 16777216; do echo "== $e $r"; VYRE_XXH64_EXPERIMENT=$e VYRE_XXH64_EXPERIMENT_NOCHECK=1 VYRE_CACHE_DIR=/tmp/vc-$e VYRE_DEVICE=nvidia bench_bytes_x $c --mib 1024 --runs 3 --range-bytes $r 2>&1 | grep -a "^bytes.xxh64 kernel"; done; done
fi
if [ "$mode" = u ]; then
  for u in 4 8 16 32; do for r in 65536 1048576 16777216; do echo "== U=$u range $r"; VYRE_XXH64_U=$u VYRE_CACHE_DIR=/tmp/vc-u$u VYRE_DEVICE=nvidia bench_bytes_u $c --mib 1024 --runs 3 --range-bytes $r 2>&1 | grep -a "^bytes.xxh64 kernel\|^libxxhash"; done; done
  bytes bytes-new2 bench_bytes_new
fi
if [ "$mode" = final ]; then
  bytes bytes-head bench_bytes_head
  bytes bytes-new bench_bytes_new
  for r in 1 2 3; do
    one r$r-head bench_zstd_head --routes device,device:frames --cases frames64k,frames1m
    one r$r-new bench_zstd_new --routes device,device:frames --cases frames64k,frames1m --timeline
  done
  nv
fi
if [ "$mode" = walk ]; then
  for r in 1 2 3; do
    one w$r-before bench_zstd_new --routes device:frames --cases frames64k
    one w$r-walk bench_zstd_walk --routes device:frames --cases frames64k --timeline
  done
  tests $here/tests
fi
if [ "$mode" = budget ]; then
  for r in 1 2 3; do
    one b$r-before bench_zstd_new --routes device:frames --cases frames64k
    one b$r-budget bench_zstd_budget --routes device:frames --cases frames64k
  done
fi
if [ "$mode" = tests ]; then tests $here/tests; fi
echo "=== end $(date -u +%T)"
