#!/bin/bash
# usage: run.sh MODE ; from the repository root on the device machine, after . .device/r25/opencl-nvidia.sh
# The command line's fixed costs and one zstd -T0 frame, vyre against zstd, in /dev/shm.
set -u
here=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=$here/bin/lib
export VYRE_CACHE_DIR=/tmp/vyre-cache
V=$here/bin/vyre
Z=$here/bin/zstd
TIMEFORMAT='wall %R s'
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version,persistence_mode --format=csv,noheader; nproc
w=/dev/shm/w; mkdir -p $w; cd $w
[ -s inc.tar ] || tar cf inc.tar /usr/include 2>/dev/null
[ -s inc.tar.zst ] || $Z -q -T0 -3 inc.tar -o inc.tar.zst
[ -s s16.tar.zst ] || { head -c 16M inc.tar > s16.tar; $Z -q -3 s16.tar -o s16.tar.zst; }
ls -l inc.tar inc.tar.zst s16.tar.zst
mode=${1:-fixed}
case $mode in
fixed)
  echo "== process start"; for i in 1 2 3; do time $V --help >/dev/null; done
  echo "== vyre devices (every platform)"; for i in 1 2 3; do time $V devices >/dev/null; done
  nv=$(cat /etc/OpenCL/vendors/nvidia.icd)
  echo "== vyre devices (NVIDIA's driver alone)"; for i in 1 2 3; do time env OCL_ICD_VENDORS=/nonexistent OCL_ICD_FILENAMES=$nv $V devices >/dev/null; done
  env OCL_ICD_VENDORS=/nonexistent OCL_ICD_FILENAMES=$nv $V devices
  echo "== first decompress (programs built)"; time $V decompress --timings -f inc.tar.zst -o $w/v.tar
  cmp inc.tar v.tar && echo same
  for f in inc s16; do
    echo "== $f: zstd -dc -T0"; for i in 1 2 3; do time $Z -q -dc -T0 $f.tar.zst -o $w/z.tar -f; done
    echo "== $f: vyre decompress"; for i in 1 2 3; do time $V decompress --timings -f $f.tar.zst -o $w/v.tar; done
    echo "== $f: vyre decompress, NVIDIA's driver alone"; for i in 1 2; do time env OCL_ICD_VENDORS=/nonexistent OCL_ICD_FILENAMES=$nv $V decompress --timings -f $f.tar.zst -o $w/v.tar; done
    echo "== $f: vyre decompress --route host"; for i in 1 2; do time $V decompress --timings --route host -f $f.tar.zst -o $w/v.tar; done
  done
  echo "== unpack"
  for i in 1 2; do
    rm -rf $w/t $w/u; mkdir -p $w/t
    echo "zstd | tar x"; time ($Z -q -dc -T0 inc.tar.zst | tar xf - -C $w/t)
    echo "vyre unpack"; time $V unpack --no-progress inc.tar.zst -o $w/u | tail -2
  done;;
unpack)
  nv=$(cat /etc/OpenCL/vendors/nvidia.icd)
  echo "== inc: vyre decompress"; for i in 1 2 3; do time $V decompress --timings -f inc.tar.zst -o $w/v.tar; done
  cmp inc.tar v.tar && echo same
  echo "== inc: zstd -dc -T0"; for i in 1 2; do time $Z -q -dc -T0 inc.tar.zst -o $w/z.tar -f; done
  echo "== s16: vyre decompress"; for i in 1 2; do time $V decompress --timings -f s16.tar.zst -o $w/v.tar; done
  for i in 1 2 3; do
    rm -rf $w/t $w/u; mkdir -p $w/t
    echo "zstd | tar x"; time ($Z -q -dc -T0 inc.tar.zst | tar xf - -C $w/t)
    echo "vyre unpack"; time $V unpack --timings --no-progress inc.tar.zst -o $w/u 2>&1 | tail -2
  done
  rm -rf $w/u; echo "vyre unpack --no-recurse"; time $V unpack --timings --no-recurse --no-progress inc.tar.zst -o $w/u 2>&1 | tail -2
  rm -rf $w/u; echo "vyre unpack --no-recurse, NVIDIA alone"; time env OCL_ICD_VENDORS=/nonexistent OCL_ICD_FILENAMES=$nv $V unpack --timings --no-recurse --no-progress inc.tar.zst -o $w/u 2>&1 | tail -2
  echo "vyre unpack --list"; time $V unpack --timings --list --no-recurse --no-progress inc.tar.zst 2>&1 >/dev/null | tail -1
  echo "tar t"; time ($Z -q -dc -T0 inc.tar.zst | tar tf - >/dev/null)
  diff -r $w/t/usr $w/u/usr | head -5;;
