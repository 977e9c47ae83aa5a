#!/bin/bash
# usage: run.sh MODE (tests | pages | dataflow): from the repository root on the device machine, after . ./opencl-nvidia.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/r68bin /tmp/r68lib
for z in $here/bin/*.zst; do n=$(basename "$z" .zst); $here/bin/zstd -q -d -f "$z" -o /tmp/r68bin/$n; chmod +x /tmp/r68bin/$n; done
for z in $here/bin/lib/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/r68lib/$n ] || $here/bin/zstd -q -d -f "$z" -o /tmp/r68lib/$n; done
export PATH=/tmp/r68bin:$here/bin:$PATH
export LD_LIBRARY_PATH=/tmp/r68lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export VYRE_CACHE_DIR=/tmp/vyre-cache
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc; lscpu | grep -i "model name"
p=/dev/shm/pages.tar
[ -s $p ] || tar cf $p /usr/include /usr/share/doc 2>/dev/null
ls -l $p
mode=${1:-tests}
repo=$(cd "$here/../.." && pwd); export VYRE_SOURCE_DIR=$repo
tests() { # every test program in $here/tests (or those named in TESTS), every device
  mkdir -p /tmp/r68t
  for z in $here/tests/*.zst; do
    n=$(basename "$z" .zst)
    if [ -n "${TESTS:-}" ] && ! echo " $TESTS " | grep -q " $n "; then continue; fi
    zstd -q -d -f "$z" -o /tmp/r68t/$n; chmod +x /tmp/r68t/$n
    echo "=== $n $(date -u +%H:%M:%S)"
    (cd $repo && timeout ${TEST_TIMEOUT:-280} /tmp/r68t/$n --log_level=test_suite > $OUT/$n.log 2>&1); echo "rc=$?"
    grep -a -E "No errors|failure|error:" $OUT/$n.log | tail -4
  done
}
pages() { # pages NAME ARGS...: bench_lz4_pages on the pages corpus, appended to $OUT/pages.log
  n=$1; shift
  echo "=== $n $(date -u +%T)" | tee -a $OUT/pages.log
  VYRE_DEVICE=nvidia ${B:-bench_lz4_pages} $p --runs 15 "$@" 2>&1 | tee -a $OUT/pages.log | grep -a -v "^@result"
}
if [ "$mode" = tests ]; then tests; fi
if [ "$mode" = pages ]; then
  for r in 1 2 3; do
    pages r$r-auto --batches 1000,2000,5000,10000
    pages r$r-auto-spin --batches 1000,2000,5000,10000 --spin-wait 0.002
    pages r$r-chunk-500-spin --batches 1000,2000 --chunk 500 --spin-wait 0.002
  done
  pages all-spin --batches 1000,2000,5000,10000,100000 --spin-wait 0.002
  pages all --batches 1000,2000,5000,10000,100000
  echo "=== bench_nvcomp $(date -u +%T)" | tee -a $OUT/pages.log
  bench_nvcomp $p --mib 1024 --runs 15 --cases lz4_pages --pages 1000,2000,5000,10000,100000 2>&1 | tee $OUT/nvcomp-pages.log | grep -a -v "^@result"
fi
if [ "$mode" = dataflow ]; then
  for r in 1 2; do
    for b in bench_dataflow_old bench_dataflow; do
      echo "=== r$r $b $(date -u +%T)" | tee -a $OUT/dataflow.log
      VYRE_DEVICE=nvidia $b ${DATAFLOW_ARGS:---scale 22 --sources 1024 --runs 3 --no-bfs --no-debian --timeline} --apt-lists $here/apt 2>&1 | tee -a $OUT/dataflow.log | grep -a -v "^@result\|^@level\|levels (depth"
    done
  done
fi
echo "=== end $(date -u +%T)"
