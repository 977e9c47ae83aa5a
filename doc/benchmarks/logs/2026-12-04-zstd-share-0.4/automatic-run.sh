#!/bin/bash
# usage: run.sh MODE (share | tests | all): from the repository root on the device machine, after . ./opencl-nvidia.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/r78bin /tmp/r78lib
for z in $here/bin/*.zst; do n=$(basename "$z" .zst); $here/bin/zstd -q -d -f "$z" -o /tmp/r78bin/$n; chmod +x /tmp/r78bin/$n; done
for z in $here/bin/lib/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/r78lib/$n ] || $here/bin/zstd -q -d -f "$z" -o /tmp/r78lib/$n; done
export PATH=/tmp/r78bin:$here/bin:$PATH
export LD_LIBRARY_PATH=/tmp/r78lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export VYRE_CACHE_DIR=/tmp/vyre-cache
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc
sp=/opt/torch/.venv/lib/python3.12/site-packages
c=/dev/shm/corpus.tar
[ -s $c ] || (tar cf - /usr/include /usr/share/doc $sp/torch/lib 2>/dev/null | head -c $((1100<<20)) > $c)
ls -l $c
mode=${1:-tests}
repo=$(cd "$here/../.." && pwd); export VYRE_SOURCE_DIR=$repo
tests() { # every test program in $here/tests (or those named in TESTS), every device
  mkdir -p /tmp/r78t
  for z in $here/tests/*.zst; do
    n=$(basename "$z" .zst)
    if [ -n "${TESTS:-}" ] && ! echo " $TESTS " | grep -q " $n "; then continue; fi
    zstd -q -d -f "$z" -o /tmp/r78t/$n; chmod +x /tmp/r78t/$n
    echo "=== $n $(date -u +%H:%M:%S)"
    (cd $repo && timeout ${TEST_TIMEOUT:-200} /tmp/r78t/$n --log_level=test_suite > $OUT/$n.log 2>&1); echo "rc=$?"
    grep -a -E "No errors|failure|error:" $OUT/$n.log | tail -4
  done
}
share() { # the automatic route (its share now 0.4 on 16 threads) against 0.3, alternating
  for r in 1 2; do
    echo "=== r$r $(date -u +%T)" | tee -a $OUT/bench.log
    VYRE_DEVICE=nvidia bench_zstd $c --mib 1024 --runs 3 --cases frames1m,frames64k --routes automatic,device@0.3 2>&1 | tee -a $OUT/bench.log | grep -a "^frames\|host's cores decoded\|libzstd 16\|ours->host   last run: frames"
  done
  echo "=== bench_nvcomp $(date -u +%T)" | tee -a $OUT/bench.log
  bench_nvcomp $c --mib 1024 --runs 3 --cases zstd --zstd-chunks 65536,1048576 2>&1 | tee $OUT/nvcomp.log | grep -a -v "^@result"
}
if [ "$mode" = share ] || [ "$mode" = all ]; then share; fi
if [ "$mode" = tests ] || [ "$mode" = all ]; then tests; fi
echo "=== end $(date -u +%T)"
