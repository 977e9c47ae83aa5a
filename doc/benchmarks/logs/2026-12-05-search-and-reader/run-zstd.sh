#!/bin/bash
# usage: run.sh MODE[,MODE] (tests | zstd_bench): from the repository root on the device machine, after . ./opencl-nvidia.sh
#   tests: the zstd tests of tests/ (TEST_DEVICES: VYRE_DEVICES for them, default every device)
#   zstd_bench: bench_zstd before and after the change alternating (bench/compare.py), 64 KiB and 1 MiB
#          frames, compression.zstd.frames and compression.zstd.blocks forced; nvCOMP's zstd
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/r101bin /tmp/r101lib /tmp/r101before /tmp/r101after /tmp/r101out
for z in $here/bin/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/r101bin/$n ] || { $here/bin/zstd -q -d -f "$z" -o /tmp/r101bin/$n; chmod +x /tmp/r101bin/$n; }; done
for z in $here/bin/lib/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/r101lib/$n ] || $here/bin/zstd -q -d -f "$z" -o /tmp/r101lib/$n; done
for b in bench_zstd; do ln -sf /tmp/r101bin/${b}_before /tmp/r101before/$b; ln -sf /tmp/r101bin/$b /tmp/r101after/$b; done
export PATH=/tmp/r101bin:$here/bin:$PATH
export LD_LIBRARY_PATH=/tmp/r101lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export VYRE_CACHE_DIR=/tmp/vyre-cache
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc
sp=/opt/torch/.venv/lib/python3.12/site-packages
c=/dev/shm/corpus.tar
[ -s $c ] || (tar cf - /usr/include /usr/share/doc $sp/torch/lib 2>/dev/null | head -c $((1100<<20)) > $c)
ls -l $c
repo=$(cd "$here/../.." && pwd); export VYRE_SOURCE_DIR=$repo
tests() {
  mkdir -p /tmp/r101t
  for z in $here/tests/*.zst; do
    n=$(basename "$z" .zst)
    zstd -q -d -f "$z" -o /tmp/r101t/$n; chmod +x /tmp/r101t/$n
    echo "=== $n $(date -u +%H:%M:%S)"
    (cd $repo && VYRE_DEVICES=${TEST_DEVICES:-} timeout ${TEST_TIMEOUT:-300} /tmp/r101t/$n --log_level=test_suite > $OUT/$n.log 2>&1); echo "rc=$?"
    grep -a -E "No errors|failure|error:" $OUT/$n.log | cut -c1-300 | tail -4
  done
}
zstd_bench() {
  echo "=== zstd $(date -u +%T)"
  VYRE_DEVICE=nvidia python3 $repo/bench/compare.py --before /tmp/r101before --after /tmp/r101after --rounds ${ROUNDS:-2} --out /tmp/r101out/zstd -- \
    bench_zstd $c --mib 1024 --runs 3 --cases frames64k,frames1m --routes device:frames,device:blocks 2>&1 | tail -40
  bench_nvcomp $c --mib 1024 --runs 3 --cases zstd --zstd-chunks 65536,1048576 > $OUT/nvcomp-zstd.log 2>&1
  grep -a -v "^@result" $OUT/nvcomp-zstd.log | tail -12
  tar czf $OUT/zstd-logs.tgz -C /tmp/r101out zstd
}
mode=${1:-tests}
for m in ${mode//,/ }; do $m; done
echo "=== end $(date -u +%T)"
