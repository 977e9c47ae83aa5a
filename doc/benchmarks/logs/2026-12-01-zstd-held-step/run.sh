#!/bin/bash
# usage: run.sh MODE: from the repository root on the device machine, after . ./opencl-nvidia.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/r56lib; for z in $here/bin/lib/*.zst; do [ -e "$z" ] && [ ! -e /tmp/r56lib/$(basename "$z" .zst) ] && $here/bin/zstd -q -d -f "$z" -o /tmp/r56lib/$(basename "$z" .zst); done
export LD_LIBRARY_PATH=$here/bin/lib:/tmp/r56lib
export PATH=$here/bin:$PATH
export VYRE_CACHE_DIR=/tmp/vyre-cache
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc
sp=/opt/torch/.venv/lib/python3.12/site-packages
c=/dev/shm/corpus.tar
[ -s $c ] || (tar cf - /usr/include /usr/share/doc $sp/torch/lib 2>/dev/null | head -c $((1100<<20)) > $c)
ls -l $c
mode=${1:-zb}
repo=$(cd "$here/../.." && pwd)
tests() { # tests DIR: every test program DIR/*.zst, both platforms
  mkdir -p /tmp/r56t; rm -f /tmp/r56t/*
  for t in $1/*.zst; do zstd -q -d -f "$t" -o /tmp/r56t/$(basename "$t" .zst); chmod +x /tmp/r56t/$(basename "$t" .zst); done
  for t in /tmp/r56t/*; do
    n=$(basename $t); echo "=== $n $(date -u +%H:%M:%S)"
    (cd $repo && timeout ${TEST_TIMEOUT:-280} $t --log_level=test_suite > $OUT/$n.log 2>&1); echo "rc=$?"
    grep -a -E "No errors|failure|error:" $OUT/$n.log | tail -4
  done
}
zb() { # zb BINARIES...: each in turn, two rounds, the frames program (kernel and end to end)
  export VYRE_DEVICE=nvidia
  for r in 1 2; do
    for b in "$@"; do
      echo "=== round $r $b $(date -u +%T)"; $b $c --mib 1024 --runs 3 --cases frames64k,frames1m --routes device:frames 2>&1 | tee -a $OUT/$b.log | grep -a -v "^@result\|^#"
    done
  done
  unset VYRE_DEVICE
}
if [ "$mode" = zb ]; then
  zb bench_zstd_pre bench_zstd_head bench_zstd_new
  echo "=== bench_nvcomp $(date -u +%T)"; bench_nvcomp $c --mib 1024 --runs 3 --cases zstd --zstd-chunks 65536,1048576 2>&1 | tee $OUT/nvcomp.log | grep -a -v "^@result"
  echo "=== end $(date -u +%T)"
fi
if [ "$mode" = tests ]; then tests $here/tests; fi
if [ "$mode" = zde ]; then
  zb bench_zstd_head bench_zstd_d bench_zstd_e
  echo "=== bench_nvcomp $(date -u +%T)"; bench_nvcomp $c --mib 1024 --runs 3 --cases zstd --zstd-chunks 65536,1048576 2>&1 | tee $OUT/nvcomp.log | grep -a -v "^@result"
fi
if [ "$mode" = zdf ]; then
  zb bench_zstd_head bench_zstd_d bench_zstd_f
fi
if [ "$mode" = zbc ]; then
  zb bench_zstd_new bench_zstd_b bench_zstd_c
fi
if [ "$mode" = zc ]; then shift; zb "$@"; echo "=== bench_nvcomp"; bench_nvcomp $c --mib 1024 --runs 3 --cases zstd --zstd-chunks 65536,1048576 2>&1 | tee $OUT/nvcomp.log | grep -a -v "^@result"; fi
NCU=$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
ptx() { # ptx ENTRY NAME: the cached PTX of the kernel ENTRY through ptxas and cuobjdump
  f=$(grep -l ".entry $1" $VYRE_CACHE_DIR/*.bin 2>/dev/null | head -1)
  [ -n "$f" ] || { echo "no PTX for $1"; return; }
  cp $f $OUT/$2.ptx
  ptxas -arch=sm_90 -v $f -o /tmp/$2.cubin > $OUT/$2-ptxas.txt 2>&1; grep -a "registers\|spill" $OUT/$2-ptxas.txt
  cuobjdump -sass /tmp/$2.cubin > $OUT/$2.sass 2>&1; wc -l $OUT/$2.sass
}
prof() { # prof NAME KERNEL-REGEX COMMAND...: one launch of the kernel under ncu
  name=$1; k=$2; shift 2
  timeout 240 $NCU --clock-control none -k regex:$k -c 1 --section WarpStateStats --section SourceCounters --section SchedulerStats \
    --section Occupancy --section LaunchStats --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
    -o $OUT/$name -f "$@" > $OUT/$name-run.txt 2>&1; echo "ncu $name rc=$?"; tail -3 $OUT/$name-run.txt
  [ -s $OUT/$name.ncu-rep ] || return
  $NCU -i $OUT/$name.ncu-rep --page details > $OUT/$name-details.txt 2>&1
  $NCU -i $OUT/$name.ncu-rep --page source --csv --print-source sass > $OUT/$name-source.csv 2>&1
  grep -a -i "stall\|warp cycles\|issued\|occupancy\|registers\|duration" $OUT/$name-details.txt | head -40
}
if [ "$mode" = prof ]; then
  shift; b=$1
  export VYRE_DEVICE=nvidia
  prof zstd-frames compression_zstd_frames_fast $here/bin/$b $c --mib 256 --runs 1 --cases frames64k --routes device:frames
  ptx compression_zstd_frames_fast frames
fi
if [ "$mode" = prof2 ]; then
  shift; b=$1
  export VYRE_DEVICE=nvidia
  rm -rf $VYRE_CACHE_DIR; $here/bin/$b $c --mib 64 --runs 1 --cases frames64k --routes device:frames > /dev/null 2>&1
  f=$(grep -l ".entry compression_zstd_frames_fast" $VYRE_CACHE_DIR/*.bin 2>/dev/null | head -1); echo "ptx: $f"
  sed '/\.metadata_section/,$d' $f > $OUT/frames.ptx
  ptxas -arch=sm_90 -v $OUT/frames.ptx -o /tmp/frames.cubin > $OUT/frames-ptxas.txt 2>&1; grep -a "registers\|spill\|error" $OUT/frames-ptxas.txt
  cuobjdump -sass /tmp/frames.cubin > $OUT/frames.sass 2>&1; wc -l $OUT/frames.sass
  for fb in 65536 1048576; do echo "=== harness $fb"; zstd_harness $OUT/frames.ptx compression_zstd_frames_fast $c $fb 1024 3; done
  timeout 300 $NCU --clock-control none --set full --import-source no -k regex:compression_zstd_frames_fast -c 1 -o $OUT/ncu64k -f \
    zstd_harness $OUT/frames.ptx compression_zstd_frames_fast $c 65536 1024 1 > $OUT/ncu64k-run.txt 2>&1; echo "ncu rc=$?"; tail -3 $OUT/ncu64k-run.txt
  if [ -s $OUT/ncu64k.ncu-rep ]; then
    $NCU -i $OUT/ncu64k.ncu-rep --page details > $OUT/ncu64k-details.txt 2>&1
    $NCU -i $OUT/ncu64k.ncu-rep --page source --csv --print-source sass > $OUT/ncu64k-source.csv 2>&1
    grep -a -i "stall\|warp cycles\|issued\|occupancy\|registers\|duration\|executed ipc" $OUT/ncu64k-details.txt | head -40
    rm -f $OUT/ncu64k.ncu-rep.big
  fi
fi
