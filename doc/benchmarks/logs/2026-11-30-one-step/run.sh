#!/bin/bash
# usage: run.sh MODE ; from the repository root on the device machine, after . .device/r33/opencl-nvidia.sh
# copy, step, final, synth, unroll, repeat, e2e: the LZ4 measurements of 2026-11-30 evening; tests: the test binaries carried
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
mode=${1:-final}
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
if [ "$mode" = copy ]; then
  # LZ4 copies unrolled only past one pass, per launch shape; restrict on read-only buffers (the *_rx builds); e2e with growing pieces
  export VYRE_DEVICE=nvidia
  for b in bench_lz4 bench_lz4_rx; do
    echo "=== $b 4K"; timeout 100 $b $c --mib 1024 --block-sizes 4096 --runs 3 --variants fast --kernel-only --lanes 8 --blocks 8 --unrolls 1,2,4,8 2>&1 | grep -a "fast"
    echo "=== $b 64K"; timeout 100 $b $c --mib 1024 --block-sizes 65536 --runs 3 --variants fast --kernel-only --lanes 16 --blocks 4 --unrolls 1,2,4,8 2>&1 | grep -a "fast"
    echo "=== $b 256K"; timeout 100 $b $c --mib 1024 --block-sizes 262144 --runs 3 --variants fast --kernel-only --lanes 32 --blocks 2 --unrolls 1,2,4,8 2>&1 | grep -a "fast"
  done
  echo "=== e2e"; timeout 120 bench_lz4 $c --mib 1024 --block-sizes 65536 --runs 5 --variants fast --timeline 2>&1 | grep -v "^@result"
  for b in bench_deflate bench_deflate_rx; do
    echo "=== $b"; timeout 100 $b $c --mib 1024 --block-sizes 65536,1048576 --runs 3 --variant fast --no-zlib --kernel-only 2>&1 | grep -a "^64 KiB\|^1 MiB"
  done
  for b in bench_zstd bench_zstd_rx; do
    echo "=== $b"; timeout 100 $b $c --mib 1024 --runs 3 --cases frames64k,frames1m --routes device 2>&1 | grep -v "^@result\|^#"
  done
  for f in $VYRE_CACHE_DIR/*.bin; do grep -q ".entry compression_lz4_fast" $f && cp $f $OUT/; done
fi
if [ "$mode" = step ]; then
  # LZ4: short sequences in one step (bench_lz4) against the build before (bench_lz4-before), alternating; shapes; e2e; nvCOMP
  export VYRE_DEVICE=nvidia
  for r in 1 2; do
    for b in bench_lz4-before bench_lz4; do
      echo "=== round $r $b"; timeout 100 $b $c --mib 1024 --block-sizes 4096,65536,262144 --runs 3 --variants fast --kernel-only 2>&1 | grep -a "^ *[0-9]* *[0-9]* *[0-9.]* fast"
    done
  done
  echo "=== shapes"; timeout 120 bench_lz4 $c --mib 1024 --block-sizes 65536,262144 --runs 3 --variants fast --kernel-only --lanes 16,32 --blocks 2,4 --emulated 2>&1 | grep -v "^@result"
  echo "=== e2e"; timeout 150 bench_lz4 $c --mib 1024 --block-sizes 4096,65536,262144 --runs 5 --variants fast --timeline 2>&1 | grep -v "^@result"
  unset VYRE_DEVICE
  echo "=== bench_nvcomp"; timeout 120 bench_nvcomp $c --mib 1024 --runs 3 --cases lz4 --block-sizes 4096,65536,262144 2>&1 | grep -v "^@result"
  for f in $VYRE_CACHE_DIR/*.bin; do grep -q ".entry compression_lz4_fast" $f && cp $f $OUT/; done
fi
if [ "$mode" = final ]; then
  # LZ4 with the one-step path at 32 lanes: the build before (kernel only) and this one (kernel, e2e, emulation), nvCOMP in the same call
  export VYRE_DEVICE=nvidia
  echo "=== before"; timeout 100 bench_lz4-before $c --mib 1024 --block-sizes 4096,65536,262144 --runs 3 --variants fast --kernel-only 2>&1 | grep -a "^ *[0-9]* *[0-9]* *[0-9.]* fast"
  echo "=== bench_lz4"; timeout 200 bench_lz4 $c --mib 1024 --block-sizes 4096,65536,262144 --runs 5 --variants fast --emulated --timeline 2>&1 | grep -v "^@result"
  echo "=== before again"; timeout 100 bench_lz4-before $c --mib 1024 --block-sizes 4096,65536,262144 --runs 3 --variants fast --kernel-only 2>&1 | grep -a "^ *[0-9]* *[0-9]* *[0-9.]* fast"
  unset VYRE_DEVICE
  echo "=== bench_nvcomp"; timeout 120 bench_nvcomp $c --mib 1024 --runs 3 --cases lz4 --block-sizes 4096,65536,262144 2>&1 | grep -v "^@result"
fi
if [ "$mode" = synth ]; then
  # the two synthetic sets: the build before and this one (kernel only), nvCOMP in the same call
  for set in compressible incompressible; do
    for b in bench_lz4-before bench_lz4; do
      echo "=== $set $b"; VYRE_DEVICE=nvidia timeout 100 $b --synthetic $set --mib 1024 --block-sizes 4096,65536,262144 --runs 3 --variants fast --kernel-only 2>&1 | grep -a "^ *[0-9]* *[0-9]* *[0-9.]* fast"
    done
    echo "=== $set bench_nvcomp"; timeout 100 bench_nvcomp --synthetic $set --mib 1024 --runs 3 --cases lz4 --block-sizes 4096,65536,262144 2>&1 | grep -v "^@result"
  done
fi
if [ "$mode" = unroll ]; then
  # 32 lanes, 2 blocks per workgroup, copies past one pass unrolled 1, 2 or 4 bytes per lane per step; nvCOMP in the same call
  export VYRE_DEVICE=nvidia
  for src in "$c" "--synthetic compressible"; do
    echo "=== $src"; timeout 150 bench_lz4 $src --mib 1024 --block-sizes 65536,262144 --runs 3 --variants fast --kernel-only --lanes 32 --blocks 2 --unrolls 1,2,4 2>&1 | grep -a "^ *[0-9]* *[0-9]* *[0-9.]* fast"
    echo "=== $src nvcomp"; VYRE_DEVICE= timeout 100 bench_nvcomp $src --mib 1024 --runs 3 --cases lz4 --block-sizes 65536,262144 2>&1 | grep -a "^ *[0-9]"
  done
fi
if [ "$mode" = repeat ]; then
  # overlapping matches stepping their pattern position (bench_lz4) against the build before (bench_lz4-step), alternating; nvCOMP; tests
  for r in 1 2; do
    for src in "$c" "--synthetic compressible"; do
      for b in bench_lz4-step bench_lz4; do
        echo "=== round $r $src $b"; VYRE_DEVICE=nvidia timeout 100 $b $src --mib 1024 --block-sizes 4096,65536,262144 --runs 3 --variants fast --kernel-only 2>&1 | grep -a "^ *[0-9]* *[0-9]* *[0-9.]* fast"
      done
    done
  done
  for src in "$c" "--synthetic compressible"; do
    echo "=== $src nvcomp"; timeout 100 bench_nvcomp $src --mib 1024 --runs 3 --cases lz4 --block-sizes 4096,65536,262144 2>&1 | grep -a "^ *[0-9]"
  done
fi
if [ "$mode" = e2e ]; then
  # end to end at 4, 64 and 256 KiB with the committed build, twice
  export VYRE_DEVICE=nvidia
  for r in 1 2; do
    echo "=== round $r"; timeout 200 bench_lz4 $c --mib 1024 --block-sizes 4096,65536,262144 --runs 5 --variants fast 2>&1 | grep -v "^@result"
  done
fi
