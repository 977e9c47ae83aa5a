#!/bin/bash
# usage: run.sh: from the repository root on the device machine, after . ./opencl-nvidia.sh
# vyre unpack: the build before (vyre_before), the output tree holding its folders open (vyre_chain), and that with the write step in longer runs of entries (vyre)
# and the usual tools, on archives made here: a one-frame .tar.zst of /usr/include, a one-frame
# .tar.zst of five Python packages, and ZIPs of eight Python packages. Outputs in /dev/shm.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/r91bin /tmp/r91lib
for z in $here/bin/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/r91bin/$n ] || { $here/bin/zstd -q -d -f "$z" -o /tmp/r91bin/$n; chmod +x /tmp/r91bin/$n; }; done
for z in $here/bin/lib/*.zst; do n=$(basename "$z" .zst); [ -e /tmp/r91lib/$n ] || $here/bin/zstd -q -d -f "$z" -o /tmp/r91lib/$n; done
export PATH=/tmp/r91bin:$here/bin:$PATH
export LD_LIBRARY_PATH=/tmp/r91lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export VYRE_CACHE_DIR=/tmp/vyre-cache
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader; nproc
sp=/opt/torch/.venv/lib/python3.12/site-packages
d=/dev/shm/arch; rm -rf $d; mkdir -p $d
tar cf - /usr/include 2>/dev/null | zstd -q -T0 -3 -o $d/inc.tar.zst
(cd $sp && tar cf - numpy scipy sympy pandas matplotlib) | zstd -q -T0 -3 -o $d/pkgs.tar.zst
mkdir -p $d/zips; for p in numpy scipy sympy pandas PIL matplotlib networkx triton; do [ -d $sp/$p ] && (cd $sp && zip -q -r -6 $d/zips/$p.zip $p) & done; wait
ls -l $d $d/zips; for f in $d/*.tar.zst; do echo "$f: $(zstd -lv $f 2>/dev/null | grep -E 'Decompressed|Frames' | tr -s ' ' | tr '\n' ' ')"; done
TIMEFORMAT=%R
for r in 1 2 3 4; do
  for f in inc pkgs; do
    for v in vyre_before vyre_chain vyre; do
      rm -rf /dev/shm/o; echo "--- $f round $r $v"
      { time $v unpack --no-progress --timings --no-recurse $d/$f.tar.zst -o /dev/shm/o > /dev/null 2> /tmp/u.err ; } 2>&1 | sed 's/^/wall /'
      grep -a "^vyre unpack" /tmp/u.err | cut -c1-600
    done
    rm -rf /dev/shm/t; mkdir -p /dev/shm/t; echo "--- $f round $r zstd -dc -T0 | tar x"
    { time (zstd -dc -T0 $d/$f.tar.zst | tar x -C /dev/shm/t) ; } 2>&1 | sed 's/^/wall /'
  done
  for v in vyre_before vyre_chain vyre; do
    rm -rf /dev/shm/o; echo "--- zips round $r $v"
    { time $v unpack --no-progress --timings --no-recurse $d/zips/*.zip -o /dev/shm/o > /dev/null 2> /tmp/u.err ; } 2>&1 | sed 's/^/wall /'
    grep -a "^vyre unpack" /tmp/u.err | cut -c1-600
  done
  rm -rf /dev/shm/u; mkdir -p /dev/shm/u; echo "--- zips round $r unzip, 8 at once"
  { time (ls $d/zips/*.zip | xargs -P 8 -I{} unzip -q -o {} -d /dev/shm/u) ; } 2>&1 | sed 's/^/wall /'
done
rm -rf /dev/shm/o; vyre unpack --no-progress --no-recurse $d/pkgs.tar.zst -o /dev/shm/o 2>/dev/null; rm -rf /dev/shm/t; mkdir -p /dev/shm/t; zstd -dc $d/pkgs.tar.zst | tar x -C /dev/shm/t
echo "pkgs.tar.zst against tar: $(diff -rq /dev/shm/o /dev/shm/t | wc -l) differences"
rm -rf /dev/shm/o; vyre unpack --no-progress --no-recurse $d/zips/*.zip -o /dev/shm/o 2>/dev/null
echo "zips against unzip: $(diff -rq /dev/shm/o /dev/shm/u | wc -l) differences"
echo "=== end $(date -u +%T)"