big)
  src=/opt/torch/.venv/lib/python3.12/site-packages
  du -sh $src 2>/dev/null
  [ -s big.tar.zst ] || { tar cf - -C $(dirname $src) $(basename $src) 2>/dev/null | $Z -q -T0 -3 -o big.tar.zst; }
  ls -l big.tar.zst; $Z -lv big.tar.zst 2>/dev/null | grep -i "decompressed\|blocks\|frames" | head -3
  $V decompress --timings -f big.tar.zst -o $w/v.tar > /dev/null 2>&1 # programs built
  for i in 1 2; do
    echo "== zstd -dc -T0 -o"; time $Z -q -dc -T0 big.tar.zst -o $w/z.tar -f
    echo "== vyre decompress"; time $V decompress --timings -f big.tar.zst -o $w/v.tar
  done
  cmp $w/z.tar $w/v.tar && echo same; rm -f $w/z.tar $w/v.tar
  for i in 1 2; do
    rm -rf $w/t $w/u; mkdir -p $w/t
    echo "== zstd -dc -T0 | tar x"; time ($Z -q -dc -T0 big.tar.zst | tar xf - -C $w/t)
    echo "== vyre unpack --no-recurse"; time $V unpack --timings --no-recurse --no-progress big.tar.zst -o $w/u 2>&1 | grep -v "refused:" | tail -2
  done
  diff -rq $w/t $w/u | head -5; echo "diff rc done"
  rm -rf $w/t $w/u
  echo "== vyre unpack (nested archives opened too)"; time $V unpack --timings --no-progress big.tar.zst -o $w/u 2>&1 | grep -v "refused:" | tail -2
  rm -rf $w/u;;
mid)
  sp=/opt/torch/.venv/lib/python3.12/site-packages
  du -sh $sp/torch $sp/numpy $sp/scipy 2>/dev/null
  [ -s mid.tar.zst ] || { tar cf - -C $sp torch numpy scipy 2>/dev/null | $Z -q -T0 -3 -o mid.tar.zst; }
  ls -l mid.tar.zst
  $V decompress --timings -f mid.tar.zst -o $w/v.tar > /dev/null 2>&1 # programs built
  for i in 1 2; do
    echo "== zstd -dc -T0 -o"; time $Z -q -dc -T0 mid.tar.zst -o $w/z.tar -f
    echo "== vyre decompress"; time $V decompress --timings -f mid.tar.zst -o $w/v.tar
  done
  cmp $w/z.tar $w/v.tar && echo same; rm -f $w/z.tar $w/v.tar
  for i in 1 2 3; do
    rm -rf $w/t $w/u; mkdir -p $w/t
    echo "== zstd -dc -T0 | tar x"; time ($Z -q -dc -T0 mid.tar.zst | tar xf - -C $w/t)
    echo "== vyre unpack --no-recurse"; time $V unpack --timings --no-recurse --no-progress mid.tar.zst -o $w/u 2>&1 | grep -v "refused:" | tail -2
  done
  diff -r $w/t $w/u > /dev/null && echo "trees same"
  rm -rf $w/t $w/u
  echo "== vyre unpack (nested archives opened too)"; time $V unpack --timings --no-progress mid.tar.zst -o $w/u 2>&1 | grep -v "refused:" | tail -2
  rm -rf $w/u;;
trace)
  sp=/opt/torch/.venv/lib/python3.12/site-packages
  [ -s mid.tar.zst ] || { tar cf - -C $sp torch numpy scipy 2>/dev/null | $Z -q -T0 -3 -o mid.tar.zst; }
  $V decompress -f mid.tar.zst -o $w/v.tar > /dev/null 2>&1 # programs built
  for i in 1 2; do
    echo "== vyre decompress"; time VYRE_TRACE_TMP=1 $V decompress --timings -f mid.tar.zst -o $w/v.tar
    rm -rf $w/u; echo "== vyre unpack --no-recurse"; time VYRE_TRACE_TMP=1 $V unpack --timings --no-recurse --no-progress mid.tar.zst -o $w/u 2>&1 | grep -v "refused:" | tail -30
  done
  rm -rf $w/u $w/v.tar;;
esac
