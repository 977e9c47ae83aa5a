#!/bin/bash
# usage: run.sh MODE[,MODE] (tests | lz4 | deflate): from the repository root on the device machine, after . ./opencl-nvidia.sh
#   tests:   the LZ4, deflate and zstd tests of tests/ on every device
#   lz4:     bench_lz4 before and after the change alternating (bench/compare.py), kernel only, the
#            compressible set and the corpus at 4, 64 and 256 KiB; nvCOMP on the same blocks
#   deflate: bench_deflate before and after alternating, kernel only, 64 KiB and 1 MiB streams; nvCOMP's Deflate
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/r98bin /tmp/r98lib /tmp/r98before /tmp/r98after
for z in $here/bin/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/r98bin/$n ] || { $here/bin/zstd -q -d -f "$z" -o /tmp/r98bin/$n; chmod +x /tmp/r98bin/$n; }; done
for z in $here/bin/lib/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/r98lib/$n ] || $here/bin/zstd -q -d -f "$z" -o /tmp/r98lib/$n; done
for b in bench_lz4 bench_deflate; do ln -sf /tmp/r98bin/${b}_before /tmp/r98before/$b; ln -sf /tmp/r98bin/$b /tmp/r98after/$b; done
export PATH=/tmp/r98bin:$here/bin:$PATH
export LD_LIBRARY_PATH=/tmp/r98lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export VYRE_CACHE_DIR=/tmp/vyre-cache
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc
sp=/opt/torch/.venv/lib/python3.12/site-packages
c=/dev/shm/corpus.tar
[ -s $c ] || (tar cf - /usr/include /usr/share/doc $sp/torch/lib 2>/dev/null | head -c $((1100<<20)) > $c)
ls -l $c
repo=$(cd "$here/../.." && pwd); export VYRE_SOURCE_DIR=$repo
tests() {
  mkdir -p /tmp/r98t
  for z in $here/tests/*.zst; do
    n=$(basename "$z" .zst)
    zstd -q -d -f "$z" -o /tmp/r98t/$n; chmod +x /tmp/r98t/$n
    echo "=== $n $(date -u +%H:%M:%S)"
    (cd $repo && timeout ${TEST_TIMEOUT:-400} /tmp/r98t/$n --log_level=test_suite > $OUT/$n.log 2>&1); echo "rc=$?"
    grep -a -E "No errors|failure|error:" $OUT/$n.log | cut -c1-300 | tail -4
  done
}
lz4() {
  for set in compressible corpus; do
    if [ $set = corpus ]; then in="$c"; else in="--synthetic $set"; fi
    echo "=== lz4 $set $(date -u +%T)"
    VYRE_DEVICE=nvidia python3 $repo/bench/compare.py --before /tmp/r98before --after /tmp/r98after --rounds ${ROUNDS:-2} --out /tmp/r98out/lz4-$set -- \
      bench_lz4 $in --mib 1024 --block-sizes 4096,65536,262144 --runs 3 --variants fast --kernel-only 2>&1 | tail -30
    bench_nvcomp $in --mib 1024 --runs 3 --cases lz4 --block-sizes 4096,65536,262144 > $OUT/nvcomp-lz4-$set.log 2>&1
    grep -a "kernel\|e2e" $OUT/nvcomp-lz4-$set.log | grep -v "^@" | tail -8
  done
  tar czf $OUT/lz4-logs.tgz -C /tmp/r98out lz4-compressible lz4-corpus
}
deflate() {
  echo "=== deflate $(date -u +%T)"
  VYRE_DEVICE=nvidia python3 $repo/bench/compare.py --before /tmp/r98before --after /tmp/r98after --rounds ${ROUNDS:-2} --out /tmp/r98out/deflate -- \
    bench_deflate $c --mib 1024 --block-sizes 65536,1048576 --runs 3 --variant fast --no-zlib --kernel-only 2>&1 | tail -30
  bench_nvcomp $c --mib 1024 --runs 3 --cases deflate --deflate-blocks 65536,1048576 --deflate-compressors libdeflate > $OUT/nvcomp-deflate.log 2>&1
  grep -a -v "^@result" $OUT/nvcomp-deflate.log | tail -12
  tar czf $OUT/deflate-logs.tgz -C /tmp/r98out deflate
}
mode=${1:-tests}
for m in ${mode//,/ }; do $m; done
echo "=== end $(date -u +%T)"
