#!/bin/bash
# usage: run.sh MODE[,MODE]: from the repository root on the device machine, after . ./opencl-nvidia.sh
#   tests:  test_unpack_formats and test_unpack on every device
#   unpack: vyre unpack of one-frame .tar.zst archives made here: the ordinary run, and in windows
#           (--stream-above 0) of 256 and 128 MiB decoded on the device, and of 256 MiB decoded on the
#           host, against zstd -dc -T0 | tar x; outputs in /dev/shm, compared with tar's
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/r96bin /tmp/r96lib
for z in $here/bin/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/r96bin/$n ] || { $here/bin/zstd -q -d -f "$z" -o /tmp/r96bin/$n; chmod +x /tmp/r96bin/$n; }; done
for z in $here/bin/lib/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/r96lib/$n ] || $here/bin/zstd -q -d -f "$z" -o /tmp/r96lib/$n; done
export PATH=/tmp/r96bin:$here/bin:$PATH
export LD_LIBRARY_PATH=/tmp/r96lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export VYRE_CACHE_DIR=/tmp/vyre-cache
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc
sp=/opt/torch/.venv/lib/python3.12/site-packages
mode=${1:-tests}
repo=$(cd "$here/../.." && pwd); export VYRE_SOURCE_DIR=$repo
tests() {
  mkdir -p /tmp/r96t
  for n in test_unpack_formats test_unpack; do
    zstd -q -d -f "$here/tests/$n.zst" -o /tmp/r96t/$n; chmod +x /tmp/r96t/$n
    echo "=== $n $(date -u +%H:%M:%S)"
    (cd $repo && timeout ${TEST_TIMEOUT:-300} /tmp/r96t/$n --log_level=test_suite > $OUT/$n.log 2>&1); echo "rc=$?"
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
      for v in "ordinary:" "win256:--stream-above 0 --window 256M" "win128:--stream-above 0 --window 128M" "win256host:--stream-above 0 --window 256M --zstd-route host"; do
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
    zstd -dc $d/$f.tar.zst | tar x -C /dev/shm/t
    for opts in "" "--stream-above 0 --window 128M"; do
      rm -rf /dev/shm/o; vyre unpack --no-progress --no-recurse $opts $d/$f.tar.zst -o /dev/shm/o 2>/dev/null
      echo "$f.tar.zst ($opts) against tar: $(diff -rq --no-dereference /dev/shm/o /dev/shm/t | wc -l) differences"; diff -rq --no-dereference /dev/shm/o /dev/shm/t | head -8
    done
  done
  rm -rf /dev/shm/o /dev/shm/t
}
for m in ${mode//,/ }; do $m; done
echo "=== end $(date -u +%T)"
