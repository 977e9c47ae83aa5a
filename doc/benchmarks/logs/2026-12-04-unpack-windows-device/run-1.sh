#!/bin/bash
# usage: run.sh MODE[,MODE]: from the repository root on the device machine, after . ./opencl-nvidia.sh
#   tests:  test_unpack_formats, test_unpack and test_zstd_gpu on every device
#   unpack: vyre unpack of one-frame .tar.zst archives made here, writing beside decoding (the default,
#           --overlap-window 64M and 256M) and not (--overlap-above none: the ordinary run), against
#           zstd -dc -T0 | tar x; outputs in /dev/shm, compared with tar's
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/r93bin /tmp/r93lib
for z in $here/bin/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/r93bin/$n ] || { $here/bin/zstd -q -d -f "$z" -o /tmp/r93bin/$n; chmod +x /tmp/r93bin/$n; }; done
for z in $here/bin/lib/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/r93lib/$n ] || $here/bin/zstd -q -d -f "$z" -o /tmp/r93lib/$n; done
export PATH=/tmp/r93bin:$here/bin:$PATH
export LD_LIBRARY_PATH=/tmp/r93lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export VYRE_CACHE_DIR=/tmp/vyre-cache
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc
sp=/opt/torch/.venv/lib/python3.12/site-packages
mode=${1:-tests}
repo=$(cd "$here/../.." && pwd); export VYRE_SOURCE_DIR=$repo
tests() {
  mkdir -p /tmp/r93t
  for n in test_unpack_formats test_unpack test_zstd_gpu; do
    zstd -q -d -f "$here/tests/$n.zst" -o /tmp/r93t/$n; chmod +x /tmp/r93t/$n
    echo "=== $n $(date -u +%H:%M:%S)"
    (cd $repo && timeout ${TEST_TIMEOUT:-300} /tmp/r93t/$n --log_level=test_suite > $OUT/$n.log 2>&1); echo "rc=$?"
    grep -a -E "No errors|failure|error:" $OUT/$n.log | cut -c1-400 | tail -6
  done
}
unpack() {
  d=/dev/shm/arch; rm -rf $d; mkdir -p $d
  tar cf - /usr/include 2>/dev/null | zstd -q -T0 -3 -o $d/inc.tar.zst
  (cd $sp && tar cf - numpy scipy sympy pandas matplotlib) | zstd -q -T0 -3 -o $d/pkgs.tar.zst
  (cd $sp && tar cf - torch numpy scipy) | zstd -q -T0 -3 -o $d/mid.tar.zst
  ls -l $d; for f in $d/*.tar.zst; do echo "$f: $(zstd -lv $f 2>/dev/null | grep -E 'Decompressed|Frames' | tr -s ' ' | tr '\n' ' ')"; done
  TIMEFORMAT=%R
  for r in 1 2 3; do
    for f in inc pkgs mid; do
      for v in "default:" "none:--overlap-above none" "w64:--overlap-window 64M" "w256:--overlap-window 256M"; do
        name=${v%%:*}; opts=${v#*:}
        rm -rf /dev/shm/o; echo "--- $f round $r vyre $name"
        { time vyre unpack --no-progress --timings --no-recurse $opts $d/$f.tar.zst -o /dev/shm/o > /dev/null 2> /tmp/u.err ; } 2>&1 | sed 's/^/wall /'
        grep -a "^vyre unpack: [0-9s]" /tmp/u.err | cut -c1-700
      done
      rm -rf /dev/shm/t; mkdir -p /dev/shm/t; echo "--- $f round $r zstd -dc -T0 | tar x"
      { time (zstd -dc -T0 $d/$f.tar.zst | tar x -C /dev/shm/t) ; } 2>&1 | sed 's/^/wall /'
    done
  done
  for f in inc pkgs mid; do
    rm -rf /dev/shm/o /dev/shm/t; mkdir -p /dev/shm/t
    vyre unpack --no-progress --no-recurse $d/$f.tar.zst -o /dev/shm/o 2>/dev/null; zstd -dc $d/$f.tar.zst | tar x -C /dev/shm/t
    echo "$f.tar.zst against tar: $(diff -rq --no-dereference /dev/shm/o /dev/shm/t | wc -l) differences"; diff -rq --no-dereference /dev/shm/o /dev/shm/t | head -8
  done
  rm -rf /dev/shm/o /dev/shm/t
}
for m in ${mode//,/ }; do $m; done
echo "=== end $(date -u +%T)"
