#!/bin/bash
# usage: run.sh MODE [ROUNDS] ; from the repository root on the device machine, after . .device/r31/opencl-nvidia.sh
# The two modes this folder's call ran (the rest of the script is ../2026-11-30-scan-context/run.sh;
# corpus.py is ../2026-11-30-scan/corpus.py):
# yara: vyre scan --yara, the build before and after, against vyre unpack plus yara -r -p 16.
# tests: the test programs under tests/ (zstd-compressed), every case on every device.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/r31lib; for z in $here/bin/lib/*.zst; do [ -e "$z" ] && LD_LIBRARY_PATH=$here/bin/lib $here/bin/zstd -q -d -f "$z" -o /tmp/r31lib/$(basename "$z" .zst); done
export LD_LIBRARY_PATH=$here/bin/lib:/tmp/r31lib
export PATH=$here/bin:$PATH
export VYRE_CACHE_DIR=/tmp/vyre-cache
V=$here/bin/vyre
TIMEFORMAT='wall %R s'
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
w=/dev/shm/sc; mkdir -p $w
mode=${1:-scan}
rounds=${2:-3}
sp=/opt/torch/.venv/lib/python3.12/site-packages
if { [ "$mode" = scan ] || [ "$mode" = yara ]; } && [ ! -d $w/arch ]; then
  time python3 $here/corpus.py $sp $w/arch $here/bin/zstd
  mkdir -p $w/ug; for f in $w/arch/*; do case $(basename $f) in joblib.zip|networkx.zip) ;; *) ln -s $f $w/ug/;; esac; done
fi
ls $w/arch | wc -l; du -sh $w/arch
P=$here/pats1000.txt
case $mode in
tests)
  repo=$(cd "$here/../.." && pwd)
  [ -e /work/main ] || { mkdir -p /work && ln -s "$repo" /work/main; }
  mkdir -p /tmp/r31t
  for t in $here/tests/*.zst; do LD_LIBRARY_PATH=$here/bin/lib $here/bin/zstd -q -d -f "$t" -o /tmp/r31t/$(basename "$t" .zst); chmod +x /tmp/r31t/$(basename "$t" .zst); done
  for t in /tmp/r31t/*; do
    n=$(basename $t); echo "=== $n $(date -u +%H:%M:%S)"
    (cd $repo && timeout 280 $t --log_level=test_suite > $OUT/$n.log 2>&1); echo "rc=$?"
    grep -a -E "No errors|failure|error:" $OUT/$n.log | tail -4
  done;;
yara)
  for R in $here/bench-rules.yar; do
    for i in $(seq 1 $rounds); do
      echo "== vyre-before scan --yara $(basename $R) round $i"; time $here/bin/vyre-before scan --no-progress --timings --yara $R $w/arch/*.zip > $w/vby.txt 2> $OUT/yara-vyre-before-$i.err; tail -1 $OUT/yara-vyre-before-$i.err
      echo "== vyre scan --yara $(basename $R) round $i"; time $V scan --no-progress --timings --yara $R $w/arch/*.zip > $w/vy.txt 2> $OUT/yara-vyre-$i.err; tail -2 $OUT/yara-vyre-$i.err
      rm -rf $w/x
      echo "== vyre unpack to /dev/shm"; time $V unpack --no-progress --timings $w/arch/*.zip -o $w/x 2>&1 >/dev/null | grep "seconds:"
      echo "== yara -r -p 16"; time yara -r -p 16 $R $w/x > $w/y.txt 2>/dev/null
      rm -rf $w/x
    done
    echo "matches: vyre $(wc -l < $w/vy.txt) vyre-before $(wc -l < $w/vby.txt) yara $(wc -l < $w/y.txt)"
    cmp $w/vy.txt $w/vby.txt && echo "vyre and vyre-before: same matches"
  done;;
esac
