import json, sys, collections
# ours: vyre scan --json; theirs: ugrep -z --format='%f\t%b\t%o%~'. Ours reduced to ugrep -o's rule
# (per file: leftmost match, longest there, then on after its end). Paths in ugrep's spelling:
# outer{member} at depth 2, outer{member:inner} deeper. vyre also scans a nested archive's own
# bytes as a file; ugrep -z does not: those files are left out of ours and counted.
ours_doc = json.load(open(sys.argv[1]))
paths = set(h["path"] for h in ours_doc["hits"])
all_paths = set(p["path"] for p in ours_doc.get("problems", []))
def ugrep_name(path):
    parts = path.split("!/")
    if len(parts) == 1: return parts[0]
    return parts[0] + "{" + ":".join(parts[1:]) + "}"
containers = set()
for p in paths:
    parts = p.split("!/")
    for k in range(2, len(parts)):
        containers.add("!/".join(parts[:k]))
# ugrep -z does not open ar archives (.a static libraries): it searches them as files. So for an ar
# container, vyre's hits in its own bytes are compared and its members' hits are left out.
opaque = set(c for c in containers if c.endswith(".a"))
def inside_opaque(path):
    parts = path.split("!/")
    return any("!/".join(parts[:k]) in opaque for k in range(1, len(parts)))
by_file = collections.defaultdict(list)
skipped_container_hits = 0
skipped_member_hits = 0
for h in ours_doc["hits"]:
    if inside_opaque(h["path"]):
        skipped_member_hits += 1
        continue
    if h["path"] in containers and h["path"] not in opaque:
        skipped_container_hits += 1
        continue
    by_file[h["path"]].append((h["offset"], -len(h["pattern"]), h["pattern"]))
ours = set()
for path, hits in by_file.items():
    name = ugrep_name(path)
    hits.sort()
    cursor = 0
    for off, neg, pat in hits:
        if off < cursor: continue
        ours.add((name, off, pat))
        cursor = off - neg
theirs = set()
odd = []
for line in open(sys.argv[2], encoding="utf-8", errors="surrogateescape"):
    line = line.rstrip("\n")
    parts = line.split("\t", 2)
    if len(parts) != 3 or not parts[1].isdigit():
        odd.append(line)
        continue
    theirs.add((parts[0], int(parts[1]), parts[2]))
print("ugrep lines not file<TAB>offset<TAB>match:", len(odd))
for line in odd[:5]: print("  ", repr(line[:200]))
print("ar archives searched as files, as ugrep does:", len(opaque), "; vyre's hits in their members (left out):", skipped_member_hits)
print("vyre hits (all, overlapping):", len(ours_doc["hits"]), "; in nested archives' own bytes (left out):", skipped_container_hits,
      "; reduced:", len(ours), "; ugrep:", len(theirs))
only_ours, only_theirs = ours - theirs, theirs - ours
print("only vyre:", len(only_ours), " only ugrep:", len(only_theirs))
def member(name): return name.rsplit(":", 1)[-1].rstrip("}").rsplit("{", 1)[-1]
hidden = lambda x: any(part.startswith(".") for part in member(x[0]).split("/"))
print("only vyre, in a hidden file (a name part starting with '.'):", sum(1 for x in only_ours if hidden(x)))
files_only_ours = collections.Counter(x[0] for x in only_ours if not hidden(x))
files_only_theirs = collections.Counter(x[0] for x in only_theirs)
print("only vyre, other files:", len(files_only_ours), "; only ugrep, files:", len(files_only_theirs))
for f, n in files_only_ours.most_common(8): print("  only vyre:", n, f)
for f, n in files_only_theirs.most_common(8): print("  only ugrep:", n, f)
