#!/usr/bin/env bash
# Several devices and several workers on one host, same archives, same run: `vyre unpack --json`
# and `vyre scan --json` of a corpus of package archives on one GPU (the default device, one run),
# on every GPU (--devices nvidia), on every GPU and PoCL (--devices all) and on PoCL alone; then,
# with --ray, the Ray driver with 1 and N GPU workers and with a worker killed mid-run.
#
#   bench/scale_out.sh [-v VYRE] [--ray N] SITE_PACKAGES WORK
#     SITE_PACKAGES  where the corpus comes from (bench/package_corpus.py, 6 GiB of content at most)
#     WORK           scratch folder (the corpus is made there once and kept)
#     -v             the vyre binary (default: $VYRE, else build/example/vyre)
#     --ray N        also bench/ray_scale.py with N GPUs (Ray and python/ on PYTHONPATH)
#
# Each row: wall seconds of the command (process start, OpenCL set-up and JSON printing included),
# the content bytes listed or scanned per wall second, and what each device did (batches, inputs,
# busy seconds). Every configuration must list the same entries and count the same hits.
set -euo pipefail
vyre=${VYRE:-build/example/vyre} ray=0
while [ $# -gt 0 ]; do
  case $1 in
    -v) vyre=$2; shift 2 ;;
    --ray) ray=$2; shift 2 ;;
    *) break ;;
  esac
done
[ $# -eq 2 ] || { sed -n '2,17p' "$0"; exit 2; }
site=$1 work=$2 here=$(dirname "$(readlink -f "$0")")
mkdir -p "$work"
[ -d "$work/corpus" ] || python3 "$here/package_corpus.py" "$site" "$work/corpus" $((6 << 30))
python3 -c 'import builtins; print("\n".join(n for n in dir(builtins) if len(n) > 3))' > "$work/patterns.txt"
echo "patterns: $(wc -l < "$work/patterns.txt") names of Python's builtins longer than 3 characters"
corpus=("$work"/corpus/*)
echo "corpus: ${#corpus[@]} archives, $(du -cb "${corpus[@]}" | tail -n 1 | cut -f1) bytes"

measure() { # KIND LABEL [vyre arguments...]: one row; the first row of a kind is what the others must equal
  local kind=$1 label=$2; shift 2
  local extra=(--max-total 200G)
  [ "$kind" = scan ] && extra+=(--max-hits 1000 -f "$work/patterns.txt")
  local s e rc=0
  s=$(date +%s.%N)
  "$vyre" "$kind" --json --no-progress "${extra[@]}" "$@" "${corpus[@]}" > "$work/out.json" 2> "$work/err.txt" || rc=$?
  e=$(date +%s.%N)
  [ "$rc" -le 1 ] && [ -s "$work/out.json" ] || { cat "$work/err.txt"; exit 1; } # 1 is "problems" (unpack), "no hits" (scan)
  python3 - "$kind" "$label" "$s" "$e" "$work" <<'PY'
import json, os, sys
kind, label, s, e, work = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4]), sys.argv[5]
j = json.load(open(os.path.join(work, "out.json")))
m, wall = j["summary"], float(e) - float(s)
if kind == "unpack":
    what = f"entries {m['entries']} bytes {m['bytes']} deflate {m['deflate_streams']} on device {m['deflate_device_streams']}"
    same = [(x["input"], x["path"], x["size"], x["sha256"], x["status"]) for x in j["entries"]]
else:
    what = f"files {m['files']} bytes {m['bytes']} hits kept {m['hits']} counted {sum(c['count'] for c in j['counts'])}"
    # Hits of patterns under the cap (--max-hits 1000); a capped pattern keeps its first hits in
    # scanning order on one device and in listing order on several (engine/scan_devices.hpp).
    under = {c["pattern"] for c in j["counts"] if c["count"] <= 1000}
    same = sorted((c["pattern"], c["count"]) for c in j["counts"]) + [(h["path"], h["offset"], h["pattern"]) for h in j["hits"] if h["pattern"] in under]
first = os.path.join(work, f"first-{kind}.json")
if not os.path.exists(first):
    json.dump(same, open(first, "w")); verdict = "reference"
else:
    verdict = "same as the reference" if json.load(open(first)) == json.loads(json.dumps(same)) else "DIFFERENT FROM THE REFERENCE"
devices = "; ".join(f"{d['device'][:24]}: {d['batches']} batches, {d['inputs']} inputs, busy {d['busy_seconds']:.2f} s"
                    + (" (declined)" if d["declined"] else "") for d in m["devices"])
print(f"{kind} | {label} | wall {wall:.2f} s | {m['bytes'] / wall / 1e9:.2f} GB/s | {what} | {verdict} | {devices}", flush=True)
if verdict.startswith("DIFFERENT"):
    sys.exit(1)
PY
}
rm -f "$work"/first-*.json
CUDA_VISIBLE_DEVICES=0 "$vyre" unpack --json --no-progress --max-total 200G "${corpus[@]}" > /dev/null 2>&1 || true # builds the kernels once
for kind in unpack scan; do
  for rep in 1 2; do
    CUDA_VISIBLE_DEVICES=0 measure $kind "one GPU (CUDA_VISIBLE_DEVICES=0), run $rep"
    measure $kind "every GPU (--devices nvidia), run $rep" --devices nvidia
    measure $kind "every GPU and PoCL (--devices all), run $rep" --devices all
  done
  measure $kind "PoCL alone (--devices pocl)" --devices pocl
done
[ "$ray" -gt 0 ] && python3 "$here/ray_scale.py" "$work/corpus" "$vyre" "$ray"
exit 0
