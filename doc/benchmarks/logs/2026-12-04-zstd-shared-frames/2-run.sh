#!/bin/bash
# usage: run.sh MODE (tests | share | all): from the repository root on the device machine, after . ./opencl-nvidia.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/r71bin /tmp/r71lib
for z in $here/bin/*.zst; do n=$(basename "$z" .zst); $here/bin/zstd -q -d -f "$z" -o /tmp/r71bin/$n; chmod +x /tmp/r71bin/$n; done
for z in $here/bin/lib/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/r71lib/$n ] || $here/bin/zstd -q -d -f "$z" -o /tmp/r71lib/$n; done
export PATH=/tmp/r71bin:$here/bin:$PATH
export LD_LIBRARY_PATH=/tmp/r71lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export VYRE_CACHE_DIR=/tmp/vyre-cache
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc; lscpu | grep -i "model name"
sp=/opt/torch/.venv/lib/python3.12/site-packages
c=/dev/shm/corpus.tar
[ -s $c ] || (tar cf - /usr/include /usr/share/doc $sp/torch/lib 2>/dev/null | head -c $((1100<<20)) > $c)
ls -l $c
mode=${1:-tests}
repo=$(cd "$here/../.." && pwd); export VYRE_SOURCE_DIR=$repo
tests() { # every test program in $here/tests (or those named in TESTS), every device
  mkdir -p /tmp/r71t
  for z in $here/tests/*.zst; do
    n=$(basename "$z" .zst)
    if [ -n "${TESTS:-}" ] && ! echo " $TESTS " | grep -q " $n "; then continue; fi
    zstd -q -d -f "$z" -o /tmp/r71t/$n; chmod +x /tmp/r71t/$n
    echo "=== $n $(date -u +%H:%M:%S)"
    (cd $repo && timeout ${TEST_TIMEOUT:-280} /tmp/r71t/$n --log_level=test_suite > $OUT/$n.log 2>&1); echo "rc=$?"
    grep -a -E "No errors|failure|error:" $OUT/$n.log | tail -4
  done
}
one() { # one NAME ARGS...: bench_zstd on the corpus, appended to $OUT/bench.log
  n=$1; shift
  echo "=== $n $(date -u +%T)" | tee -a $OUT/bench.log
  VYRE_DEVICE=nvidia bench_zstd $c --mib 1024 --runs 3 "$@" 2>&1 | tee -a $OUT/bench.log | grep -a -v "^@result" | grep -a -v "^#   ours\|^#   per-round\|^#   timeline\|^#   [ 0-9]\{5\} \|^#   host"
}
share() {
  for r in 1 2; do
    one r$r-1m --cases frames1m --routes automatic,host,device,device@0.3 $([ $r = 1 ] && echo --timeline)
  done
  one r3-64k --cases frames64k --routes automatic,device
  echo "=== bench_nvcomp $(date -u +%T)" | tee -a $OUT/bench.log
  bench_nvcomp $c --mib 1024 --runs 3 --cases zstd --zstd-chunks 65536,1048576 2>&1 | tee $OUT/nvcomp.log | grep -a -v "^@result"
}
if [ "$mode" = share ] || [ "$mode" = all ]; then share; fi
if [ "$mode" = tests ] || [ "$mode" = all ]; then tests; fi
echo "=== end $(date -u +%T)"
