#!/bin/bash
# usage: run.sh MODE [ROUNDS] ; from the repository root on the device machine, after . .device/r30/opencl-nvidia.sh
# small: vyre unpack (before / after with --host-below 0 / after) against zstd|tar, lz4|tar, unzip
#        and tar xzf on archives of three sizes, in /dev/shm.
# tests: the test programs under tests/ (zstd-compressed), every case on every device.
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/r30lib; for z in $here/bin/lib/*.zst; do [ -e "$z" ] && $here/bin/zstd -q -d -f "$z" -o /tmp/r30lib/$(basename "$z" .zst); done
export LD_LIBRARY_PATH=$here/bin/lib:/tmp/r30lib
export PATH=$here/bin:$PATH
export VYRE_CACHE_DIR=/tmp/vyre-cache
TIMEFORMAT='wall %R s'
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
mode=${1:-small}
rounds=${2:-3}
sp=/opt/torch/.venv/lib/python3.12/site-packages
case $mode in
tests)
  repo=$(cd "$here/../.." && pwd)
  [ -e /work/main ] || { mkdir -p /work && ln -s "$repo" /work/main; }
  mkdir -p /tmp/r30t
  for t in $here/tests/*.zst; do $here/bin/zstd -q -d -f "$t" -o /tmp/r30t/$(basename "$t" .zst); chmod +x /tmp/r30t/$(basename "$t" .zst); done
  for t in /tmp/r30t/*; do
    n=$(basename $t); echo "=== $n $(date -u +%H:%M:%S)"
    (cd $repo && timeout 280 $t --log_level=test_suite > $OUT/$n.log 2>&1); echo "rc=$?"
    grep -a -E "No errors|failure|error:" $OUT/$n.log | tail -4
  done;;
small)
  w=/dev/shm/sm; mkdir -p $w; cd $w
  # s: the headers of /usr/include; m: numpy and scipy; l: torch, numpy and scipy (the "mid" tar of 2026-11-30)
  [ -s s.tar ] || tar cf s.tar -C / usr/include 2>/dev/null
  [ -s m.tar ] || tar cf m.tar -C $sp numpy scipy 2>/dev/null
  [ -s l.tar ] || tar cf l.tar -C $sp torch numpy scipy 2>/dev/null
  for x in s m l; do
    [ -s $x.tar.zst ] || zstd -q -T0 -3 $x.tar -o $x.tar.zst
    [ -s $x.tar.lz4 ] || lz4 -q $x.tar $x.tar.lz4
  done
  for x in ${GZ_SETS:-s m}; do
    [ -s $x.tar.gz ] || gzip -1 -c $x.tar > $x.tar.gz
    if [ ! -s $x.zip ]; then mkdir -p $x.d && tar xf $x.tar -C $x.d && (cd $x.d && zip -q -r -1 ../$x.zip .) ; rm -rf $x.d; fi
  done
  ls -l $w
  peer() { # peer ARCHIVE OUTDIR
    case $1 in
      *.tar.zst) zstd -q -dc -T0 $1 | tar xf - -C $2;;
      *.tar.lz4) lz4 -q -dc $1 | tar xf - -C $2;;
      *.tar.gz) tar xzf $1 -C $2;;
      *.zip) unzip -qq -o $1 -d $2;;
    esac
  }
  for a in ${ARCHIVES:-s.tar.zst s.tar.lz4 s.tar.gz s.zip m.tar.zst m.tar.lz4 m.tar.gz m.zip l.tar.zst l.tar.lz4}; do
    for i in $(seq 1 $rounds); do
      IFS=';' read -ra variants <<< "${VARIANTS:-vyre-before;vyre --host-below 0;vyre}"
      for b in "${variants[@]}"; do
        set -- $b
        rm -rf $w/o; mkdir -p $w/o
        echo "== $a round $i: $b"; time $here/bin/$1 unpack "${@:2}" --no-progress --timings $a -o $w/o > /dev/null 2> $w/err.txt; grep -a "entries\|seconds:" $w/err.txt | sed 's/^vyre unpack: //'
      done
      rm -rf $w/p; mkdir -p $w/p
      echo "== $a round $i: peer"; time peer $a $w/p 2>/dev/null
    done
    diff -rq $w/o $w/p > $w/diff.txt 2>&1; echo "diff between vyre (default) and the peer: $(wc -l < $w/diff.txt) line(s)"; head -3 $w/diff.txt
  done
  rm -rf $w/o $w/p;;
decompress)
  w=/dev/shm/sm; cd $w
  for a in ${ARCHIVES:-l.tar.lz4 m.tar.lz4}; do
    for i in $(seq 1 $rounds); do
      if [ -x $here/bin/vyre-before ]; then echo "== vyre-before decompress $a round $i"; time $here/bin/vyre-before decompress --timings -f $a -o $w/v.tar 2>&1 | tail -3; fi
      echo "== vyre decompress $a round $i"; time $here/bin/vyre decompress --timings -f $a -o $w/v.tar 2>&1 | tail -3
      case $a in
        *.lz4) echo "== lz4 -d $a round $i"; time lz4 -q -d -f $a $w/l.out;;
        *.zst) echo "== zstd -d -T0 $a round $i"; time zstd -q -d -T0 -f $a -o $w/l.out;;
        *.gz) echo "== gzip -dc $a round $i"; time (gzip -dc $a > $w/l.out);;
      esac
    done
    cmp $w/v.tar ${a%.*} && echo "vyre decompress $a: the tar, byte for byte"
  done
  rm -f $w/v.tar $w/l.out;;
esac
