#!/bin/bash
# usage: run.sh MODE[,MODE] (tests | yara): from the repository root on the device machine, after . ./opencl-nvidia.sh
#   tests: the test programs of tests/ (TEST_DEVICES: VYRE_DEVICES for them, default every device)
#   yara: vyre scan --yara before (7e7c1fd: libyara inside each scan call's callback) and after
#         (7ac7f1d: libyara beside the scan; the deflate pass's phases in --timings), alternating, against
#         vyre unpack + yara -r -p 16 (and unzip x16 + yara where unzip is installed), on ZIPs of
#         the machine's site-packages made by corpus.py in /dev/shm
set -u
here=$(cd "$(dirname "$0")" && pwd)
B=/tmp/r108bin; L=/tmp/r108lib
mkdir -p $B $L
for z in $here/bin/*.zst; do n=$(basename "$z" .zst); [ -e $B/$n ] || { $here/bin/zstd -q -d -f "$z" -o $B/$n; chmod +x $B/$n; }; done
for z in $here/bin/lib/*.zst; do n=$(basename "$z" .zst); [ -e $L/$n ] || $here/bin/zstd -q -d -f "$z" -o $L/$n; done
export PATH=$B:$here/bin:$PATH
export LD_LIBRARY_PATH=$L${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export VYRE_CACHE_DIR=/tmp/vyre-cache
TIMEFORMAT='wall %R s'
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
repo=$(cd "$here/../.." && pwd); export VYRE_SOURCE_DIR=$repo
w=/dev/shm/sc; mkdir -p $w
sp=/opt/torch/.venv/lib/python3.12/site-packages
tests() {
  mkdir -p /tmp/r108t
  for z in $here/tests/*.zst; do
    n=$(basename "$z" .zst)
    zstd -q -d -f "$z" -o /tmp/r108t/$n; chmod +x /tmp/r108t/$n
    echo "=== $n $(date -u +%H:%M:%S)"
    (cd $repo && VYRE_DEVICES=${TEST_DEVICES:-} timeout ${TEST_TIMEOUT:-280} /tmp/r108t/$n --log_level=test_suite > $OUT/$n.log 2>&1); echo "rc=$?"
    grep -a -E "No errors|failure|error:" $OUT/$n.log | cut -c1-300 | tail -4
  done
}
yara() {
  [ -d $w/arch ] || { time python3 $here/corpus.py $sp $w/arch zstd; }
  ls $w/arch/*.zip | wc -l; du -sh $w/arch
  R=$here/bench-rules.yar
  command yara --version
  $B/vyre scan --no-progress --timings --yara $R $w/arch/*.zip > $w/vy.txt 2> $OUT/yara-first.err; tail -2 $OUT/yara-first.err | cut -c1-900
  for i in $(seq 1 ${ROUNDS:-3}); do
    echo "== before round $i"; time $B/vyre-before scan --no-progress --timings --yara $R $w/arch/*.zip > $w/vby.txt 2> $OUT/yara-before-$i.err; tail -1 $OUT/yara-before-$i.err | cut -c1-900
    echo "== after round $i"; time $B/vyre scan --no-progress --timings --yara $R $w/arch/*.zip > $w/vy.txt 2> $OUT/yara-after-$i.err; tail -2 $OUT/yara-after-$i.err | cut -c1-900
    rm -rf $w/x
    echo "== vyre unpack to /dev/shm"; time $B/vyre unpack --no-progress --timings $w/arch/*.zip -o $w/x 2>&1 > /dev/null | grep -a "seconds:" | cut -c1-900
    echo "== yara -r -p 16"; time command yara -r -p 16 $R $w/x > $w/y.txt 2>/dev/null
    rm -rf $w/x
    if command -v unzip > /dev/null; then
      mkdir -p $w/xu
      echo "== unzip, 16 archives at a time"; time (ls $w/arch/*.zip | xargs -P 16 -I{} sh -c 'unzip -qq -o "$1" -d "$2/$(basename "$1" .zip)"' _ {} $w/xu)
      echo "== yara -r -p 16 on unzip's tree"; time command yara -r -p 16 $R $w/xu > $w/yu.txt 2>/dev/null
      rm -rf $w/xu
    fi
  done
  echo "matches: after $(wc -l < $w/vy.txt) before $(wc -l < $w/vby.txt) yara $(wc -l < $w/y.txt)"
  cmp $w/vy.txt $w/vby.txt && echo "after and before: same matches, same order"
}
mode=${1:-tests}
for m in ${mode//,/ }; do $m; done
echo "=== end $(date -u +%T)"
