#!/usr/bin/env bash
# `vyre unpack` against the tools people use, same archives, same run: a tar.zst and a tar.lz4 of a
# system folder and a ZIP of another, made here by the tar, zstd, lz4 and zip found on PATH; the
# time to extract each and the time to list it with a SHA-256 of every entry.
#
#   bench/unpack.sh [-v VYRE] [-r RUNS] SRC WORK [ZIPSRC]
#     SRC     folder for the tar.zst and tar.lz4 (e.g. /usr, or a large part of it)
#     WORK    scratch folder (created; archives and extracted trees go there, removed at the end)
#     ZIPSRC  folder for the ZIP (default /usr/share/doc)
#     -v      the vyre binary (default: $VYRE, else build/example/vyre)
#     -r      runs of each command; the best time is kept (default 1)
#
# Peers: extraction by `tar -I 'zstd -T0' -xf`, `lz4 -dc | tar -xf -`, `unzip -q`; listing by the
# same tools' list modes (`tar -t`, `unzip -l`, names only) and by decoding into sha256sum (one hash
# of everything: cheaper than a hash per entry, which no standard tool prints). vyre runs with
# --no-recurse for these rows (the .gz files inside /usr stay closed, as they do for tar); the row
# "vyre (nested)" lists with every nested archive opened as well.
#
# Prints a table, then one "@result {...}" line per figure (the format of bench/bench_util.hpp).
set -euo pipefail

vyre=${VYRE:-build/example/vyre}
runs=1
while getopts "v:r:" opt; do
  case $opt in
    v) vyre=$OPTARG ;;
    r) runs=$OPTARG ;;
    *) sed -n '2,17p' "$0"; exit 2 ;;
  esac
