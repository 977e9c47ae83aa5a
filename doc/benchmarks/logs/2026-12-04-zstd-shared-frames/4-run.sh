#!/bin/bash
# usage: run.sh MODE (tests | share | all): from the repository root on the device machine, after . ./opencl-nvidia.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/r74bin /tmp/r74lib
for z in $here/bin/*.zst; do n=$(basename "$z" .zst); $here/bin/zstd -q -d -f "$z" -o /tmp/r74bin/$n; chmod +x /tmp/r74bin/$n; done
for z in $here/bin/lib/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/r74lib/$n ] || $here/bin/zstd -q -d -f "$z" -o /tmp/r74lib/$n; done
export PATH=/tmp/r74bin:$here/bin:$PATH
export LD_LIBRARY_PATH=/tmp/r74lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export VYRE_CACHE_DIR=/tmp/vyre-cache
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc; lscpu | grep -i "model name"
sp=/opt/torch/.venv/lib/python3.12/site-packages
c=/dev/shm/corpus.tar
[ -s $c ] || (tar cf - /usr/include /usr/share/doc $sp/torch/lib 2>/dev/null | head -c $((1100<<20)) > $c)
ls -l $c
mode=${1:-tests}
repo=$(cd "$here/../.." && pwd); export VYRE_SOURCE_DIR=$repo
tests() { # every test program in $here/tests (or those named in TESTS), every device
  mkdir -p /tmp/r74t
  for z in $here/tests/*.zst; do
    n=$(basename "$z" .zst)
    if [ -n "${TESTS:-}" ] && ! echo " $TESTS " | grep -q " $n "; then continue; fi
    zstd -q -d -f "$z" -o /tmp/r74t/$n; chmod +x /tmp/r74t/$n
    echo "=== $n $(date -u +%H:%M:%S)"
    (cd $repo && timeout ${TEST_TIMEOUT:-280} /tmp/r74t/$n --log_level=test_suite > $OUT/$n.log 2>&1); echo "rc=$?"
    grep -a -E "No errors|failure|error:" $OUT/$n.log | tail -4
  done
}
one() { # one NAME ARGS...: bench_zstd on the corpus, appended to $OUT/bench.log
  n=$1; shift
  echo "=== $n $(date -u +%T)" | tee -a $OUT/bench.log
  VYRE_DEVICE=nvidia bench_zstd $c --mib 1024 --runs 3 "$@" 2>&1 | tee -a $OUT/bench.log | grep -a -v "^@result" | grep -a -v "^#   ours\|^#   per-round\|^#   timeline\|^#   [ 0-9]\{5\} \|^#   host"
}
share() { # the host's shared frames walked before libzstd decodes them
  for r in 1 2; do
    echo "=== r$r $(date -u +%T)" | tee -a $OUT/bench.log
    VYRE_DEVICE=nvidia bench_zstd $c --mib 1024 --runs 3 --cases frames1m --routes automatic,device 2>&1 | tee -a $OUT/bench.log | grep -a "^frames\|host's cores decoded\|ours->host   last run: frames"
  done
}
if [ "$mode" = share ] || [ "$mode" = all ]; then share; fi
if [ "$mode" = tests ] || [ "$mode" = all ]; then tests; fi
echo "=== end $(date -u +%T)"
