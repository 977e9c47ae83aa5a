#!/bin/bash
# usage: run.sh MODE (s55m, s55n): from the repository root on the
# device machine, in a folder beside its binaries (bin/, test_deflate_gpu.zst), after . ./opencl-nvidia.sh
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
if [ "$mode" = s55m ]; then
  # the match path with one error branch and overlapping matches stepped (bench_deflate_m) against 916c9f6 (bench_deflate_a); its test first, both platforms
  repo=$(cd "$here/../.." && pwd)
  zstd -q -d -f $here/test_deflate_gpu.zst -o /tmp/test_deflate_gpu_m; chmod +x /tmp/test_deflate_gpu_m
  echo "=== test_deflate_gpu $(date -u +%T)"; (cd $repo && timeout 200 /tmp/test_deflate_gpu_m --log_level=test_suite > $OUT/test_deflate_gpu.log 2>&1); echo "rc=$?"
  grep -a -E "No errors|failure|error:" $OUT/test_deflate_gpu.log | tail -4
  export VYRE_DEVICE=nvidia
  for r in 1 2; do
    for b in bench_deflate_a bench_deflate_m; do
      echo "=== corpus round $r $b"; $b $c --mib 1024 --block-sizes 65536,1048576 --runs 3 --variant fast --no-zlib --kernel-only 2>&1 | grep -a "^64 KiB\|^1 MiB\|rror\|fail"
    done
  done
  echo "=== end $(date -u +%T)"
fi
if [ "$mode" = s55n ]; then
  # nvCOMP's Deflate and bench_deflate_m in one call, logs under $OUT as they come
  export VYRE_DEVICE=nvidia
  echo "=== bench_deflate_m"; bench_deflate_m $c --mib 1024 --block-sizes 65536,1048576 --runs 3 --variant fast --no-zlib --kernel-only 2>&1 | tee $OUT/ours.log | grep -a "^64 KiB\|^1 MiB\|rror\|fail"
  unset VYRE_DEVICE
  echo "=== bench_nvcomp"; bench_nvcomp $c --mib 1024 --runs 3 --cases deflate --deflate-blocks 65536,1048576 --deflate-compressors libdeflate 2>&1 | tee $OUT/nvcomp.log | grep -av "^@result"
  echo "=== end $(date -u +%T)"
fi
