#!/bin/bash
# usage: run.sh MODE[,MODE] (tests | pieces | one): from the repository root on the device machine, after . ./opencl-nvidia.sh
#   tests: every test program of tests/ (TEST_DEVICES: VYRE_DEVICES for them, default every device)
#   pieces: bench_deflate before and after pieces started inside blocks, alternating (bench/compare.py):
#           1,024 streams of 1 MiB in pieces of 32 KiB; the after build prints pieces inside blocks
#           and at block starts only in the same run
#   one: one 256 MiB stream, pieces every 32 KiB, the device's search with and without pieces inside blocks
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/insidebin /tmp/insidelib /tmp/insidebefore /tmp/insideafter /tmp/insideout
for z in $here/bin/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/insidebin/$n ] || { $here/bin/zstd -q -d -f "$z" -o /tmp/insidebin/$n; chmod +x /tmp/insidebin/$n; }; done
for z in $here/bin/lib/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/insidelib/$n ] || $here/bin/zstd -q -d -f "$z" -o /tmp/insidelib/$n; done
ln -sf /tmp/insidebin/bench_deflate_before /tmp/insidebefore/bench_deflate; ln -sf /tmp/insidebin/bench_deflate /tmp/insideafter/bench_deflate
export PATH=/tmp/insidebin:$here/bin:$PATH
export LD_LIBRARY_PATH=/tmp/insidelib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export VYRE_CACHE_DIR=/tmp/vyre-cache
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc
sp=/opt/torch/.venv/lib/python3.12/site-packages
c=/dev/shm/corpus.tar
[ -s $c ] || (tar cf - /usr/include /usr/share/doc $sp/torch/lib 2>/dev/null | head -c $((1100<<20)) > $c)
ls -l $c
repo=$(cd "$here/../.." && pwd); export VYRE_SOURCE_DIR=$repo
tests() {
  mkdir -p /tmp/insidet
  for z in $here/tests/*.zst; do
    n=$(basename "$z" .zst)
    zstd -q -d -f "$z" -o /tmp/insidet/$n; chmod +x /tmp/insidet/$n
    echo "=== $n $(date -u +%H:%M:%S)"
    (cd $repo && VYRE_DEVICES=${TEST_DEVICES:-} timeout ${TEST_TIMEOUT:-300} /tmp/insidet/$n --log_level=test_suite > $OUT/$n.log 2>&1); echo "rc=$?"
    grep -a -E "No errors|failure|error:" $OUT/$n.log | cut -c1-300 | tail -4
  done
}
pieces() {
  echo "=== pieces, 1 MiB streams $(date -u +%T)"
  VYRE_DEVICE=nvidia python3 $repo/bench/compare.py --before /tmp/insidebefore --after /tmp/insideafter --rounds ${ROUNDS:-2} --out /tmp/insideout/pieces -- \
    bench_deflate $c --mib 1024 --block-sizes 1048576 --compressors libdeflate,zlib --runs 3 --variant fast --no-zlib --kernel-only --pieces-kib 32 2>&1 | tail -30
  grep -a -h "^#   pieces" /tmp/insideout/pieces/*.log | cut -c1-400
  tar czf $OUT/pieces-logs.tgz -C /tmp/insideout pieces
}
one() {
  echo "=== one stream $(date -u +%T)"
  mkdir -p /tmp/insideout/one
  for k in 1 2; do
    VYRE_DEVICE=nvidia /tmp/insideafter/bench_deflate $c --one-stream --mib 256 --piece-kib 32 --search device,device-starts --runs 3 > /tmp/insideout/one/after-$k.log 2>&1
    VYRE_DEVICE=nvidia /tmp/insidebefore/bench_deflate $c --one-stream --mib 256 --piece-kib 32 --search device --runs 3 > /tmp/insideout/one/before-$k.log 2>&1
  done
  for f in /tmp/insideout/one/*.log; do echo "--- $f"; grep -a -v "^@result" $f | cut -c1-330 | tail -14; done
  tar czf $OUT/one-logs.tgz -C /tmp/insideout one
}
mode=${1:-tests}
for m in ${mode//,/ }; do $m; done
echo "=== end $(date -u +%T)"
