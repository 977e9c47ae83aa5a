#!/bin/bash
# usage: run.sh MODE (tests | checks | groups | all): from the repository root on the device machine, after . ./opencl-nvidia.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/r75bin /tmp/r75lib
for z in $here/bin/*.zst; do n=$(basename "$z" .zst); $here/bin/zstd -q -d -f "$z" -o /tmp/r75bin/$n; chmod +x /tmp/r75bin/$n; done
for z in $here/bin/lib/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/r75lib/$n ] || $here/bin/zstd -q -d -f "$z" -o /tmp/r75lib/$n; done
export PATH=/tmp/r75bin:$here/bin:$PATH
export LD_LIBRARY_PATH=/tmp/r75lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export VYRE_CACHE_DIR=/tmp/vyre-cache
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc; lscpu | grep -i "model name"
sp=/opt/torch/.venv/lib/python3.12/site-packages
c=/dev/shm/corpus.tar
[ -s $c ] || (tar cf - /usr/include /usr/share/doc $sp/torch/lib 2>/dev/null | head -c $((1100<<20)) > $c)
ls -l $c
mode=${1:-tests}
repo=$(cd "$here/../.." && pwd); export VYRE_SOURCE_DIR=$repo
tests() { # every test program in $here/tests (or those named in TESTS), every device
  mkdir -p /tmp/r75t
  for z in $here/tests/*.zst; do
    n=$(basename "$z" .zst)
    if [ -n "${TESTS:-}" ] && ! echo " $TESTS " | grep -q " $n "; then continue; fi
    zstd -q -d -f "$z" -o /tmp/r75t/$n; chmod +x /tmp/r75t/$n
    echo "=== $n $(date -u +%H:%M:%S)"
    (cd $repo && timeout ${TEST_TIMEOUT:-280} /tmp/r75t/$n --log_level=test_suite > $OUT/$n.log 2>&1); echo "rc=$?"
    grep -a -E "No errors|failure|error:" $OUT/$n.log | tail -4
  done
}
checks() { # the host routes' frame checks and a sequences-only pass, against libzstd, one core
  mkdir -p /dev/shm/hc/c64 /dev/shm/hc/c1m && cd /dev/shm/hc
  head -c 200000000 $c > part
  (cd c1m && split -b 1M ../part c && ls | xargs -P 16 -n 1 sh -c 'zstd -q -3 -f "$0" -o "$0.zst"')
  (cd c64 && split -b 64K ../part c && ls | xargs -P 16 -n 200 sh -c 'for f in "$0" "$@"; do zstd -q -3 -f "$f" -o "$f.zst"; done')
  for d in c1m c64; do cat $(ls $d/*.zst | sort) > $d.zst; done
  ls -l c1m.zst c64.zst
  for d in c1m c64; do echo "--- $d"; ckcost $d.zst; seqcheck $d.zst; done 2>&1 | tee $OUT/checks.log
  cd - >/dev/null
}
groups() { # compression.zstd.blocks on 1 MiB frames in one group or several (read-back overlapping later groups)
  for n in 0 512 256 0; do
    echo "=== frames-per-dispatch $n $(date -u +%T)" | tee -a $OUT/bench.log
    VYRE_DEVICE=nvidia bench_zstd $c --mib 1024 --runs 3 --cases frames1m --frames-per-dispatch $n --routes device:blocks,device:blocks@0.3 2>&1 | tee -a $OUT/bench.log | grep -a "^frames\|host's cores decoded\|last run: frames\|libzstd"
  done
}
if [ "$mode" = checks ] || [ "$mode" = all ]; then checks; fi
if [ "$mode" = groups ] || [ "$mode" = all ]; then groups; fi
if [ "$mode" = tests ] || [ "$mode" = all ]; then tests; fi
echo "=== end $(date -u +%T)"
