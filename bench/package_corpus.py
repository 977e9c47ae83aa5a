#!/usr/bin/env python3
"""A corpus of package archives made from a site-packages folder, for bench/scale_out.sh.

One archive per top-level folder (packages and their .dist-info), in name order: four in five
ZIPs (deflate level 6, as wheels) and one in five .tar.gz (as sdists and npm packages). Files
above 4 MiB are left out; folders are taken while their content fits in CAP bytes in all.

    bench/package_corpus.py SITE_PACKAGES OUT_DIR CAP_BYTES
"""
import os, sys, zipfile, tarfile, io
from multiprocessing import Pool
site, out, cap = sys.argv[1], sys.argv[2], int(sys.argv[3])
os.makedirs(out, exist_ok=True)
def files_of(d):
    got = []
    for root, dirs, files in os.walk(d):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(root, f)
            if os.path.isfile(p) and not os.path.islink(p) and os.path.getsize(p) <= (4 << 20):
                got.append(p)
    return got
jobs, total = [], 0
for i, name in enumerate(sorted(os.listdir(site))):
    d = os.path.join(site, name)
    if not os.path.isdir(d) or os.path.islink(d) or name == "__pycache__": continue
    fs = files_of(d)
    size = sum(os.path.getsize(f) for f in fs)
    if not fs or total + size > cap: continue
    total += size
    jobs.append((len(jobs), name, d, fs))
def make(job):
    k, name, d, fs = job
    if k % 5 == 4:
        p = os.path.join(out, f"{k:04d}-{name}.tar.gz")
        with tarfile.open(p, "w:gz", compresslevel=6) as t:
            for f in fs: t.add(f, arcname=os.path.relpath(f, os.path.dirname(d)))
    else:
        p = os.path.join(out, f"{k:04d}-{name}.zip")
        with zipfile.ZipFile(p, "w", zipfile.ZIP_DEFLATED, compresslevel=6) as z:
            for f in fs: z.write(f, os.path.relpath(f, os.path.dirname(d)))
    return os.path.getsize(p)
with Pool(os.cpu_count()) as pool:
    sizes = pool.map(make, jobs, chunksize=1)
print(f"corpus: {len(jobs)} archives ({sum(1 for j in jobs if j[0] % 5 == 4)} .tar.gz), {total} bytes of content, {sum(sizes)} bytes of archives")