done
shift $((OPTIND - 1))
[ $# -ge 2 ] || { sed -n '2,17p' "$0"; exit 2; }
src=$(readlink -f "$1")
work=$2
zipsrc=$(readlink -f "${3:-/usr/share/doc}")
[ -d "$src" ] || { echo "unpack.sh: $src is not a folder" >&2; exit 2; }
[ -d "$zipsrc" ] || { echo "unpack.sh: $zipsrc is not a folder" >&2; exit 2; }
vyre=$(readlink -f "$vyre")
[ -x "$vyre" ] || { echo "unpack.sh: no vyre binary at $vyre (give -v or set VYRE)" >&2; exit 2; }
for tool in tar zstd lz4 zip unzip sha256sum awk; do
  command -v "$tool" > /dev/null || { echo "unpack.sh: $tool is not on PATH" >&2; exit 2; }
done
mkdir -p "$work"
work=$(readlink -f "$work")
trap 'rm -rf "$work/out" "$work/archives"' EXIT
mkdir -p "$work/archives"
a=$work/archives

now() { date +%s.%N; }
# Arithmetic on seconds with awk (bc is not on every machine).
calc() { awk "BEGIN { print $1 }"; }
# tar exits 1 when a file changed while it was read (a live /usr): that archive is still good.
tar_of() { tar -cf - -C "$(dirname "$1")" "$(basename "$1")" 2> "$work/tar-warnings.txt" || [ $? -eq 1 ]; }

echo "making archives of $src and $zipsrc in $a"
t0=$(now)
tar_of "$src" | zstd -q -T0 > "$a/src.tar.zst"
t1=$(now)
tar_of "$src" | lz4 -q > "$a/src.tar.lz4"
t2=$(now)
(cd "$(dirname "$zipsrc")" && zip -q -r -y "$a/doc.zip" "$(basename "$zipsrc")") || [ $? -eq 18 ] # 18: some file unreadable
t3=$(now)
raw=$(zstd -q -dc "$a/src.tar.zst" | wc -c)
zipraw=$(unzip -l "$a/doc.zip" | tail -n 1 | awk '{print $1}')
printf 'made: %s (%.1f s), %s (%.1f s), %s (%.1f s)\n' "$(du -h "$a/src.tar.zst" | cut -f1)" "$(calc "$t1 - $t0")" \
  "$(du -h "$a/src.tar.lz4" | cut -f1)" "$(calc "$t2 - $t1")" "$(du -h "$a/doc.zip" | cut -f1)" "$(calc "$t3 - $t2")"

# Build (or load from the kernel cache) the device programs before anything is timed.
seq 1 50000 | zstd -q > "$work/warm.zst"
seq 1 50000 | lz4 -q > "$work/warm.lz4"
"$vyre" unpack --no-progress --list "$work/warm.zst" "$work/warm.lz4" > /dev/null 2>&1 || true
rm -f "$work/warm.zst" "$work/warm.lz4"
device=$("$vyre" unpack --json --no-progress --no-recurse "$a/doc.zip" 2> /dev/null | grep -o '"device":"[^"]*"' | tail -n 1 | cut -d'"' -f4 || true)
[ -n "$device" ] || device=unknown
gb() { awk -v b="$1" 'BEGIN { printf "%.2f GB", b / 1e9 }'; }
in_zst="tar.zst of $src ($(gb "$raw"))"
in_lz4="tar.lz4 of $src ($(gb "$raw"))"
in_zip="zip of $zipsrc ($(gb "$zipraw"))"

rows=()
# measure INPUT METRIC SERIES BYTES COMMAND: the best of $runs wall times; vyre may exit 1 (it
# refused something, e.g. absolute symlinks in /usr), anything else is a failure.
measure() {
  local input=$1 metric=$2 series=$3 bytes=$4 cmd=$5 best="" rc
  for _ in $(seq "$runs"); do
    rm -rf "$work/out"
    mkdir -p "$work/out"
    sync
    local s e
    s=$(now)
    set +e
    bash -c "set -o pipefail; $cmd" > "$work/stdout.txt" 2> "$work/stderr.txt"
    rc=$?
    set -e
    e=$(now)
    if [ $rc -ne 0 ] && ! { [ "$series" != "${series#vyre}" ] && [ $rc -eq 1 ]; }; then
      echo "unpack.sh: '$cmd' failed (exit $rc):" >&2
      tail -n 5 "$work/stderr.txt" >&2
      exit 1
    fi
    local t
    t=$(calc "$e - $s")
    if [ -z "$best" ] || [ "$(calc "($t < $best) ? 1 : 0")" = 1 ]; then best=$t; fi
  done
  local note=""
  if [ "$metric" = "extract seconds" ]; then
    note="$(find "$work/out" -type f | wc -l) files, $(du -sb "$work/out" | cut -f1) bytes"
  fi
  if [ "$series" != "${series#vyre}" ]; then
    note="$note${note:+; }$(grep '^vyre unpack: [0-9]* entries' "$work/stderr.txt" | tail -n 1 | sed 's/^vyre unpack: //' | cut -c1-160)"
  fi
  rows+=("$(printf '%-34s %-14s %-22s %8.2f s %8.0f MB/s  %s' "$input" "$metric" "$series" "$best" \
    "$(calc "$bytes / $best / 1000000")" "$note")")
  results+=("$(printf '@result {"bench":"unpack","device":"%s","input":"%s","x_name":"","x":0,"series":"%s","metric":"%s","value":%.6f}' \
    "$device" "$input" "$series" "$metric" "$best")")
  rm -rf "$work/out"
}
results=()

o=$work/out
measure "$in_zst" "extract seconds" "vyre" "$raw" "'$vyre' unpack --no-progress --no-recurse '$a/src.tar.zst' -o '$o'"
measure "$in_zst" "extract seconds" "tar+zstd -T0" "$raw" "tar -I 'zstd -T0' -xf '$a/src.tar.zst' -C '$o'"
measure "$in_zst" "list seconds" "vyre" "$raw" "'$vyre' unpack --no-progress --no-recurse --list '$a/src.tar.zst' > /dev/null"
measure "$in_zst" "list seconds" "vyre (nested)" "$raw" "'$vyre' unpack --no-progress --list '$a/src.tar.zst' > /dev/null"
measure "$in_zst" "list seconds" "tar -t (names only)" "$raw" "tar -I 'zstd -T0' -tf '$a/src.tar.zst' > /dev/null"
measure "$in_zst" "list seconds" "zstd -dc | sha256sum" "$raw" "zstd -q -T0 -dc '$a/src.tar.zst' | sha256sum > /dev/null"

measure "$in_lz4" "extract seconds" "vyre" "$raw" "'$vyre' unpack --no-progress --no-recurse '$a/src.tar.lz4' -o '$o'"
measure "$in_lz4" "extract seconds" "lz4 -d | tar" "$raw" "lz4 -q -dc '$a/src.tar.lz4' | tar -xf - -C '$o'"
measure "$in_lz4" "list seconds" "vyre" "$raw" "'$vyre' unpack --no-progress --no-recurse --list '$a/src.tar.lz4' > /dev/null"
measure "$in_lz4" "list seconds" "lz4 -d | tar -t" "$raw" "lz4 -q -dc '$a/src.tar.lz4' | tar -tf - > /dev/null"
measure "$in_lz4" "list seconds" "lz4 -dc | sha256sum" "$raw" "lz4 -q -dc '$a/src.tar.lz4' | sha256sum > /dev/null"

measure "$in_zip" "extract seconds" "vyre" "$zipraw" "'$vyre' unpack --no-progress --no-recurse '$a/doc.zip' -o '$o'"
measure "$in_zip" "extract seconds" "unzip -q" "$zipraw" "unzip -q '$a/doc.zip' -d '$o'"
measure "$in_zip" "list seconds" "vyre" "$zipraw" "'$vyre' unpack --no-progress --no-recurse --list '$a/doc.zip' > /dev/null"
measure "$in_zip" "list seconds" "unzip -l (names only)" "$zipraw" "unzip -l '$a/doc.zip' > /dev/null"
measure "$in_zip" "list seconds" "unzip -p | sha256sum" "$zipraw" "unzip -p '$a/doc.zip' | sha256sum > /dev/null"

echo
echo "vyre unpack on $device, $(nproc) host threads; best of $runs run(s); MB/s of uncompressed content"
printf '%-34s %-14s %-22s %10s %13s  %s\n' input metric series time rate notes
printf '%s\n' "${rows[@]}"
echo
printf '%s\n' "${results[@]}"
