#!/usr/bin/env python3
# The scan corpus: every top-level folder of SITE of at most 40 MB zipped (deflate 6), a .tar.gz of
# those starting with a to c and a .tar.zst (zstd -3) of those starting with d to h.
import os, sys, zipfile, subprocess
from multiprocessing import Pool
site, out, zstd = sys.argv[1], sys.argv[2], sys.argv[3]
os.makedirs(out, exist_ok=True)
def size_of(d):
    t = 0
    for r, ds, fs in os.walk(d):
        for f in fs:
            p = os.path.join(r, f)
            if os.path.isfile(p) and not os.path.islink(p): t += os.path.getsize(p)
    return t
names = [n for n in sorted(os.listdir(site)) if os.path.isdir(os.path.join(site, n)) and not os.path.islink(os.path.join(site, n)) and n != "__pycache__"]
small = [n for n in names if size_of(os.path.join(site, n)) <= (40 << 20)]
def make(n):
    p = os.path.join(out, n + ".zip")
    with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as z:
        for r, ds, fs in os.walk(os.path.join(site, n)):
            ds.sort()
            for f in sorted(fs):
                q = os.path.join(r, f)
                if os.path.isfile(q) and not os.path.islink(q): z.write(q, os.path.relpath(q, site))
with Pool(os.cpu_count()) as pool: pool.map(make, small, chunksize=1)
ac = [n for n in small if n[0].lower() in "abc"]
dh = [n for n in small if n[0].lower() in "defgh"]
subprocess.run(["tar", "czf", os.path.join(out, "a-c.tar.gz"), "-C", site] + ac, check=True)
subprocess.run(f"tar cf - -C {site} {' '.join(dh)} | {zstd} -q -3 -T0 -o {out}/d-h.tar.zst", shell=True, check=True)
print("corpus:", len(small), "zips, a-c.tar.gz of", len(ac), "folders, d-h.tar.zst of", len(dh))
