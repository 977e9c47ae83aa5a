#!/bin/bash
# usage: run.sh MODE (share | tests | all): from the repository root on the device machine, after . ./opencl-nvidia.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/r77bin /tmp/r77lib
for z in $here/bin/*.zst; do n=$(basename "$z" .zst); $here/bin/zstd -q -d -f "$z" -o /tmp/r77bin/$n; chmod +x /tmp/r77bin/$n; done
for z in $here/bin/lib/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/r77lib/$n ] || $here/bin/zstd -q -d -f "$z" -o /tmp/r77lib/$n; done
export PATH=/tmp/r77bin:$here/bin:$PATH
export LD_LIBRARY_PATH=/tmp/r77lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export VYRE_CACHE_DIR=/tmp/vyre-cache
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc
sp=/opt/torch/.venv/lib/python3.12/site-packages
c=/dev/shm/corpus.tar
[ -s $c ] || (tar cf - /usr/include /usr/share/doc $sp/torch/lib 2>/dev/null | head -c $((1100<<20)) > $c)
ls -l $c
mode=${1:-tests}
repo=$(cd "$here/../.." && pwd); export VYRE_SOURCE_DIR=$repo
tests() { # every test program in $here/tests (or those named in TESTS), every device
  mkdir -p /tmp/r77t
  for z in $here/tests/*.zst; do
    n=$(basename "$z" .zst)
    if [ -n "${TESTS:-}" ] && ! echo " $TESTS " | grep -q " $n "; then continue; fi
    zstd -q -d -f "$z" -o /tmp/r77t/$n; chmod +x /tmp/r77t/$n
    echo "=== $n $(date -u +%H:%M:%S)"
    (cd $repo && timeout ${TEST_TIMEOUT:-200} /tmp/r77t/$n --log_level=test_suite > $OUT/$n.log 2>&1); echo "rc=$?"
    grep -a -E "No errors|failure|error:" $OUT/$n.log | tail -4
  done
}
share() { # the host's share of 1 MiB frames beside the device: 0.3 (today's estimate) against more
  for r in 1 2; do
    echo "=== r$r $(date -u +%T)" | tee -a $OUT/bench.log
    VYRE_DEVICE=nvidia bench_zstd $c --mib 1024 --runs 3 --cases frames1m --routes device@0.3,device@0.35,device@0.4,device@0.45 2>&1 | tee -a $OUT/bench.log | grep -a "^frames\|host's cores decoded\|libzstd 16"
  done
}
if [ "$mode" = share ] || [ "$mode" = all ]; then share; fi
if [ "$mode" = tests ] || [ "$mode" = all ]; then tests; fi
echo "=== end $(date -u +%T)"
