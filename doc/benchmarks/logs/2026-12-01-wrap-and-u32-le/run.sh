#!/bin/bash
# usage: run.sh MODE ; from the repository root on the device machine, after . .device/r33/opencl-nvidia.sh
# profile: the deflate and LZ4 kernels under Nsight Compute (warp states, per-instruction stalls),
#          their PTX through ptxas (registers) and SASS; the baseline figures and nvCOMP's, same call.
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
case $mode in
profile)
  export VYRE_DEVICE=nvidia
  prof deflate64k compression_deflate_fast bench_deflate $c --mib 256 --block-sizes 65536 --runs 1 --variant fast --kernel-only --no-zlib
  prof deflate1m compression_deflate_fast bench_deflate $c --mib 256 --block-sizes 1048576 --runs 1 --variant fast --kernel-only --no-zlib
  prof lz4_256k compression_lz4_fast bench_lz4 $c --mib 256 --block-sizes 262144 --runs 1 --variants fast --kernel-only
  ptx compression_deflate_fast deflate
  ptx compression_lz4_fast lz4
  echo "=== bench_deflate"; bench_deflate $c --mib 1024 --block-sizes 65536,1048576 --runs 3 --variant fast --no-zlib 2>&1 | grep -v "^@result"
  echo "=== bench_lz4"; bench_lz4 $c --mib 1024 --block-sizes 4096,65536,262144 --runs 3 --variants fast 2>&1 | grep -v "^@result"
  unset VYRE_DEVICE
  echo "=== bench_nvcomp"; bench_nvcomp $c --mib 1024 --runs 3 --cases deflate,lz4 --deflate-blocks 65536,1048576 --block-sizes 4096,65536,262144 --deflate-compressors libdeflate 2>&1 | grep -v "^@result";;
bench)
  # bench [deflate-args]: the deflate figures of this build
  export VYRE_DEVICE=nvidia
  shift; bench_deflate $c "$@" 2>&1 | grep -v "^@result";;
