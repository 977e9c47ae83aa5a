#!/bin/bash
# usage: run.sh MODE ; from the repository root on the device machine, after . .device/r31/opencl-nvidia.sh
# scan: vyre scan against ugrep -z on archives of the machine's site-packages (in /dev/shm), and
# vyre scan --yara against extraction plus yara -r -p 16.
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
scan)
  $V scan --no-progress --json --max-hits 100000000 --timings -f $P $w/ug/* > $w/v.json 2> $OUT/vyre-first.err; tail -3 $OUT/vyre-first.err
  for i in $(seq 1 $rounds); do
    if [ -x $here/bin/vyre-before ]; then echo "== vyre-before scan round $i"; time $here/bin/vyre-before scan --no-progress --json --max-hits 100000000 --timings -f $P $w/ug/* > $w/vb.json 2> $OUT/vyre-before-$i.err; tail -1 $OUT/vyre-before-$i.err; fi
    echo "== vyre scan round $i"; time $V scan --no-progress --json --max-hits 100000000 --timings -f $P $w/ug/* > $w/v.json 2> $OUT/vyre-$i.err; tail -2 $OUT/vyre-$i.err
    echo "== ugrep -z round $i"; time timeout 100 ugrep -H -z --zmax=8 -F -f $P -o -b --format=$'%f\t%b\t%o%~' $w/ug/* > $w/u.txt; echo "rc=$?"
  done
  cp $OUT/vyre-$rounds.err $OUT/vyre-last.err
  [ -s $w/vb.json ] && { cmp <(grep -v summary $w/v.json) <(grep -v summary $w/vb.json) && echo "vyre and vyre-before: same hits, counts and problems"; }
  (cd $w && python3 $here/compare_ugrep.py v.json u.txt > $OUT/compare.txt 2>&1); head -12 $OUT/compare.txt
  for R in $here/bench-rules.yar; do
    for i in 1 2; do
      echo "== vyre-before scan --yara $(basename $R) round $i"; time $here/bin/vyre-before scan --no-progress --timings --yara $R $w/arch/*.zip > $w/vby.txt 2> $OUT/yara-vyre-before-$i.err; tail -1 $OUT/yara-vyre-before-$i.err
      echo "== vyre scan --yara $(basename $R) round $i"; time $V scan --no-progress --timings --yara $R $w/arch/*.zip > $w/vy.txt 2> $OUT/yara-vyre-$i.err; tail -2 $OUT/yara-vyre-$i.err
      rm -rf $w/x
      echo "== vyre unpack to /dev/shm"; time $V unpack --no-progress --timings $w/arch/*.zip -o $w/x 2>&1 >/dev/null | grep "seconds:"
      echo "== yara -r -p 16"; time yara -r -p 16 $R $w/x > $w/y.txt 2>/dev/null
      rm -rf $w/x $w/xu; mkdir -p $w/xu
      echo "== unzip, 16 archives at a time, to /dev/shm"; time (ls $w/arch/*.zip | xargs -P 16 -I{} sh -c 'unzip -qq -o "$1" -d "$2/$(basename "$1" .zip)"' _ {} $w/xu)
      echo "== yara -r -p 16 on unzip's tree"; time yara -r -p 16 $R $w/xu > $w/yu.txt 2>/dev/null
      rm -rf $w/xu
    done
    echo "matches on unzip's tree: $(wc -l < $w/yu.txt)"
    echo "matches: vyre $(wc -l < $w/vy.txt) vyre-before $(wc -l < $w/vby.txt) yara $(wc -l < $w/y.txt)"
    cmp $w/vy.txt $w/vby.txt && echo "vyre and vyre-before: same matches"
    rm -rf $w/x
  done
  # fixed costs: one small .tar.zst (the headers of /usr/include), both builds and zstd | tar
  [ -s $w/inc.tar.zst ] || (tar cf - -C / usr/include 2>/dev/null | zstd -q -T0 -3 -o $w/inc.tar.zst)
  ls -l $w/inc.tar.zst
  for i in 1 2 3; do
    for b in vyre-before vyre; do
      rm -rf $w/iu; mkdir -p $w/iu
      echo "== $b unpack inc round $i"; time $here/bin/$b unpack --no-progress --timings --no-recurse $w/inc.tar.zst -o $w/iu 2>&1 >/dev/null | grep "seconds:"
    done
    rm -rf $w/it; mkdir -p $w/it
    echo "== zstd -dc -T0 | tar x inc round $i"; time (zstd -q -dc -T0 $w/inc.tar.zst | tar xf - -C $w/it)
  done
  rm -rf $w/iu $w/it;;
esac
