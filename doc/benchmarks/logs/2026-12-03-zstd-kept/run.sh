#!/bin/bash
# usage: run.sh MODE (tests | bench): from the repository root on the device machine, after . ./opencl-nvidia.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/r67bin /tmp/r67lib
for z in $here/bin/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/r67bin/$n ] || { $here/bin/zstd -q -d -f "$z" -o /tmp/r67bin/$n; chmod +x /tmp/r67bin/$n; }; done
for z in $here/bin/lib/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/r67lib/$n ] || $here/bin/zstd -q -d -f "$z" -o /tmp/r67lib/$n; done
export PATH=/tmp/r67bin:$here/bin:$PATH
export LD_LIBRARY_PATH=/tmp/r67lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export VYRE_CACHE_DIR=/tmp/vyre-cache
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc; lscpu | grep -i "model name"
sp=/opt/torch/.venv/lib/python3.12/site-packages
c=/dev/shm/corpus.tar
[ -s $c ] || (tar cf - /usr/include /usr/share/doc $sp/torch/lib 2>/dev/null | head -c $((1100<<20)) > $c)
ls -l $c
mode=${1:-tests}
repo=$(cd "$here/../.." && pwd); export VYRE_SOURCE_DIR=$repo
tests() { # every test program in $here/tests (or those named in TESTS), every device
  mkdir -p /tmp/r67t
  for z in $here/tests/*.zst; do
    n=$(basename "$z" .zst)
    if [ -n "${TESTS:-}" ] && ! echo " $TESTS " | grep -q " $n "; then continue; fi
    zstd -q -d -f "$z" -o /tmp/r67t/$n; chmod +x /tmp/r67t/$n
    echo "=== $n $(date -u +%H:%M:%S)"
    (cd $repo && timeout ${TEST_TIMEOUT:-280} /tmp/r67t/$n --log_level=test_suite > $OUT/$n.log 2>&1); echo "rc=$?"
    grep -a -E "No errors|failure|error:" $OUT/$n.log | tail -4
  done
}
one() { # one NAME ARGS...: bench_zstd on the corpus, the device route, appended to $OUT/bench.log
  n=$1; shift
  echo "=== $n $(date -u +%T)" | tee -a $OUT/bench.log
  VYRE_DEVICE=nvidia bench_zstd $c --mib 1024 --runs 3 --routes device "$@" 2>&1 | tee -a $OUT/bench.log | grep -a -v "^@result" | grep -a -v "^#  "
}
if [ "$mode" = tests ]; then tests; fi
if [ "$mode" = bench ]; then
  for r in 1 2 3; do
    one r$r-released --cases frames64k --release-kept
    one r$r-kept --cases frames64k
  done
  one 1m-released --cases frames1m --release-kept
  one 1m-kept --cases frames1m
  echo "=== bench_nvcomp $(date -u +%T)" | tee -a $OUT/bench.log
  bench_nvcomp $c --mib 1024 --runs 3 --cases zstd --zstd-chunks 65536,1048576 2>&1 | tee $OUT/nvcomp.log | grep -a -v "^@result"
fi
echo "=== end $(date -u +%T)"
