#!/bin/bash
# Diagnostics: persistence mode, the largest --yara candidate and libyara's time on it, and the exit
# cost of vyre scan --yara with and without a process holding the driver open (cuInit, no context).
here=$(cd "$(dirname "$0")" && pwd)
B=/tmp/r116bin; w=/dev/shm/sc; R=$here/bench-rules.yar
export VYRE_CACHE_DIR=/tmp/vyre-cache PATH=/tmp/r116bin:$PATH LD_LIBRARY_PATH=/tmp/r116lib; TIMEFORMAT="wall %R s"
nvidia-smi -q | grep -i -A1 "persistence" | head -4
bash $here/run.sh exit_cost 2>&1 | grep -v "^383\|340M"
rm -rf $w/x; $B/vyre unpack --no-progress $w/arch/*.zip -o $w/x > /dev/null 2>&1
big=$(find $w/x -type f -size 20822272c | head -3); echo "largest candidate: $big"
for f in $big; do file "$f" 2>/dev/null | cut -c1-200; for i in 1 2 3; do /usr/bin/time -f "yara on it: %e s" yara $R "$f"; done; done
find $w/x -type f -size +4M | wc -l
find $w/x -type f -size +4M -printf "%s %p\n" | sort -n -r | head -12
python3 -c 'import ctypes,time; c=ctypes.CDLL("libcuda.so.1"); print("cuInit", c.cuInit(0), flush=True); time.sleep(120)' &
holder=$!; sleep 3
echo "with a process holding the driver (cuInit):"
bash $here/run.sh exit_cost 2>&1 | grep -v "^383\|340M"
for i in 1 2 3; do
  for b in vyre-before vyre; do echo "== $b"; ( time $B/$b scan --no-progress --yara $R $w/arch/*.zip > /dev/null 2>&1 ) 2>&1 | grep wall; done
  echo "== vyre unpack + yara"; ( time $B/vyre unpack --no-progress $w/arch/*.zip -o $w/y > /dev/null 2>&1 ) 2>&1 | grep wall; ( time yara -r -p 16 $R $w/y > /dev/null 2>&1 ) 2>&1 | grep wall; rm -rf $w/y
done
kill $holder
