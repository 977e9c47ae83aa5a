#!/bin/bash
# usage: run.sh MODE ; from the repository root on the device machine, after . .device/r33/opencl-nvidia.sh
# ext, ext2: the LZ4 measurements of 2026-12-01 (two designs for taking the remaining sequences in one step,
# each against the build before it); tests: the test binaries carried
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/r33lib; for z in $here/bin/lib/*.zst; do [ -e "$z" ] && $here/bin/zstd -q -d -f "$z" -o /tmp/r33lib/$(basename "$z" .zst); done
export LD_LIBRARY_PATH=$here/bin/lib:/tmp/r33lib
export PATH=$here/bin:$PATH
export VYRE_CACHE_DIR=/tmp/vyre-cache
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc
sp=/opt/torch/.venv/lib/python3.12/site-packages
c=/dev/shm/corpus.tar
[ -s $c ] || (tar cf - /usr/include /usr/share/doc $sp/torch/lib 2>/dev/null | head -c $((1100<<20)) > $c)
ls -l $c
mode=${1:-profile}
if [ "$mode" = tests ]; then
  repo=$(cd "$here/../.." && pwd)
  mkdir -p /tmp/r33t
  rm -f /tmp/r33t/*; for t in $here/tests/*.zst; do zstd -q -d -f "$t" -o /tmp/r33t/$(basename "$t" .zst); chmod +x /tmp/r33t/$(basename "$t" .zst); done
  for t in /tmp/r33t/*; do
    n=$(basename $t); echo "=== $n $(date -u +%H:%M:%S)"
    (cd $repo && timeout 280 $t --log_level=test_suite > $OUT/$n.log 2>&1); echo "rc=$?"
    grep -a -E "No errors|failure|error:" $OUT/$n.log | tail -4
  done
fi
if [ "$mode" = ext ]; then
  # LZ4: the one step taking extended, long and overlapping matches (bench_lz4) against the build before (bench_lz4-before), alternating; nvCOMP; e2e; emulation
  for r in 1 2; do
    for src in "$c" "--synthetic compressible" "--synthetic incompressible"; do
      for b in bench_lz4-before bench_lz4; do
        echo "=== round $r $src $b"; VYRE_DEVICE=nvidia timeout 100 $b $src --mib 1024 --block-sizes 4096,65536,262144 --runs 3 --variants fast --kernel-only 2>&1 | grep -a "^ *[0-9]* *[0-9]* *[0-9.]* fast"
      done
    done
  done
  for src in "$c" "--synthetic compressible" "--synthetic incompressible"; do
    echo "=== $src nvcomp"; timeout 100 bench_nvcomp $src --mib 1024 --runs 3 --cases lz4 --block-sizes 4096,65536,262144 2>&1 | grep -a "^ *[0-9]"
  done
  echo "=== e2e"; VYRE_DEVICE=nvidia timeout 150 bench_lz4 $c --mib 1024 --block-sizes 4096,65536,262144 --runs 5 --variants fast --emulated --timeline 2>&1 | grep -v "^@result"
  for f in $VYRE_CACHE_DIR/*.bin; do grep -q ".entry compression_lz4_fast" $f && cp $f $OUT/; done
fi
if [ "$mode" = ext2 ]; then
  # LZ4: a second one-step branch for extended, long and overlapping matches (bench_lz4) against the build before (bench_lz4-before), alternating; nvCOMP
  for r in 1 2; do
    for src in "$c" "--synthetic compressible"; do
      for b in bench_lz4-before bench_lz4; do
        echo "=== round $r $src $b"; VYRE_DEVICE=nvidia timeout 100 $b $src --mib 1024 --block-sizes 65536,262144 --runs 3 --variants fast --kernel-only 2>&1 | grep -a "^ *[0-9]* *[0-9]* *[0-9.]* fast"
      done
    done
  done
  for src in "$c" "--synthetic compressible"; do
    echo "=== $src nvcomp"; timeout 100 bench_nvcomp $src --mib 1024 --runs 3 --cases lz4 --block-sizes 262144 2>&1 | grep -a "^ *[0-9]"
  done
fi
