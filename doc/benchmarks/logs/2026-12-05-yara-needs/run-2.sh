#!/bin/bash
# usage: run.sh MODE[,MODE] (trace | yara | scan | tests): from the repository root on the device machine, after . ./opencl-nvidia.sh
#   trace: one run of the after build's vyre scan --yara and vyre scan -f with VYRE_TRACE=0.5 (every OpenCL call
#          and program build of 0.5 ms or more); the longest lines printed
#   context: where the device context's start goes (VYRE_TRACE=0 of vyre devices and of one --yara run of the after
#          build), then vyre scan --yara before (33b981f) and after (the first GPU found platform by platform),
#          alternating, six rounds, the "device context" part of --timings
#   yara:  vyre scan --yara before (0956ca3), mid (conditions' counts in the prefilter) and after (and host files of 4 MiB or more
#          scanned first), alternating, against vyre unpack + yara -r -p 16
#   exit_cost: wall time less the traced "exiting" mark, of vyre help, vyre devices and vyre scan --yara
#   scan:  vyre scan -f pats1000.txt before and after, alternating, against ugrep -z -F -f on all cores
#   tests: the test programs of tests/ (TEST_DEVICES: VYRE_DEVICES for them, default every device)
# Archives: ZIPs (and a .tar.gz, a .tar.zst) of the machine's site-packages made by corpus.py in /dev/shm.
set -u
here=$(cd "$(dirname "$0")" && pwd)
B=/tmp/r116bin; L=/tmp/r116lib
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
P=$here/pats1000.txt; R=$here/bench-rules.yar
corpus() {
  [ -d $w/arch ] || { time python3 $here/corpus.py $sp $w/arch zstd; }
  [ -d $w/ug ] || { mkdir -p $w/ug; for f in $w/arch/*; do case $(basename $f) in joblib.zip|networkx.zip) ;; *) ln -s $f $w/ug/;; esac; done; }
  ls $w/arch | wc -l; du -sh $w/arch
}
warm() { # the driver's first build of every kernel on a fresh machine, out of the timed runs
  [ -e $w/warm ] && return
  $B/vyre scan --no-progress --timings --yara $R $w/arch/*.zip > /dev/null 2> $OUT/warm-yara.err; tail -2 $OUT/warm-yara.err | cut -c1-600
  $B/vyre scan --no-progress --json --max-hits 100000000 -f $P $w/ug/* > /dev/null 2> $OUT/warm-scan.err; tail -1 $OUT/warm-scan.err | cut -c1-600
  $B/vyre-before scan --no-progress --json --max-hits 100000000 -f $P $w/ug/* > /dev/null 2>&1
  touch $w/warm
}
tests() {
  mkdir -p /tmp/r116t
  for z in $here/tests/*.zst; do
    n=$(basename "$z" .zst)
    zstd -q -d -f "$z" -o /tmp/r116t/$n; chmod +x /tmp/r116t/$n
    echo "=== $n $(date -u +%H:%M:%S)"
    filter=; [ -e $here/tests/$n.filter ] && filter="--run_test=$(cat $here/tests/$n.filter)" && echo "$filter"
    (cd $repo && VYRE_DEVICES=${TEST_DEVICES:-} timeout ${TEST_TIMEOUT:-280} /tmp/r116t/$n $filter --log_level=test_suite > $OUT/$n.log 2>&1); echo "rc=$?"
    grep -a -E "No errors|failure|error:" $OUT/$n.log | cut -c1-300 | tail -4
    (cd $OUT && tar rf tests.tar $n.log && rm $n.log)
  done
}
summary() { # per call: how many took 0.5 ms or more, and their milliseconds; then the 30 longest in time order
  echo "calls of 0.5 ms or more, by name:"; grep "vyre trace" $1 | awk '{n[$9" "$10]++; t[$9" "$10]+=$7} END {for (k in n) printf "  %-40s %5d  %9.3f ms\n", k, n[k], t[k]}' | sort -k3 -n -r
  echo "the 30 longest:"; grep "vyre trace" $1 | sort -k7 -g -r | head -30 | sort -k3 -g
}
trace() {
  corpus; warm
  VYRE_TRACE=0.5 $B/vyre scan --no-progress --timings --yara $R $w/arch/*.zip > /dev/null 2> $OUT/trace-yara.err
  grep -v "vyre trace" $OUT/trace-yara.err | tail -2 | cut -c1-1500
  summary $OUT/trace-yara.err
  VYRE_TRACE=0.5 $B/vyre scan --no-progress --json --max-hits 100000000 --timings -f $P $w/ug/* > /dev/null 2> $OUT/trace-scan.err
  grep -v "vyre trace" $OUT/trace-scan.err | tail -2 | cut -c1-1500
  summary $OUT/trace-scan.err
}
yara() { # three builds alternating: before (0956ca3), mid (conditions' counts in the prefilter), after (and the largest host files first)
  corpus; warm
  command yara --version
  for i in $(seq 1 ${ROUNDS:-3}); do
    for b in vyre-before vyre-mid vyre; do
      echo "== $b round $i"; time $B/$b scan --no-progress --timings --yara $R $w/arch/*.zip > $w/$b.txt 2> $OUT/yara-$b-$i.err; tail -2 $OUT/yara-$b-$i.err | cut -c1-1300
    done
    rm -rf $w/x
    echo "== vyre unpack to /dev/shm"; time $B/vyre unpack --no-progress $w/arch/*.zip -o $w/x > /dev/null 2>&1
    echo "== yara -r -p 16"; time command yara -r -p 16 $R $w/x > $w/y.txt 2>/dev/null
    rm -rf $w/x
  done
  echo "matches: after $(wc -l < $w/vyre.txt) mid $(wc -l < $w/vyre-mid.txt) before $(wc -l < $w/vyre-before.txt) yara $(wc -l < $w/y.txt)"
  cmp $w/vyre.txt $w/vyre-before.txt && cmp $w/vyre-mid.txt $w/vyre-before.txt && echo "all three builds: same matches, same order"
}
exit_cost() { # what the process takes after the command is done: wall less the traced "exiting" mark
  corpus; warm
  for i in 1 2 3 4; do
    s0=$(date +%s.%N); $B/vyre help > /dev/null 2>&1; s1=$(date +%s.%N)
    echo "vyre help: wall $(awk "BEGIN{printf \"%.4f\", $s1 - $s0}") s"
    s0=$(date +%s.%N); VYRE_TRACE=100000 $B/vyre devices > /dev/null 2> $w/ex.err; s1=$(date +%s.%N)
    echo "vyre devices: wall $(awk "BEGIN{printf \"%.4f\", $s1 - $s0}") s; $(grep -a exiting $w/ex.err)"
    s0=$(date +%s.%N); VYRE_TRACE=100000 $B/vyre scan --no-progress --timings --yara $R $w/arch/*.zip > /dev/null 2> $w/ex.err; s1=$(date +%s.%N)
    echo "vyre scan --yara: wall $(awk "BEGIN{printf \"%.4f\", $s1 - $s0}") s; $(grep -a exiting $w/ex.err); $(grep -a -o 'total [0-9.]*' $w/ex.err)"
  done
}
scan() {
  corpus; warm
  ugrep --version | head -1
  for i in $(seq 1 ${SROUNDS:-3}); do
    echo "== before round $i"; time $B/vyre-before scan --no-progress --json --max-hits 100000000 --timings -f $P $w/ug/* > $w/vb.json 2> $OUT/scan-before-$i.err; tail -2 $OUT/scan-before-$i.err | cut -c1-1200
    echo "== after round $i"; time $B/vyre scan --no-progress --json --max-hits 100000000 --timings -f $P $w/ug/* > $w/v.json 2> $OUT/scan-after-$i.err; tail -2 $OUT/scan-after-$i.err | cut -c1-1200
    echo "== ugrep -z round $i"; time timeout 100 ugrep -H -z --zmax=8 -F -f $P -o -b --format=$'%f\t%b\t%o%~' $w/ug/* > $w/u.txt; echo "rc=$?"
  done
  cmp <(grep -v summary $w/v.json) <(grep -v summary $w/vb.json) && echo "after and before: same hits, counts and problems"
  (cd $w && python3 $here/compare_ugrep.py v.json u.txt > $OUT/compare.txt 2>&1); head -8 $OUT/compare.txt
}
context() {
  corpus; warm
  echo "vyre devices, traced:"; VYRE_TRACE=0 $B/vyre devices 2>&1 | grep -a "vyre trace" | head -20
  VYRE_TRACE=0 $B/vyre scan --no-progress --timings --yara $R $w/arch/*.zip 2>&1 > /dev/null | grep -a "vyre trace" | head -12
  for i in 1 2 3 4 5 6; do
    for b in vyre-before vyre; do
      s0=$(date +%s.%N); $B/$b scan --no-progress --timings --yara $R $w/arch/*.zip > /dev/null 2> $w/ctx.err; s1=$(date +%s.%N)
      echo "$b: wall $(awk "BEGIN{printf \"%.3f\", $s1 - $s0}") s; $(grep -a -o "device context [0-9.]*" $w/ctx.err); $(grep -a -o "total [0-9.]*" $w/ctx.err)"
    done
  done
}
mode=${1:-tests}
for m in ${mode//,/ }; do
  $m
  (cd $OUT && ls *.err *.log 2>/dev/null | grep -v '^run.log$' > .list; [ -s .list ] && tar czf logs-$m.tgz -T .list && rm -f $(cat .list); rm -f .list)
done
echo "=== end $(date -u +%T)"
