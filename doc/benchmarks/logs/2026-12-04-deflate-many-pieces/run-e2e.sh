#!/bin/bash
# usage: run.sh MODE (pieces | tests | all): from the repository root on the device machine, after . ./opencl-nvidia.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/r83bin /tmp/r83lib
for z in $here/bin/*.zst; do n=$(basename "$z" .zst); $here/bin/zstd -q -d -f "$z" -o /tmp/r83bin/$n; chmod +x /tmp/r83bin/$n; done
for z in $here/bin/lib/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/r83lib/$n ] || $here/bin/zstd -q -d -f "$z" -o /tmp/r83lib/$n; done
export PATH=/tmp/r83bin:$here/bin:$PATH
export LD_LIBRARY_PATH=/tmp/r83lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export VYRE_CACHE_DIR=/tmp/vyre-cache
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc
sp=/opt/torch/.venv/lib/python3.12/site-packages
c=/dev/shm/corpus.tar
[ -s $c ] || (tar cf - /usr/include /usr/share/doc $sp/torch/lib 2>/dev/null | head -c $((1100<<20)) > $c)
ls -l $c
mode=${1:-tests}
repo=$(cd "$here/../.." && pwd); export VYRE_SOURCE_DIR=$repo
tests() { # every test program in $here/tests (or those named in TESTS), every device
  mkdir -p /tmp/r83t
  for z in $here/tests/*.zst; do
    n=$(basename "$z" .zst)
    if [ -n "${TESTS:-}" ] && ! echo " $TESTS " | grep -q " $n "; then continue; fi
    zstd -q -d -f "$z" -o /tmp/r83t/$n; chmod +x /tmp/r83t/$n
    echo "=== $n $(date -u +%H:%M:%S)"
    (cd $repo && timeout ${TEST_TIMEOUT:-200} /tmp/r83t/$n --log_level=test_suite > $OUT/$n.log 2>&1); echo "rc=$?"
    grep -a -E "No errors|failure|error:" $OUT/$n.log | tail -4
  done
}
e2e() { # several .gz files of one long stream each, the device route: the streams in pieces together (vyre) or one after another (vyre_before)
  d=/dev/shm/gz; rm -rf $d; mkdir -p $d/a $d/b
  for i in 0 1 2 3; do dd if=$c of=$d/a/p$i.bin bs=1M iflag=skip_bytes,count_bytes skip=$((i*64*1048576+100)) count=$((64*1048576)) status=none; done
  for i in $(seq 0 15); do dd if=$c of=$d/b/q$i.bin bs=1M iflag=skip_bytes,count_bytes skip=$(((256+i*16)*1048576+100)) count=$((16*1048576)) status=none; done
  (cd $d && ls a/*.bin b/*.bin | xargs -P 16 -n 1 gzip -6)
  ls -l $d/a $d/b | head -30
  TIMEFORMAT=%R
  for set in a b; do
    for r in 1 2 3; do
      for v in vyre vyre_before; do
        for route in device host; do
          rm -rf /dev/shm/o; echo "--- set $set round $r $v --deflate-route $route"
          { time $v unpack --no-progress --timings --deflate-route $route $d/$set/*.gz -o /dev/shm/o > /dev/null 2> /tmp/e2e.err ; } 2>&1 | sed 's/^/wall /'
          grep -a "^vyre unpack" /tmp/e2e.err | cut -c1-600
        done
      done
    done
    rm -rf /dev/shm/o; vyre unpack --no-progress --deflate-route device $d/$set/*.gz -o /dev/shm/o 2>/dev/null
    for f in $d/$set/*.gz; do n=$(basename $f .gz); zcat $f | cmp - /dev/shm/o/$n || echo "DIFFERS: $n"; done; echo "set $set checked against zcat"
  done
}
if [ "$mode" = e2e ] || [ "$mode" = all ]; then e2e 2>&1 | tee $OUT/e2e.log; fi
if [ "$mode" = tests ] || [ "$mode" = all ]; then tests; fi
echo "=== end $(date -u +%T)"
