#!/bin/bash
# usage: run.sh MODE (s55tests, s55deflate, s55b, s55huge, s55lz4): from the repository root on the
# device machine, in a folder beside its binaries (bin/, tests55/), after . ./opencl-nvidia.sh
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
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
echo "ncu: $NCU"
ptx() { # ptx ENTRY NAME: the cached PTX of the kernel ENTRY through ptxas and cuobjdump
  f=$(grep -l ".entry $1" $VYRE_CACHE_DIR/*.bin 2>/dev/null | head -1)
  [ -n "$f" ] || { echo "no PTX for $1"; return; }
  cp $f $OUT/$2.ptx
  ptxas -arch=sm_90 -v $f -o /tmp/$2.cubin > $OUT/$2-ptxas.txt 2>&1; cat $OUT/$2-ptxas.txt | grep -a "registers\|spill"
  cuobjdump -sass /tmp/$2.cubin > $OUT/$2.sass 2>&1; wc -l $OUT/$2.sass
}
prof() { # prof NAME KERNEL-REGEX COMMAND...: one launch of the kernel under ncu
  name=$1; k=$2; shift 2
  timeout 200 $NCU --clock-control none -k regex:$k -c 1 --section WarpStateStats --section SourceCounters --section SchedulerStats \
    --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
    -o $OUT/$name -f "$@" > $OUT/$name-run.txt 2>&1; echo "ncu $name rc=$?"; tail -3 $OUT/$name-run.txt
  [ -s $OUT/$name.ncu-rep ] || return
  $NCU -i $OUT/$name.ncu-rep --page details > $OUT/$name-details.txt 2>&1
  $NCU -i $OUT/$name.ncu-rep --page source --csv --print-source sass > $OUT/$name-source.csv 2>&1
  grep -a -i "stall\|warp cycles\|issued\|occupancy\|registers" $OUT/$name-details.txt | head -40
}
if [ "$mode" = s55 ] || [ "$mode" = s55tests ]; then
  # this build's tests on both platforms, then deflate. (The blocks of nearly 4 GiB were meant for PoCL; that build
  # ran them on CPU devices only, and PoCL allocates at most 2 GiB: they were left out everywhere, as was the
  # mutation check below. s55huge ran them on the NVIDIA device.)
  # HEAD (bench_deflate_x) against four-byte loads from one pointer (bench_deflate_a) and from two aligned words (bench_deflate_b)
  repo=$(cd "$here/../.." && pwd)
  mkdir -p /tmp/r34t; rm -f /tmp/r34t/*
  for t in $here/tests55/*.zst; do zstd -q -d -f "$t" -o /tmp/r34t/$(basename "$t" .zst); chmod +x /tmp/r34t/$(basename "$t" .zst); done
  for t in /tmp/r34t/*; do
    n=$(basename $t); echo "=== $n $(date -u +%H:%M:%S)"
    (cd $repo && timeout 300 $t --log_level=test_suite > $OUT/$n.log 2>&1); echo "rc=$?"
    grep -a -E "No errors|failure|error:|left out" $OUT/$n.log | tail -6
  done
fi
if [ "$mode" = s55 ] || [ "$mode" = s55deflate ]; then
  export VYRE_DEVICE=nvidia
  head -c $((64<<20)) /dev/urandom > /dev/shm/rnd.bin
  for b in bench_deflate_x bench_deflate_a bench_deflate_b; do
    echo "=== random bytes, $b"; $b /dev/shm/rnd.bin --mib 64 --block-sizes 65536,1048576 --runs 3 --variant fast --no-zlib --kernel-only 2>&1 | grep -a "^64 KiB\|^1 MiB\|rror\|fail"
  done
  for r in 1 2; do
    for b in bench_deflate_x bench_deflate_a bench_deflate_b; do
      echo "=== corpus round $r $b"; $b $c --mib 1024 --block-sizes 65536,1048576 --runs 3 --variant fast --no-zlib 2>&1 | grep -a "^64 KiB\|^1 MiB\|rror\|fail"
    done
  done
  unset VYRE_DEVICE
fi
if [ "$mode" = s55b ]; then
  # zstd frames: HEAD against A and B; LZ4 kernel: HEAD against the wrap-safe copy steps; nvCOMP
  export VYRE_DEVICE=nvidia
  for r in 1 2; do
    for b in bench_zstd-before bench_zstd_a; do
      echo "=== round $r $b"; $b $c --mib 1024 --runs 3 --cases frames64k,frames1m --routes device 2>&1 | grep -av "^@result\|^#"
    done
    for b in bench_lz4 bench_lz4_w; do
      echo "=== round $r $b"; $b $c --mib 1024 --block-sizes 4096,65536,262144 --runs 3 --variants fast --kernel-only 2>&1 | grep -av "^@result"
    done
  done
  unset VYRE_DEVICE
fi
if [ "$mode" = s55 ] || [ "$mode" = s55tests ]; then
  # the huge-block test with strided_next reverted to a plain addition: it must not end (PoCL)
  zstd -q -d -f $here/mut_deflate.zst -o /tmp/mut_deflate; chmod +x /tmp/mut_deflate
  echo "=== mutation $(date -u +%H:%M:%S)"
  (cd $repo && VYRE_DEVICES=Portable timeout 120 /tmp/mut_deflate --run_test='*/flagged_block_of_nearly_4_gib_is_copied_whole' --log_level=test_suite > $OUT/mutation.log 2>&1); echo "mutation rc=$? (124: did not end)"
  tail -5 $OUT/mutation.log; echo "=== end $(date -u +%H:%M:%S)"
fi
if [ "$mode" = s55huge ]; then
  # the blocks of nearly 4 GiB on the NVIDIA GPU, then the deflate one with strided_next reverted (it must not end)
  repo=$(cd "$here/../.." && pwd)
  mkdir -p /tmp/r34t; rm -f /tmp/r34t/*
  for t in $here/tests55/*.zst $here/mut_deflate.zst; do zstd -q -d -f "$t" -o /tmp/r34t/$(basename "$t" .zst); chmod +x /tmp/r34t/$(basename "$t" .zst); done
  cd $repo
  echo "=== deflate $(date -u +%T)"; VYRE_DEVICES=NVIDIA timeout 150 /tmp/r34t/test_deflate_gpu --run_test='*/flagged_block_of_nearly_4_gib_is_copied_whole' --log_level=test_suite > $OUT/huge_deflate.log 2>&1; echo "rc=$?"
  grep -a "testing time\|error\|left out\|No errors" $OUT/huge_deflate.log | tail -4
  echo "=== lz4 $(date -u +%T)"; VYRE_DEVICES=NVIDIA timeout 200 /tmp/r34t/test_lz4_gpu --run_test='*/blocks_of_nearly_4_gib_are_decoded_whole' --log_level=test_suite > $OUT/huge_lz4.log 2>&1; echo "rc=$?"
  grep -a "testing time\|error\|left out\|No errors" $OUT/huge_lz4.log | tail -4
  echo "=== mutation $(date -u +%T)"; VYRE_DEVICES=NVIDIA timeout 60 /tmp/r34t/mut_deflate --run_test='*/flagged_block_of_nearly_4_gib_is_copied_whole' --log_level=test_suite > $OUT/mutation.log 2>&1; echo "mutation rc=$? (124: did not end)"
  tail -3 $OUT/mutation.log; nvidia-smi --query-gpu=name,utilization.gpu,memory.used --format=csv,noheader; echo "=== end $(date -u +%T)"
fi
if [ "$mode" = s55lz4 ]; then
  repo=$(cd "$here/../.." && pwd)
  mkdir -p /tmp/r34t; rm -f /tmp/r34t/*
  zstd -q -d -f $here/tests55/test_lz4_gpu.zst -o /tmp/r34t/test_lz4_gpu; chmod +x /tmp/r34t/test_lz4_gpu
  cd $repo
  echo "=== lz4 $(date -u +%T)"; VYRE_DEVICES=NVIDIA timeout 240 /tmp/r34t/test_lz4_gpu --run_test='*/blocks_of_nearly_4_gib_are_decoded_whole' --log_level=test_suite > $OUT/huge_lz4.log 2>&1; echo "rc=$?"
  grep -a "testing time\|error\|left out\|No errors\|fast program" $OUT/huge_lz4.log | tail -5; echo "=== end $(date -u +%T)"
fi
