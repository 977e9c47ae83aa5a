#!/bin/bash
# usage: run.sh: from the repository root on the device machine, after . ./opencl-nvidia.sh. The
# 32-lane extension change alone: bench_lz4 of ccf03ed ("after") against the same with the 32-lane
# shapes loading the extension byte again ("before"), 256 KiB blocks (the one 32-lane launch),
# alternating (bench/compare.py), kernel only, the compressible set and the corpus; then the
# incompressible set with the after build and nvCOMP on the same blocks.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/r99before /tmp/r99after
$here/bin/zstd -q -d -f $here/bin/bench_lz4.zst -o /tmp/r99after/bench_lz4; $here/bin/zstd -q -d -f $here/bin/bench_lz4_before.zst -o /tmp/r99before/bench_lz4
chmod +x /tmp/r99after/bench_lz4 /tmp/r99before/bench_lz4
export VYRE_CACHE_DIR=/tmp/vyre-cache
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
sp=/opt/torch/.venv/lib/python3.12/site-packages
c=/dev/shm/corpus.tar
[ -s $c ] || (tar cf - /usr/include /usr/share/doc $sp/torch/lib 2>/dev/null | head -c $((1100<<20)) > $c)
repo=$(cd "$here/../.." && pwd)
for set in compressible corpus; do
  if [ $set = corpus ]; then in="$c"; else in="--synthetic $set"; fi
  echo "=== $set $(date -u +%T)"
  VYRE_DEVICE=nvidia python3 $repo/bench/compare.py --before /tmp/r99before --after /tmp/r99after --rounds ${ROUNDS:-3} --out /tmp/r99out/$set -- \
    bench_lz4 $in --mib 1024 --block-sizes 262144 --runs 3 --variants fast --kernel-only 2>&1 | grep -a "vyre fast\|^\`"
done
# The incompressible set with the after build, nvCOMP on the same blocks in the same call.
mkdir -p /tmp/r99lib; for z in $here/bin/lib/*.zst; do $here/bin/zstd -q -d -f "$z" -o /tmp/r99lib/$(basename "$z" .zst); done
$here/bin/zstd -q -d -f $here/bin/bench_nvcomp.zst -o /tmp/r99after/bench_nvcomp; chmod +x /tmp/r99after/bench_nvcomp
echo "=== incompressible $(date -u +%T)"
VYRE_DEVICE=nvidia /tmp/r99after/bench_lz4 --synthetic incompressible --mib 1024 --block-sizes 4096,65536,262144 --runs 3 --variants fast --kernel-only > $OUT/lz4-incompressible.log 2>&1
grep -a -v "^@" $OUT/lz4-incompressible.log | tail -8
LD_LIBRARY_PATH=/tmp/r99lib /tmp/r99after/bench_nvcomp --synthetic incompressible --mib 1024 --runs 3 --cases lz4 --block-sizes 4096,65536,262144 > $OUT/nvcomp-lz4-incompressible.log 2>&1
grep -a -v "^@" $OUT/nvcomp-lz4-incompressible.log | tail -5
tar czf $OUT/compare.tgz -C /tmp/r99out compressible corpus
echo "=== end $(date -u +%T)"