esac
if [ "$mode" = unchecked ]; then
  # the same programs with and without bounds tests on loads and stores (VYRE_EXPERIMENT_UNCHECKED), alternating
  export VYRE_DEVICE=nvidia
  for r in 1 2; do
    for u in 0 1; do
      if [ $u = 1 ]; then export VYRE_EXPERIMENT_UNCHECKED=1; else unset VYRE_EXPERIMENT_UNCHECKED; fi
      echo "=== round $r unchecked=$u"
      bench_deflate $c --mib 1024 --block-sizes 65536,1048576 --runs 3 --variant fast --no-zlib --kernel-only 2>&1 | grep -a "^64 KiB\|^1 MiB"
      bench_lz4 $c --mib 1024 --block-sizes 65536,262144 --runs 3 --variants fast --kernel-only 2>&1 | grep -a "^ *[0-9]* *[0-9]* *1\.[0-9]* fast"
    done
  done
  for f in $VYRE_CACHE_DIR/*.bin; do grep -q ".entry compression_deflate_fast" $f && cp $f $OUT/; done
fi
if [ "$mode" = after ]; then
  export VYRE_DEVICE=nvidia
  echo "=== bench_deflate"; bench_deflate $c --mib 1024 --block-sizes 65536,1048576 --runs 3 --variant fast --no-zlib 2>&1 | grep -v "^@result"
  echo "=== bench_lz4"; bench_lz4 $c --mib 1024 --block-sizes 4096,65536,262144 --runs 3 --variants fast 2>&1 | grep -v "^@result"
  unset VYRE_DEVICE
  echo "=== bench_nvcomp"; bench_nvcomp $c --mib 1024 --runs 3 --cases deflate,lz4 --deflate-blocks 65536,1048576 --block-sizes 4096,65536,262144 --deflate-compressors libdeflate 2>&1 | grep -v "^@result"
  for f in $VYRE_CACHE_DIR/*.bin; do grep -q ".entry compression_deflate_fast\|.entry compression_lz4_fast" $f && cp $f $OUT/; done
fi
if [ "$mode" = tests ] || [ "$mode" = after ] || [ "$mode" = zstd ]; then
  repo=$(cd "$here/../.." && pwd)
  mkdir -p /tmp/r33t
  rm -f /tmp/r33t/*; for t in $here/tests/*.zst; do zstd -q -d -f "$t" -o /tmp/r33t/$(basename "$t" .zst); chmod +x /tmp/r33t/$(basename "$t" .zst); done
  for t in /tmp/r33t/*; do
    n=$(basename $t); echo "=== $n $(date -u +%H:%M:%S)"
    (cd $repo && timeout 300 $t --log_level=test_suite > $OUT/$n.log 2>&1); echo "rc=$?"
    grep -a -E "No errors|failure|error:" $OUT/$n.log | tail -4
  done
fi
if [ "$mode" = sweep ]; then
  # fixed shapes of the programs with their accesses unchecked, kernel only
  export VYRE_DEVICE=nvidia
  echo "=== bench_lz4 shapes"; bench_lz4 $c --mib 1024 --block-sizes 65536,262144 --runs 3 --variants fast --kernel-only \
     --lanes 16,32 --windows 0,4096 --blocks 2,4 --stages 0,128 --emulated 2>&1 | grep -v "^@result"
  echo "=== bench_deflate shapes"; bench_deflate $c --mib 512 --block-sizes 65536,1048576 --runs 3 --variant fast --kernel-only --no-zlib \
     --shapes 32:4:10:8,32:2:10:8,32:8:10:8,32:4:9:7,32:4:11:8,16:4:10:8,16:8:10:8 2>&1 | grep -v "^@result"
fi
if [ "$mode" = zstd ]; then
  export VYRE_DEVICE=nvidia
  for r in 1 2; do
    for b in bench_zstd-before bench_zstd; do
      echo "=== round $r $b"; $b $c --mib 1024 --runs 3 --cases frames64k,frames1m --routes device 2>&1 | grep -v "^@result\|^#"
    done
  done
  unset VYRE_DEVICE
  echo "=== bench_nvcomp"; bench_nvcomp $c --mib 1024 --runs 3 --cases zstd --zstd-chunks 65536,1048576 2>&1 | grep -v "^@result"
fi
if [ "$mode" = fuzz ]; then
  # fuzz_device's block mode on the NVIDIA device, the interpreter half included (byte 0 bit 3)
  zstd -q -d -f $here/bin/fuzz_device.zst -o /tmp/fuzz_device && chmod +x /tmp/fuzz_device
  repo=$(cd "$here/../.." && pwd)
  mkdir -p /tmp/fz; cd /tmp
  # NVIDIA's driver maps memory where AddressSanitizer keeps its shadow gap
  export ASAN_OPTIONS=protect_shadow_gap=0:detect_leaks=0
  for k in 1 2 3 4; do
    mkdir -p /tmp/fz$k
    VYRE_DEVICE=nvidia VYRE_FUZZ_DEVICE=blocks VYRE_FUZZ_FAILURES=$OUT timeout 300 /tmp/fuzz_device -seed=$k -max_total_time=${2:-150} -timeout=60 \
       /tmp/fz$k $repo/fuzz/corpus/device > $OUT/fuzz$k-nvidia.log 2>&1 &
  done
  wait
  for k in 1 2 3 4; do echo "== process $k"; tail -4 $OUT/fuzz$k-nvidia.log; done
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
if [ "$mode" = sweep256 ]; then
  # LZ4 at 256 KiB: 32 lanes, 1/2/4 blocks per workgroup, with and without the 4096-byte window; nvCOMP
  for src in "$c" "--synthetic compressible"; do
    echo "=== $src"; VYRE_DEVICE=nvidia timeout 200 bench_lz4 $src --mib 1024 --block-sizes 262144 --runs 3 --variants fast --kernel-only --lanes 32 --blocks 1,2,4 --windows 0,4096 2>&1 | grep -v "^@result"
    echo "=== $src nvcomp"; timeout 100 bench_nvcomp $src --mib 1024 --runs 3 --cases lz4 --block-sizes 262144 2>&1 | grep -a "^ *[0-9]"
  done
fi
if [ "$mode" = deflate ]; then
  # compression.deflate after the end-of-block length read moved under its test: the build before and this one, alternating, kernel only
  export VYRE_DEVICE=nvidia
  for r in 1 2; do
    for b in bench_deflate-before bench_deflate; do
      echo "=== round $r $b"; timeout 120 $b $c --mib 1024 --block-sizes 65536,1048576 --runs 3 --variant fast --no-zlib --kernel-only 2>&1 | grep -a "^64 KiB\|^1 MiB"
    done
  done
fi

if [ "$mode" = probe ]; then
  # where compression.deflate.fast's time goes: ncu on this build, then variants that leave parts out
  export VYRE_DEVICE=nvidia
  prof deflate1m compression_deflate_fast bench_deflate $c --mib 256 --block-sizes 1048576 --runs 1 --variant fast --kernel-only --no-zlib
  prof deflate64k compression_deflate_fast bench_deflate $c --mib 256 --block-sizes 65536 --runs 1 --variant fast --kernel-only --no-zlib
  ptx compression_deflate_fast deflate
  for x in "" noload nocopy nolit decodeonly ""; do
    echo "=== experiment '$x'"
    VYRE_EXPERIMENT_DEFLATE=$x bench_deflate_x $c --mib 1024 --block-sizes 65536,1048576 --runs 3 --variant fast --no-zlib --kernel-only 2>&1 | grep -a "^64 KiB\|^1 MiB\|rror\|fail"
  done
fi
if [ "$mode" = probe2 ]; then
  export VYRE_DEVICE=nvidia
  for x in "" ahead2 ahead2-decodeonly "" ahead2; do
    echo "=== experiment '$x'"
    VYRE_EXPERIMENT_DEFLATE=$x bench_deflate_x $c --mib 1024 --block-sizes 65536,1048576 --runs 3 --variant fast --no-zlib --kernel-only 2>&1 | grep -a "^64 KiB\|^1 MiB\|rror\|fail"
  done
fi
if [ "$mode" = runs ]; then
  # the build of HEAD (bench_deflate) against this change (bench_deflate_x), alternating, kernel only
  export VYRE_DEVICE=nvidia
  for r in 1 2; do
    for b in bench_deflate bench_deflate_x; do
      echo "=== round $r $b"
      $b $c --mib 1024 --block-sizes 65536,1048576 --runs 3 --variant fast --no-zlib --kernel-only 2>&1 | grep -a "^64 KiB\|^1 MiB\|rror\|fail"
    done
  done
fi
if [ "$mode" = tables ]; then
  # table bits at 1 MiB and 64 KiB: does the canonical walk of long codes set the slowest streams?
  export VYRE_DEVICE=nvidia
  bench_deflate $c --mib 1024 --block-sizes 65536,1048576 --runs 3 --variant fast --no-zlib --kernel-only \
    --shapes 32:4:10:8,32:4:11:8,32:4:12:8,32:4:12:10,32:4:10:10,32:2:12:10 2>&1 | grep -av "^@"
fi
if [ "$mode" = slices ]; then
  # the kernel on 8 streams of 1 MiB at a time, from slices across the corpus: how fast is each part?
  export VYRE_DEVICE=nvidia
  for k in 0 64 128 192 256 320 384 448 512 576 640 704 768 832 896 960 1016; do
    dd if=$c of=/dev/shm/slice bs=1M skip=$k count=8 status=none
    printf "slice %4d MiB: " $k
    bench_deflate /dev/shm/slice --mib 8 --block-sizes 1048576,65536 --runs 3 --variant fast --no-zlib --kernel-only 2>&1 | grep -a "^1 MiB\|^64 KiB" | awk '{printf "%s %s ratio %s kernel %s GB/s; ", $1, $2, $4, $7}'
    echo
  done
fi
if [ "$mode" = stored ]; then
  export VYRE_DEVICE=nvidia
  head -c $((64<<20)) /dev/urandom > /dev/shm/rnd.bin
  for b in bench_deflate bench_deflate_x; do
    echo "=== random, $b"; $b /dev/shm/rnd.bin --mib 64 --block-sizes 65536,1048576 --runs 3 --variant fast --no-zlib --kernel-only 2>&1 | grep -a "^64 KiB\|^1 MiB\|rror\|fail"
  done
  for r in 1 2; do
    for b in bench_deflate bench_deflate_x; do
      echo "=== corpus round $r $b"
      $b $c --mib 1024 --block-sizes 65536,1048576 --runs 3 --variant fast --no-zlib --kernel-only 2>&1 | grep -a "^64 KiB\|^1 MiB\|rror\|fail"
    done
  done
fi
if [ "$mode" = slicex ]; then
  # experiments on slices of 8 streams of 1 MiB: text, near-random literals, binary
  export VYRE_DEVICE=nvidia
  for k in 0 384 576 704; do dd if=$c of=/dev/shm/slice$k bs=1M skip=$k count=8 status=none; done
  for x in "" run nolit decodeonly; do
    printf "%-12s" "'$x'"
    for k in 0 384 576 704; do
      VYRE_EXPERIMENT_DEFLATE=$x bench_deflate_x /dev/shm/slice$k --mib 8 --block-sizes 1048576 --runs 3 --variant fast --no-zlib --kernel-only 2>&1 | grep -a "^1 MiB\|rror\|fail" | awk -v k=$k '{printf "slice %d (ratio %s): %.1f MB/s per stream; ", k, $4, $7*1000/8}'
    done
    echo
  done
fi
if [ "$mode" = cuprof ]; then
  # the fast deflate PTX through the CUDA driver (.device/r33/cuh/harness), timed, then under ncu
  h=$here/cuh
  for k in 0 384; do dd if=$c of=/dev/shm/slice$k bs=1M skip=$k count=8 status=none; done
  $h/harness $h/head.ptx compression_deflate_fast /dev/shm/slice384 1048576 8 3
  $h/harness $h/head.ptx compression_deflate_fast /dev/shm/slice0 1048576 8 3
  $h/harness $h/head.ptx compression_deflate_fast $c 1048576 1024 3
  for k in 384 0; do
    timeout 200 $NCU --clock-control none --set full --import-source no -k regex:compression_deflate_fast -c 1 -o $OUT/s$k -f \
      $h/harness $h/head.ptx compression_deflate_fast /dev/shm/slice$k 1048576 8 1 > $OUT/s$k-run.txt 2>&1; echo "ncu rc=$?"; tail -3 $OUT/s$k-run.txt
    $NCU -i $OUT/s$k.ncu-rep --page details > $OUT/s$k-details.txt 2>&1
    $NCU -i $OUT/s$k.ncu-rep --page source --csv --print-source sass > $OUT/s$k-source.csv 2>&1
    grep -a -i "stall\|warp cycles\|issued\|occupancy\|registers\|Duration" $OUT/s$k-details.txt | head -30
  done
fi
if [ "$mode" = cmp ]; then
  # HEAD's build (bench_deflate) against this change (bench_deflate_x): slices of 8 streams of 1 MiB, then the corpus, alternating
  export VYRE_DEVICE=nvidia
  for k in 0 384 576 704; do dd if=$c of=/dev/shm/slice$k bs=1M skip=$k count=8 status=none; done
  for b in bench_deflate bench_deflate_x; do
    printf "%-16s" $b
    for k in 0 384 576 704; do
      $b /dev/shm/slice$k --mib 8 --block-sizes 1048576 --runs 3 --variant fast --no-zlib --kernel-only 2>&1 | grep -a "^1 MiB\|rror\|fail" | awk -v k=$k '{printf "slice %d (ratio %s): %.1f MB/s per stream; ", k, $4, $7*1000/8}'
    done
    echo
  done
  rm -rf $VYRE_CACHE_DIR
  for r in 1 2; do
    for b in bench_deflate bench_deflate_x; do
      echo "=== corpus round $r $b"
      $b $c --mib 1024 --block-sizes 65536,1048576 --runs 3 --variant fast --no-zlib --kernel-only 2>&1 | grep -a "^64 KiB\|^1 MiB\|rror\|fail"
    done
  done
  for f in $VYRE_CACHE_DIR/*.bin; do grep -q ".entry compression_deflate_fast" $f && cp $f $OUT/; done
fi
if [ "$mode" = cuprof2 ]; then
  # this change's PTX (new.ptx) under ncu on the slices that now set the 1 MiB figure
  h=$here/cuh
  for k in 576 704; do
    dd if=$c of=/dev/shm/slice$k bs=1M skip=$k count=8 status=none
    $h/harness $h/new.ptx compression_deflate_fast /dev/shm/slice$k 1048576 8 3
    timeout 200 $NCU --clock-control none --set full --import-source no -k regex:compression_deflate_fast -c 1 -o $OUT/n$k -f \
      $h/harness $h/new.ptx compression_deflate_fast /dev/shm/slice$k 1048576 8 1 > $OUT/n$k-run.txt 2>&1; echo "ncu rc=$?"
    $NCU -i $OUT/n$k.ncu-rep --page source --csv --print-source sass > $OUT/n$k-source.csv 2>&1
    rm -f $OUT/n$k.ncu-rep
  done
  $h/harness $h/new.ptx compression_deflate_fast $c 1048576 1024 3
fi
if [ "$mode" = final2 ]; then
  # after the tests: HEAD~1's build (bench_deflate) against this one (bench_deflate_x), random bytes then the corpus, and nvCOMP
  export VYRE_DEVICE=nvidia
  head -c $((64<<20)) /dev/urandom > /dev/shm/rnd.bin
  for b in bench_deflate bench_deflate_x; do
    echo "=== random bytes, $b"; $b /dev/shm/rnd.bin --mib 64 --block-sizes 65536,1048576 --runs 3 --variant fast --no-zlib --kernel-only 2>&1 | grep -a "^64 KiB\|^1 MiB\|rror\|fail"
  done
  for r in 1 2; do
    for b in bench_deflate bench_deflate_x; do
      echo "=== corpus round $r $b"; $b $c --mib 1024 --block-sizes 65536,1048576 --runs 3 --variant fast --no-zlib 2>&1 | grep -av "^@result"
    done
  done
  unset VYRE_DEVICE
  echo "=== bench_nvcomp"; bench_nvcomp $c --mib 1024 --runs 3 --cases deflate --deflate-blocks 65536,1048576 --deflate-compressors libdeflate 2>&1 | grep -av "^@result"
fi
if [ "$mode" = entries ]; then
  # the literal loop (bench_deflate_x) against table entries that hold a length's and a distance's base and extra bits (bench_deflate_y)
  export VYRE_DEVICE=nvidia
  for r in 1 2; do
    for b in bench_deflate_x bench_deflate_y; do
      echo "=== corpus round $r $b"; $b $c --mib 1024 --block-sizes 65536,1048576 --runs 3 --variant fast --no-zlib --kernel-only 2>&1 | grep -a "^64 KiB\|^1 MiB\|rror\|fail"
    done
  done
  echo "=== end to end, bench_deflate_y"; bench_deflate_y $c --mib 1024 --block-sizes 65536,1048576 --runs 3 --variant fast --no-zlib 2>&1 | grep -a "^64 KiB\|^1 MiB\|rror\|fail"
fi
if [ "$mode" = s55 ] || [ "$mode" = s55tests ]; then
  # this build's tests on both platforms (the blocks of nearly 4 GiB on PoCL), then deflate:
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
    for b in bench_zstd-before bench_zstd_a bench_zstd_b; do
      echo "=== round $r $b"; $b $c --mib 1024 --runs 3 --cases frames64k,frames1m --routes device 2>&1 | grep -av "^@result\|^#"
    done
    for b in bench_lz4 bench_lz4_w; do
      echo "=== round $r $b"; $b $c --mib 1024 --block-sizes 4096,65536,262144 --runs 3 --variants fast --kernel-only 2>&1 | grep -av "^@result"
    done
  done
  unset VYRE_DEVICE
  echo "=== bench_nvcomp"; bench_nvcomp $c --mib 1024 --runs 3 --cases deflate,lz4,zstd --deflate-blocks 65536,1048576 --block-sizes 4096,65536,262144 --zstd-chunks 65536,1048576 --deflate-compressors libdeflate 2>&1 | grep -av "^@result"
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
