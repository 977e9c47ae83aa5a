#!/bin/bash
# usage: run.sh tests|windows ; from the repository root on the device machine, after . .device/r32/opencl-nvidia.sh
# 1. the unpack test programs (tests/, zstd-compressed) on every device; test_unpack_formats only
#    for the cases this change touches (the machine lacks cpio, 7z and dpkg-deb, which others need);
# 2. a ZIP and a plain tar of site-packages unpacked whole and in windows (time, peak memory).
set -u
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p /tmp/r32lib; for z in $here/bin/lib/*.zst; do [ -e "$z" ] && $here/bin/zstd -q -d -f "$z" -o /tmp/r32lib/$(basename "$z" .zst); done
export LD_LIBRARY_PATH=$here/bin/lib:/tmp/r32lib
export PATH=$here/bin:$PATH
export VYRE_CACHE_DIR=/tmp/vyre-cache
[ -x /opt/torch/.venv/bin/python3 ] && export PATH=$PATH:/opt/torch/.venv/bin
mode=${1:-tests}
date -u '+%F %T UTC'; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc
for tool in tar gzip xz bzip2 python3 zip lz4 zstd 7z cpio; do printf '%s=%s ' $tool "$(command -v $tool >/dev/null && echo yes || echo no)"; done; echo
repo=$(cd "$here/../.." && pwd)
[ -e /work/main ] || { mkdir -p /work && ln -s "$repo" /work/main; }
mkdir -p /tmp/r32t
for t in $here/tests/*.zst; do $here/bin/zstd -q -d -f "$t" -o /tmp/r32t/$(basename "$t" .zst); chmod +x /tmp/r32t/$(basename "$t" .zst); done
touched='*/tars_unpacked_in_windows_match_the_ordinary_run,windows_carry_global_headers_and_bound_what_they_decode,streamed_archives_hold_a_window_not_the_archive,container_images_flatten_with_whiteouts,gnu_sparse_files_expand_in_every_format,zip_ppmd_entries_through_libarchive,zip_methods_bzip2_lzma_and_xz'
run_test() { # NAME [ARGS]
  local n=$1; shift
  echo "=== $n $* $(date -u +%H:%M:%S)"
  (cd $repo && timeout 240 /tmp/r32t/$n --log_level=test_suite "$@" > $OUT/$n.log 2>&1); echo "rc=$?"
  grep -a -E "No errors|failure|error:|Entering test suite \"dev" $OUT/$n.log | tail -8
}
if [ $mode = tests ]; then
run_test test_format_archive
run_test test_libarchive_corpus
run_test test_unpack_formats "--run_test=$touched"
run_test test_unpack
run_test test_scan_engine
exit 0
fi
# 2. whole and in windows
sp=/opt/torch/.venv/lib/python3.12/site-packages
w=/dev/shm/w; mkdir -p $w; cd $w
[ -s m.zip ] || (cd $sp && zip -q -r -1 $w/m.zip torch numpy scipy)
[ -s l.tar ] || tar cf l.tar -C $sp torch numpy scipy 2>/dev/null
ls -l $w
peak() { python3 -c 'import resource,subprocess,sys,time; t=time.time(); r=subprocess.run(sys.argv[1:],stdout=subprocess.DEVNULL,stderr=subprocess.PIPE,text=True); print("  %.2f s, peak %d MiB, rc %d: %s" % (time.time()-t, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss//1024, r.returncode, r.stderr.strip().splitlines()[-1][:400] if r.stderr.strip() else ""))' "$@"; }
for round in 1 2; do
  for a in m.zip l.tar; do
    for how in whole windows; do
      rm -rf out; extra=(); [ $how = windows ] && extra=(--stream-above 0 --window 256M)
      echo "$a $how extract round $round"; peak $here/bin/vyre unpack $a -o out "${extra[@]}"
      echo "$a $how list round $round"; peak $here/bin/vyre unpack $a --list "${extra[@]}"
    done
  done
done
rm -rf out
