#!/bin/bash
# usage: run.sh MODE: from the repository root on the device machine, after . ./opencl-nvidia.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/r60lib /tmp/r60bin
for z in $here/bin/lib/*.zst; do [ -e /tmp/r60lib/$(basename "$z" .zst) ] || $here/bin/zstd -q -d -f "$z" -o /tmp/r60lib/$(basename "$z" .zst); done
for z in $here/bin/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/r60bin/$n ] || { $here/bin/zstd -q -d -f "$z" -o /tmp/r60bin/$n; chmod +x /tmp/r60bin/$n; }; done
export LD_LIBRARY_PATH=/tmp/r60lib
export PATH=/tmp/r60bin:$here/bin:$PATH
export VYRE_CACHE_DIR=/tmp/vyre-cache
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc
sp=/opt/torch/.venv/lib/python3.12/site-packages
c=/dev/shm/corpus.tar
[ -s $c ] || (tar cf - /usr/include /usr/share/doc $sp/torch/lib 2>/dev/null | head -c $((1100<<20)) > $c)
ls -l $c
mode=${1:-hash}
repo=$(cd "$here/../.." && pwd); export VYRE_SOURCE_DIR=$repo
tests() { # tests DIR: every test program DIR/*.zst, both platforms
  mkdir -p /tmp/r60t; rm -f /tmp/r60t/*
  for t in $1/*.zst; do zstd -q -d -f "$t" -o /tmp/r60t/$(basename "$t" .zst); chmod +x /tmp/r60t/$(basename "$t" .zst); done
  for t in /tmp/r60t/*; do
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
one() { # one NAME BINARY ARGS...: one bench_zstd run
  n=$1; b=$2; shift 2
  echo "=== $n $(date -u +%T)" | tee -a $OUT/bench.log; VYRE_DEVICE=nvidia $b $c --runs 3 "$@" 2>&1 | tee -a $OUT/bench.log | grep -a -v "^@result" | grep -a "passes\|^#   *[0-9]\|^frames\|ours\|alone\|device\|libzstd\|timeline"
}
if [ "$mode" = f ]; then
  for r in 1 2; do one f$r-1m bench_zstd_final --mib 1024 --routes device,host --cases frames1m; done
  one f-64k bench_zstd_final --mib 1024 --routes device --cases frames64k
  one f-single bench_zstd_final --mib 256 --routes device:blocks --cases single
  one f-timeline bench_zstd_final --mib 1024 --runs 1 --routes device --cases frames1m --timeline
  grep -a -A2 'timeline ->device' $OUT/bench.log | tail -2
  nv
  VYRE_DEVICES=nvidia tests $here/tests
fi
if [ "$mode" = g ]; then
  for r in 1 2; do
    for v in final list; do one g$r-$v bench_zstd_$v --mib 1024 --routes device:blocks --cases frames1m; done
  done
  for v in final list; do one s-$v bench_zstd_$v --mib 256 --runs 2 --routes device:blocks --cases single; done
  VYRE_DEVICES=nvidia tests $here/tests
fi
if [ "$mode" = tests ]; then tests $here/tests; fi
echo "=== end $(date -u +%T)"
