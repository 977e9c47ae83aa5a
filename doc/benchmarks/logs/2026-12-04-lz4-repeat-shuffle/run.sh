#!/bin/bash
# usage: run.sh MODE (bench | tests | e2e): from the repository root on the device machine, after . ./opencl-nvidia.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/r88bin /tmp/r88lib /tmp/r88before /tmp/r88after
for z in $here/bin/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/r88bin/$n ] || { $here/bin/zstd -q -d -f "$z" -o /tmp/r88bin/$n; chmod +x /tmp/r88bin/$n; }; done
for z in $here/bin/lib/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/r88lib/$n ] || $here/bin/zstd -q -d -f "$z" -o /tmp/r88lib/$n; done
ln -sf /tmp/r88bin/bench_lz4_before /tmp/r88before/bench_lz4; ln -sf /tmp/r88bin/bench_lz4 /tmp/r88after/bench_lz4
export PATH=/tmp/r88bin:$here/bin:$PATH
export LD_LIBRARY_PATH=/tmp/r88lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export VYRE_CACHE_DIR=/tmp/vyre-cache
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc
sp=/opt/torch/.venv/lib/python3.12/site-packages
c=/dev/shm/corpus.tar
[ -s $c ] || (tar cf - /usr/include /usr/share/doc $sp/torch/lib 2>/dev/null | head -c $((1100<<20)) > $c)
ls -l $c
mode=${1:-tests}
repo=$(cd "$here/../.." && pwd); export VYRE_SOURCE_DIR=$repo
tests() {
  mkdir -p /tmp/r88t
  for z in $here/tests/*.zst; do
    n=$(basename "$z" .zst)
    zstd -q -d -f "$z" -o /tmp/r88t/$n; chmod +x /tmp/r88t/$n
    echo "=== $n $(date -u +%H:%M:%S)"
    (cd $repo && timeout ${TEST_TIMEOUT:-400} /tmp/r88t/$n --log_level=test_suite > $OUT/$n.log 2>&1); echo "rc=$?"
    grep -a -E "No errors|failure|error:" $OUT/$n.log | tail -4
  done
}
bench() { # the repeat change: before and after builds alternating (bench/compare.py), kernel only; nvCOMP on the same blocks
  for set in compressible corpus; do
    if [ $set = corpus ]; then in="$c"; else in="--synthetic $set"; fi
    echo "=== $set $(date -u +%T)"
    VYRE_DEVICE=nvidia python3 $repo/bench/compare.py --before /tmp/r88before --after /tmp/r88after --rounds 2 --out $OUT/$set -- \
      bench_lz4 $in --mib 1024 --block-sizes 4096,65536,262144 --runs 3 --variants fast --kernel-only 2>&1 | tail -30
    bench_nvcomp $in --mib 1024 --runs 3 --cases lz4 --block-sizes 4096,65536,262144 > $OUT/nvcomp-$set.log 2>&1
    grep -a "kernel\|e2e" $OUT/nvcomp-$set.log | grep -v "^@" | tail -8
  done
}
e2e() { # the after build, end to end on the corpus (fast variant), and the synthetic incompressible kernel
  VYRE_DEVICE=nvidia bench_lz4 $c --mib 1024 --block-sizes 4096,65536,262144 --runs 3 --variants fast > $OUT/e2e-corpus.log 2>&1; grep -a -v "^@" $OUT/e2e-corpus.log | tail -25
  VYRE_DEVICE=nvidia bench_lz4 --synthetic incompressible --mib 1024 --block-sizes 4096,65536,262144 --runs 3 --variants fast --kernel-only > $OUT/incompressible.log 2>&1; grep -a -v "^@" $OUT/incompressible.log | tail -12
  bench_nvcomp --synthetic incompressible --mib 1024 --runs 3 --cases lz4 --block-sizes 4096,65536,262144 > $OUT/nvcomp-incompressible.log 2>&1; grep -a -v "^@" $OUT/nvcomp-incompressible.log | tail -8
}
for m in ${mode//,/ }; do $m; done
echo "=== end $(date -u +%T)"
