#!/bin/bash
# usage: run.sh MODE (pieces | tests | all): from the repository root on the device machine, after . ./opencl-nvidia.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/r82bin /tmp/r82lib
for z in $here/bin/*.zst; do n=$(basename "$z" .zst); $here/bin/zstd -q -d -f "$z" -o /tmp/r82bin/$n; chmod +x /tmp/r82bin/$n; done
for z in $here/bin/lib/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/r82lib/$n ] || $here/bin/zstd -q -d -f "$z" -o /tmp/r82lib/$n; done
export PATH=/tmp/r82bin:$here/bin:$PATH
export LD_LIBRARY_PATH=/tmp/r82lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export VYRE_CACHE_DIR=/tmp/vyre-cache
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc
sp=/opt/torch/.venv/lib/python3.12/site-packages
c=/dev/shm/corpus.tar
[ -s $c ] || (tar cf - /usr/include /usr/share/doc $sp/torch/lib 2>/dev/null | head -c $((1100<<20)) > $c)
ls -l $c
mode=${1:-tests}
repo=$(cd "$here/../.." && pwd); export VYRE_SOURCE_DIR=$repo
tests() { # every test program in $here/tests (or those named in TESTS), every device
  mkdir -p /tmp/r82t
  for z in $here/tests/*.zst; do
    n=$(basename "$z" .zst)
    if [ -n "${TESTS:-}" ] && ! echo " $TESTS " | grep -q " $n "; then continue; fi
    zstd -q -d -f "$z" -o /tmp/r82t/$n; chmod +x /tmp/r82t/$n
    echo "=== $n $(date -u +%H:%M:%S)"
    (cd $repo && timeout ${TEST_TIMEOUT:-200} /tmp/r82t/$n --log_level=test_suite > $OUT/$n.log 2>&1); echo "rc=$?"
    grep -a -E "No errors|failure|error:" $OUT/$n.log | tail -4
  done
}
pieces() { # 1 MiB streams: one subgroup a stream (fast) against every stream in pieces, nvCOMP's Deflate in the same call
  echo "=== bench_deflate $(date -u +%T)"
  VYRE_DEVICE=nvidia bench_deflate $c --mib ${MIB:-1024} --block-sizes ${BLOCKS:-1048576} --compressors ${COMP:-libdeflate,zlib} --runs 3 --variant fast --no-zlib --kernel-only --pieces-kib ${KIBS:-16,32,64} 2>&1 | tee $OUT/ours.log | grep -a -v "^@result"
  [ "${NV:-1}" = 0 ] && return
  echo "=== bench_nvcomp $(date -u +%T)"
  bench_nvcomp $c --mib ${MIB:-1024} --runs 3 --cases deflate --deflate-blocks ${BLOCKS:-1048576} --deflate-compressors libdeflate 2>&1 | tee $OUT/nvcomp.log | grep -a -v "^@result" | tail -12
}
long() { # long streams: all at once against one after another (and one subgroup a stream)
  echo "=== bench_deflate long $(date -u +%T)"
  VYRE_DEVICE=nvidia bench_deflate $c --mib 256 --block-sizes 16777216,67108864 --compressors libdeflate,zlib --runs 3 --variant fast --no-zlib --kernel-only --pieces-kib 32 --pieces-each 2>&1 | tee $OUT/long.log | grep -a -v "^@result"
}
if [ "$mode" = pieces ] || [ "$mode" = all ]; then pieces; fi
if [ "$mode" = long ] || [ "$mode" = all ]; then long; fi
if [ "$mode" = tests ] || [ "$mode" = all ]; then tests; fi
echo "=== end $(date -u +%T)"
