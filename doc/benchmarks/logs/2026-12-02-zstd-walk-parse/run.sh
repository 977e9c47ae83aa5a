#!/bin/bash
# usage: run.sh MODE (bench | tests): from the repository root on the device machine, after . .device/r65/opencl-nvidia.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/r65bin /tmp/r65lib
for z in $here/bin/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/r65bin/$n ] || { $here/bin/zstd -q -d -f "$z" -o /tmp/r65bin/$n; chmod +x /tmp/r65bin/$n; }; done
for z in $here/bin/*.lzst; do n=$(basename "$z" .lzst); [ -e /tmp/r65lib/$n ] || $here/bin/zstd -q -d -f "$z" -o /tmp/r65lib/$n; done
export LD_LIBRARY_PATH=/tmp/r65lib
export PATH=/tmp/r65bin:$here/bin:$PATH
export VYRE_CACHE_DIR=/tmp/vyre-cache
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc
sp=/opt/torch/.venv/lib/python3.12/site-packages
c=/dev/shm/corpus.tar
[ -s $c ] || (tar cf - /usr/include /usr/share/doc $sp/torch/lib 2>/dev/null | head -c $((1100<<20)) > $c)
ls -l $c
mode=${1:-bench}
repo=$(cd "$here/../.." && pwd); export VYRE_SOURCE_DIR=$repo
one() { # one NAME BINARY ARGS...: one bench_zstd run, its log in $OUT/NAME.log
  n=$1; b=$2; shift 2
  echo "=== $n $(date -u +%T)"; VYRE_DEVICE=nvidia $b $c "$@" > $OUT/$n.log 2>&1
  grep -a -v "^@result" $OUT/$n.log | grep -a "host walk\|^frames\|ours\|libzstd\|device\|timeline\|^#   *[0-9]" | head -40
}
if [ "$mode" = bench ]; then
  for r in 1 2; do
    for v in before after; do one r$r-64k-$v bench_zstd_$v --mib 1024 --runs 3 --cases frames64k --routes device; done
  done
  one t-64k-after bench_zstd_after --mib 1024 --runs 1 --cases frames64k --routes device --timeline
  one t-64k-before bench_zstd_before --mib 1024 --runs 1 --cases frames64k --routes device --timeline
  for v in before after; do one 1m-$v bench_zstd_$v --mib 1024 --runs 3 --cases frames1m --routes device,host; done
  echo "=== bench_nvcomp $(date -u +%T)"; bench_nvcomp $c --mib 1024 --runs 3 --cases zstd --zstd-chunks 65536,1048576 > $OUT/nvcomp.log 2>&1; grep -a -v "^@result" $OUT/nvcomp.log | tail -8
fi
if [ "$mode" = probe ]; then
  for r in 1 2; do
    for ramp in 0 1 2; do
      n=p$r-ramp$ramp; echo "=== $n $(date -u +%T)"
      VYRE_PROBE=1 VYRE_PROBE_RAMP=$ramp VYRE_DEVICE=nvidia bench_zstd_probe $c --mib 1024 --runs 3 --cases frames64k --routes device > $OUT/$n.log 2>&1
      grep -a '^frames64k' $OUT/$n.log; grep -a PROBE $OUT/$n.log | tail -4
    done
  done
  VYRE_PROBE_RAMP=2 VYRE_DEVICE=nvidia bench_zstd_probe $c --mib 1024 --runs 1 --cases frames64k --routes device --timeline > $OUT/t-ramp2.log 2>&1
  grep -a -A6 'timeline ->host' $OUT/t-ramp2.log
fi
if [ "$mode" = parse ]; then
  for r in 1 2 3; do
    for v in after parse; do
      n=q$r-$v; echo "=== $n $(date -u +%T)"
      VYRE_PROBE=1 VYRE_DEVICE=nvidia bench_zstd_$v $c --mib 1024 --runs 3 --cases frames64k --routes device > $OUT/$n.log 2>&1
      grep -a '^frames64k\|parse .* ms (' $OUT/$n.log; grep -a PROBE $OUT/$n.log | tail -2
    done
  done
  for fpd in 2112 8448 4224 6336; do
    n=fpd$fpd; echo "=== $n $(date -u +%T)"
    VYRE_DEVICE=nvidia bench_zstd_parse $c --mib 1024 --runs 3 --cases frames64k --routes device --frames-per-dispatch $fpd > $OUT/$n.log 2>&1
    grep -a '^frames64k' $OUT/$n.log
  done
  n=q-1m-parse; echo "=== $n $(date -u +%T)"
  VYRE_DEVICE=nvidia bench_zstd_parse $c --mib 1024 --runs 3 --cases frames1m --routes device,host > $OUT/$n.log 2>&1; grep -a '^frames1m' $OUT/$n.log
  VYRE_DEVICE=nvidia bench_zstd_parse $c --mib 1024 --runs 1 --cases frames64k --routes device --timeline > $OUT/t-parse.log 2>&1
  grep -a -A6 'timeline ->' $OUT/t-parse.log
  echo "=== bench_nvcomp $(date -u +%T)"; bench_nvcomp $c --mib 1024 --runs 3 --cases zstd --zstd-chunks 65536,1048576 > $OUT/nvcomp.log 2>&1; grep -a -v "^@result" $OUT/nvcomp.log | tail -3
fi
if [ "$mode" = fpd ]; then
  for r in 1 2 3; do
    for fpd in 4224 6336; do
      n=fpd$fpd-r$r; echo "=== $n $(date -u +%T)"
      VYRE_DEVICE=nvidia bench_zstd_parse $c --mib 1024 --runs 3 --cases frames64k --routes device --frames-per-dispatch $fpd > $OUT/$n.log 2>&1
      grep -a '^frames64k' $OUT/$n.log
    done
  done
  TESTS="test_format_zstd test_zstd_frames test_zstd_gpu" TEST_TIMEOUT=200 bash $0 tests
fi
if [ "$mode" = tests ]; then
  for t in ${TESTS:-test_zstd_frames}; do
    echo "=== $t $(date -u +%T)"
    (cd $repo && timeout ${TEST_TIMEOUT:-280} /tmp/r65bin/$t --log_level=test_suite > $OUT/$t.log 2>&1); echo "rc=$?"
    grep -a -E "No errors|failure|error:" $OUT/$t.log | tail -4
  done
fi
echo "=== end $(date -u +%T)"
