#!/bin/bash
# usage: run.sh MODE (tests | e2e): on the device machine, after . ./opencl-nvidia.sh
set -u
here=$(cd "$(dirname "$0")" && pwd)
B=/tmp/r64bin
mkdir -p $B
for z in $here/bin/*.zst; do n=$(basename "$z" .zst); [ "$n" = lib.tar ] && continue; { $here/bin/zstd -q -d -f "$z" -o $B/$n; chmod +x $B/$n; }; done
[ -d /tmp/r64lib ] || $here/bin/zstd -q -d -c $here/bin/lib.tar.zst | tar xf - -C /tmp
export LD_LIBRARY_PATH=/tmp/r64lib
export PATH=$B:$here/bin:$PATH
export VYRE_CACHE_DIR=/tmp/vyre-cache
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; lscpu | grep -i "model name"
repo=$(cd "$here/../.." && pwd); export VYRE_SOURCE_DIR=$repo
mode=${1:-e2e}
if [ "$mode" = tests ]; then
  for t in $B/${TESTS:-test_*}; do
    n=$(basename $t); echo "=== $n $(date -u +%H:%M:%S)"
    (cd $repo && timeout ${TEST_TIMEOUT:-280} $t --log_level=test_suite > $OUT/$n.log 2>&1); echo "rc=$?"
    grep -a -E "No errors|failure|error:" $OUT/$n.log | tail -4
  done
fi
if [ "$mode" = e2e ]; then
  sp=/opt/torch/.venv/lib/python3.12/site-packages
  cd /dev/shm
  if [ ! -s t.tar.gz ]; then
    for set in "/usr/include /usr/share/doc $sp/numpy $sp/scipy" "/usr/include /usr/share/doc $sp/numpy" "/usr/include /usr/share/doc"; do
      tar cf t.tar $set 2>/dev/null
      s=$(stat -c %s t.tar); [ $s -le $((400<<20)) ] && break
    done
    echo "tar of: $set"; ls -l t.tar
    gzip -6 -k -f t.tar; ls -l t.tar.gz
  fi
  t() { # t NAME CMD...: 1 warm-up, then 3 timed runs; output dirs emptied before each
    local name=$1; shift; local times=()
    for i in 0 1 2 3; do
      rm -rf /dev/shm/u /dev/shm/o.out; mkdir -p /dev/shm/u; sync
      local s=$(date +%s.%N); "$@" > /dev/shm/last.out 2> /dev/shm/last.err; local rc=$?; local e=$(date +%s.%N)
      [ $i -gt 0 ] && times+=($(awk "BEGIN{printf \"%.3f\", $e-$s}"))
    done
    echo "$name rc=$rc times ${times[*]}"; tail -c 300 /dev/shm/last.out; grep -a -v "refused:" /dev/shm/last.err | tail -c 1500; echo
  }
  t "vyre decompress (automatic)" vyre decompress --force t.tar.gz -o /dev/shm/o.out
  vyre decompress --force t.tar.gz -o /dev/shm/o.out && cmp /dev/shm/o.out t.tar && echo "decompress bytes equal"
  t "vyre decompress --route host" vyre decompress --force --route host t.tar.gz -o /dev/shm/o.out
  t "vyre unpack (automatic)" vyre unpack --timings t.tar.gz -o /dev/shm/u
  t "vyre unpack --deflate-route host" vyre unpack --timings --deflate-route host t.tar.gz -o /dev/shm/u
  if [ "${FULL:-0}" = 1 ]; then
    t "gzip -dc" sh -c 'gzip -dc t.tar.gz > /dev/shm/o.out'
    t "tar xzf" tar xzf t.tar.gz -C /dev/shm/u
    t "vyre unpack --deflate-route device" vyre unpack --timings --deflate-route device t.tar.gz -o /dev/shm/u
    [ -s i.tar.gz ] || { tar cf i.tar /usr/include 2>/dev/null; gzip -6 -k -f i.tar; }; ls -l i.tar i.tar.gz
    t "i: vyre unpack (automatic)" vyre unpack --timings i.tar.gz -o /dev/shm/u
    t "i: vyre unpack --deflate-route host" vyre unpack --timings --deflate-route host i.tar.gz -o /dev/shm/u
    t "i: vyre unpack --deflate-route device" vyre unpack --timings --deflate-route device i.tar.gz -o /dev/shm/u
    t "i: tar xzf" tar xzf i.tar.gz -C /dev/shm/u
  fi
  [ "${FULL:-0}" = 1 ] && VYRE_DEVICE=nvidia bench_deflate t.tar --one-stream --mib 256 --piece-kib 32 --runs 3 --search device 2>&1 | grep -a -v "^@result" | tail -20
fi
echo "=== end $(date -u +%T)"
if [ "$mode" = cold ]; then
  cd /dev/shm
  [ -s t.tar ] || tar cf t.tar /usr/include /usr/share/doc /opt/torch/.venv/lib/python3.12/site-packages/numpy /opt/torch/.venv/lib/python3.12/site-packages/scipy 2>/dev/null
  for i in 1 2 3; do
    echo "=== process $i $(date -u +%T)"
    VYRE_DEVICE=nvidia bench_deflate t.tar --one-stream --mib 256 --piece-kib 32 --runs 3 --search device 2>&1 | grep -a -v "^@result" | grep -a -E "^libdeflate|^zlib|first run"
  done
fi
if [ "$mode" = itar ]; then
  cd /dev/shm
  [ -s i.tar.gz ] || { tar cf i.tar /usr/include 2>/dev/null; gzip -6 -k -f i.tar; }; ls -l i.tar i.tar.gz
  [ "${BENCH:-1}" = 1 ] && VYRE_DEVICE=nvidia bench_deflate i.tar --one-stream --mib 215 --piece-kib 32 --runs 3 --search device 2>&1 | grep -a -v "^@result" | grep -a -E "^made|^libdeflate|^zlib|#"
  for i in 1 2 3; do
    rm -rf /dev/shm/u; mkdir -p /dev/shm/u
    s=$(date +%s.%N); vyre unpack --timings --deflate-route device i.tar.gz -o /dev/shm/u 2>&1 | grep -a -v "refused:" | tail -2; e=$(date +%s.%N); awk "BEGIN{printf \"wall %.3f\n\", $e-$s}"
  done
  for i in 1 2 3; do
    s=$(date +%s.%N); vyre decompress --force --route device i.tar.gz -o /dev/shm/o.out 2>&1 | tail -2; e=$(date +%s.%N); awk "BEGIN{printf \"wall %.3f\n\", $e-$s}"
  done
fi
