#!/bin/bash
# usage: run.sh MODE ; on the GPU machine, from the repository root, with NVIDIA's OpenCL driver registered
# tests: the zstd test programs on every OpenCL device; big: a 7.6 GB one-frame .tar.zst (windows);
# mid: a 1.28 GB one-frame .tar.zst, whole against windows of several sizes. In /dev/shm.
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
export LD_LIBRARY_PATH=$here/bin/lib
export PATH=$here/bin:$PATH
export VYRE_CACHE_DIR=/tmp/vyre-cache
V=$here/bin/vyre
Z=$here/bin/zstd
TIMEFORMAT='wall %R s'
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
w=/dev/shm/w; mkdir -p $w
mode=${1:-tests}
case $mode in
tests)
  [ -e /work/main ] || { mkdir -p /work && ln -s "$repo" /work/main; }
  for t in test_zstd_gpu test_zstd_frames; do
    echo "=== $t $(date -u +%H:%M:%S)"
    timeout 280 "$here/bin/$t" --log_level=test_suite > $OUT/$t.log 2>&1; echo "rc=$?"
    grep -a -E "No errors|failure|error:|Leaving test suite" $OUT/$t.log | tail -8
  done;;
big)
  cd $w
  src=/opt/torch/.venv/lib/python3.12/site-packages
  du -sh $src 2>/dev/null
  [ -s big.tar.zst ] || { tar cf - -C $(dirname $src) $(basename $src) 2>/dev/null | $Z -q -T0 -3 -o big.tar.zst; }
  ls -l big.tar.zst; $Z -lv big.tar.zst 2>/dev/null | grep -i "decompressed\|window\|check" | head -4
  $V decompress --timings -f big.tar.zst -o $w/v.tar 2>&1 | tail -12 # programs built
  for i in 1 2; do
    echo "== zstd -dc -T0 -o"; time $Z -q -dc -T0 big.tar.zst -o $w/z.tar -f
    echo "== vyre decompress"; time $V decompress --timings -f big.tar.zst -o $w/v.tar
  done
  echo "== vyre decompress --zstd-window 1073741824"; time $V decompress --timings --zstd-window 1073741824 -f big.tar.zst -o $w/v.tar
  cmp $w/z.tar $w/v.tar && echo same; rm -f $w/z.tar $w/v.tar
  for i in 1 2; do
    rm -rf $w/t $w/u; mkdir -p $w/t
    echo "== zstd -dc -T0 | tar x"; time ($Z -q -dc -T0 big.tar.zst | tar xf - -C $w/t)
    echo "== vyre unpack --no-recurse"; time $V unpack --timings --no-recurse --no-progress big.tar.zst -o $w/u 2>&1 | grep -v "refused:" | tail -3
  done
  diff -rq $w/t $w/u | head -5; echo "diff done"
  rm -rf $w/t $w/u;;
mid)
  cd $w
  sp=/opt/torch/.venv/lib/python3.12/site-packages
  [ -s mid.tar.zst ] || { tar cf - -C $sp torch numpy scipy 2>/dev/null | $Z -q -T0 -3 -o mid.tar.zst; }
  ls -l mid.tar.zst
  $V decompress --timings -f mid.tar.zst -o $w/v.tar > /dev/null 2>&1 # programs built
  $Z -q -dc mid.tar.zst -o $w/z.tar -f
  for i in 1 2 3; do
    echo "== zstd -dc -T0 -o"; time $Z -q -dc -T0 mid.tar.zst -o $w/z2.tar -f
    for win in 0 536870912 268435456 134217728; do
      echo "== vyre decompress --zstd-window $win"; time $V decompress --timings --zstd-window $win -f mid.tar.zst -o $w/v.tar
      cmp $w/z.tar $w/v.tar || echo DIFFERENT
    done
  done
  rm -f $w/z.tar $w/z2.tar $w/v.tar;;
final)
  cd $w
  sp=/opt/torch/.venv/lib/python3.12/site-packages
  [ -s mid.tar.zst ] || { tar cf - -C $sp torch numpy scipy 2>/dev/null | $Z -q -T0 -3 -o mid.tar.zst; }
  ls -l mid.tar.zst
  $V decompress --timings -f mid.tar.zst -o $w/v.tar > /dev/null 2>&1 # programs built
  for i in 1 2 3; do
    echo "== zstd -dc -T0 -o"; time $Z -q -dc -T0 mid.tar.zst -o $w/z.tar -f
    echo "== vyre decompress"; time $V decompress --timings -f mid.tar.zst -o $w/v.tar
  done
  cmp $w/z.tar $w/v.tar && echo same; rm -f $w/z.tar $w/v.tar
  for i in 1 2 3; do
    rm -rf $w/t $w/u; mkdir -p $w/t
    echo "== zstd -dc -T0 | tar x"; time ($Z -q -dc -T0 mid.tar.zst | tar xf - -C $w/t)
    echo "== vyre unpack --no-recurse"; time $V unpack --timings --no-recurse --no-progress mid.tar.zst -o $w/u 2>&1 | grep -v "refused:" | tail -3
  done
  diff -r $w/t $w/u > /dev/null && echo "trees same"
  rm -rf $w/t $w/u;;
esac
