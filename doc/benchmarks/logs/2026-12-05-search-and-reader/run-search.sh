#!/bin/bash
# usage: run.sh MODE[,MODE] (tests | search): from the repository root on the device machine, after . ./opencl-nvidia.sh
#   tests: the deflate tests of tests/ (TEST_DEVICES: VYRE_DEVICES for them, default every device)
#   search: bench_deflate before and after the change alternating (bench/compare.py): the device's
#           search for block starts over 1 MiB streams in pieces, and over one long stream
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/r102bin /tmp/r102lib /tmp/r102before /tmp/r102after /tmp/r102out
for z in $here/bin/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/r102bin/$n ] || { $here/bin/zstd -q -d -f "$z" -o /tmp/r102bin/$n; chmod +x /tmp/r102bin/$n; }; done
for z in $here/bin/lib/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/r102lib/$n ] || $here/bin/zstd -q -d -f "$z" -o /tmp/r102lib/$n; done
for b in bench_deflate; do ln -sf /tmp/r102bin/${b}_before /tmp/r102before/$b; ln -sf /tmp/r102bin/$b /tmp/r102after/$b; done
export PATH=/tmp/r102bin:$here/bin:$PATH
export LD_LIBRARY_PATH=/tmp/r102lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export VYRE_CACHE_DIR=/tmp/vyre-cache
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc
sp=/opt/torch/.venv/lib/python3.12/site-packages
c=/dev/shm/corpus.tar
[ -s $c ] || (tar cf - /usr/include /usr/share/doc $sp/torch/lib 2>/dev/null | head -c $((1100<<20)) > $c)
ls -l $c
repo=$(cd "$here/../.." && pwd); export VYRE_SOURCE_DIR=$repo
tests() {
  mkdir -p /tmp/r102t
  for z in $here/tests/*.zst; do
    n=$(basename "$z" .zst)
    zstd -q -d -f "$z" -o /tmp/r102t/$n; chmod +x /tmp/r102t/$n
    echo "=== $n $(date -u +%H:%M:%S)"
    (cd $repo && VYRE_DEVICES=${TEST_DEVICES:-} timeout ${TEST_TIMEOUT:-300} /tmp/r102t/$n --log_level=test_suite > $OUT/$n.log 2>&1); echo "rc=$?"
    grep -a -E "No errors|failure|error:" $OUT/$n.log | cut -c1-300 | tail -4
  done
}
search() {
  # compression.deflate.block_starts as two programs (after) against one (before): 1,024 streams of
  # 1 MiB in pieces of 32 KiB of input (the search reads nearly all 490 MB), and one 256 MiB stream.
  echo "=== search, 1 MiB streams $(date -u +%T)"
  VYRE_DEVICE=nvidia python3 $repo/bench/compare.py --before /tmp/r102before --after /tmp/r102after --rounds ${ROUNDS:-2} --out /tmp/r102out/pieces -- \
    bench_deflate $c --mib 1024 --block-sizes 1048576 --compressors libdeflate,zlib --runs 3 --variant fast --no-zlib --kernel-only --pieces-kib 32 2>&1 | tail -30
  grep -a -h "search" /tmp/r102out/pieces/*.log | head -20
  echo "=== search, one stream $(date -u +%T)"
  VYRE_DEVICE=nvidia python3 $repo/bench/compare.py --before /tmp/r102before --after /tmp/r102after --rounds ${ROUNDS:-2} --out /tmp/r102out/one -- \
    bench_deflate $c --one-stream --mib 256 --piece-kib 32 --search device --runs 3 2>&1 | tail -20
  tar czf $OUT/search-logs.tgz -C /tmp/r102out pieces one
}
mode=${1:-tests}
for m in ${mode//,/ }; do $m; done
echo "=== end $(date -u +%T)"
