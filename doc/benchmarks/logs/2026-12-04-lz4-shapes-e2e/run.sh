#!/bin/bash
# usage: run.sh MODE[,MODE] (tests | shapes | e2e): from the repository root on the device machine, after . ./opencl-nvidia.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/r89bin /tmp/r89lib /tmp/r89before /tmp/r89after
for z in $here/bin/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/r89bin/$n ] || { $here/bin/zstd -q -d -f "$z" -o /tmp/r89bin/$n; chmod +x /tmp/r89bin/$n; }; done
for z in $here/bin/lib/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/r89lib/$n ] || $here/bin/zstd -q -d -f "$z" -o /tmp/r89lib/$n; done
ln -sf /tmp/r89bin/bench_lz4_before /tmp/r89before/bench_lz4; ln -sf /tmp/r89bin/bench_lz4 /tmp/r89after/bench_lz4
export PATH=/tmp/r89bin:$here/bin:$PATH
export LD_LIBRARY_PATH=/tmp/r89lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export VYRE_CACHE_DIR=/tmp/vyre-cache
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc
sp=/opt/torch/.venv/lib/python3.12/site-packages
c=/dev/shm/corpus.tar
[ -s $c ] || (tar cf - /usr/include /usr/share/doc $sp/torch/lib 2>/dev/null | head -c $((1100<<20)) > $c)
ls -l $c
mode=${1:-tests}
repo=$(cd "$here/../.." && pwd); export VYRE_SOURCE_DIR=$repo
tests() {
  mkdir -p /tmp/r89t
  for z in $here/tests/*.zst; do
    n=$(basename "$z" .zst)
    zstd -q -d -f "$z" -o /tmp/r89t/$n; chmod +x /tmp/r89t/$n
    echo "=== $n $(date -u +%H:%M:%S)"
    (cd $repo && timeout ${TEST_TIMEOUT:-400} /tmp/r89t/$n --log_level=test_suite > $OUT/$n.log 2>&1); echo "rc=$?"
    grep -a -E "No errors|failure|error:" $OUT/$n.log | tail -4
  done
}
shapes() { # the compressible set and the corpus at 256 KiB blocks: 16 and 32 lanes per block, 2 and 4 blocks per workgroup
  for set in compressible corpus; do
    if [ $set = corpus ]; then in="$c"; else in="--synthetic $set"; fi
    echo "=== shapes $set $(date -u +%T)"
    VYRE_DEVICE=nvidia bench_lz4 $in --mib 1024 --block-sizes 65536,262144 --runs 3 --variants fast --lanes 8,16,32 --blocks 2,4 --kernel-only > $OUT/shapes-$set.log 2>&1
    grep -a -v "^@" $OUT/shapes-$set.log | tail -22
  done
  bench_nvcomp --synthetic compressible --mib 1024 --runs 3 --cases lz4 --block-sizes 65536,262144 > $OUT/nvcomp-compressible.log 2>&1; grep -a -v "^@" $OUT/nvcomp-compressible.log | tail -4
}
e2e() { # end to end on the corpus (fast variant, the op's shapes), nvCOMP on the same blocks
  VYRE_DEVICE=nvidia bench_lz4 $c --mib 1024 --block-sizes 4096,65536,262144 --runs 3 --variants fast > $OUT/e2e-corpus.log 2>&1; grep -a -v "^@" $OUT/e2e-corpus.log | tail -14
  bench_nvcomp $c --mib 1024 --runs 3 --cases lz4 --block-sizes 4096,65536,262144 > $OUT/nvcomp-corpus.log 2>&1; grep -a -v "^@" $OUT/nvcomp-corpus.log | tail -5
}
for m in ${mode//,/ }; do $m; done
echo "=== end $(date -u +%T)"
