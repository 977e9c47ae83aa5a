#!/bin/bash
# usage: run.sh: from the repository root on the device machine, after . ./opencl-nvidia.sh
# bench_zstd built with the decode pass of compression.zstd.blocks timed step by step (stderr TRACE lines)
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/r76bin
for z in $here/bin/*.zst; do n=$(basename "$z" .zst); $here/bin/zstd -q -d -f "$z" -o /tmp/r76bin/$n; chmod +x /tmp/r76bin/$n; done
export PATH=/tmp/r76bin:$here/bin:$PATH
export VYRE_CACHE_DIR=/tmp/vyre-cache
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc
sp=/opt/torch/.venv/lib/python3.12/site-packages
c=/dev/shm/corpus.tar
[ -s $c ] || (tar cf - /usr/include /usr/share/doc $sp/torch/lib 2>/dev/null | head -c $((1100<<20)) > $c)
ls -l $c
VYRE_DEVICE=nvidia bench_zstd $c --mib 1024 --runs 3 --cases frames1m --routes device:blocks,device:blocks@0.3 2>&1 | tee $OUT/bench.log | grep -a "^frames\|TRACE\|passes, last run\|last run: frames" | sort | uniq -c | sort -rn | head -60
echo "=== end $(date -u +%T)"
