#!/bin/bash
# usage: run.sh MODE (pieces | tests | all): from the repository root on the device machine, after . ./opencl-nvidia.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/r84bin /tmp/r84lib
for z in $here/bin/*.zst; do n=$(basename "$z" .zst); $here/bin/zstd -q -d -f "$z" -o /tmp/r84bin/$n; chmod +x /tmp/r84bin/$n; done
for z in $here/bin/lib/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/r84lib/$n ] || $here/bin/zstd -q -d -f "$z" -o /tmp/r84lib/$n; done
export PATH=/tmp/r84bin:$here/bin:$PATH
export LD_LIBRARY_PATH=/tmp/r84lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export VYRE_CACHE_DIR=/tmp/vyre-cache
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc
sp=/opt/torch/.venv/lib/python3.12/site-packages
c=/dev/shm/corpus.tar
mode=${1:-tests}
repo=$(cd "$here/../.." && pwd); export VYRE_SOURCE_DIR=$repo
wheels() { # ZIPs of whole packages (deflate level 6, large libraries included), the device route with its pieces threshold at 16, 4 and 1 MiB
  d=/dev/shm/wh; rm -rf $d; mkdir -p $d
  ls $sp | head -80 | tr '\n' ' '; echo
  for p in numpy scipy sympy pandas PIL matplotlib networkx triton; do [ -d $sp/$p ] && (cd $sp && zip -q -r -6 $d/$p.zip $p) & done; wait
  ls -l $d; du -sh $d
  TIMEFORMAT=%R
  for r in 1 2; do
    for cfg in "device 16M" "device 4M" "device 1M" "automatic 16M" "host 16M"; do
      set -- $cfg; rm -rf /dev/shm/o; echo "--- round $r --deflate-route $1 --deflate-pieces-min $2"
      { time vyre unpack --no-progress --timings --deflate-route $1 --deflate-pieces-min $2 $d/*.zip -o /dev/shm/o > /dev/null 2> /tmp/w.err ; } 2>&1 | sed 's/^/wall /'
      grep -a "^vyre unpack" /tmp/w.err | cut -c1-700
    done
  done
  rm -rf /dev/shm/o /dev/shm/u; mkdir -p /dev/shm/u; vyre unpack --no-progress --no-recurse --deflate-route device --deflate-pieces-min 1M $d/*.zip -o /dev/shm/o 2>/dev/null
  for z in $d/*.zip; do unzip -q -o $z -d /dev/shm/u; done
  diff -rq /dev/shm/o /dev/shm/u | head -5; echo "compared with unzip (--no-recurse): $(diff -rq /dev/shm/o /dev/shm/u | wc -l) differences"
}
wheels 2>&1 | tee $OUT/wheels.log
echo "=== end $(date -u +%T)"
