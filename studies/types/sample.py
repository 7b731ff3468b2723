#!/usr/bin/env python3
"""Draw the blind, stratified sample of clusters for the cluster-type study (issue #45).

Reads a `textreuse dedup` clusters.jsonl and writes, under --out:

- tuning.blind.jsonl, heldout.blind.jsonl: one cluster per line, {"id", "members"} and nothing
  else (no type, score, cluster number or source), members shuffled with the seed; a cluster of
  more than 12 members is given as its distinct texts, each with its titles and a count.
- key.jsonl: id -> cluster number, stratum, the tool's type, split. Private: labellers never see it.
- strata.json: each stratum's number of clusters in the run and in the sample.
- pages.jsonl: for each title in the sample, its pages' categories (from the dumps' wikitext) and
  the first sentence of the article (from `textreuse extract` output), for classifiers; labellers
  may see titles only.

Strata: the tool's `type` x scope ("one": every member from one article title, "cross": several).
Clusters whose members are all the same text after lowercasing and collapsing whitespace form
their own "same_text" pool, of which only --identical (60) are kept, split over the two scopes.
The other --size minus --identical clusters are shared equally among the strata; a stratum smaller
than its share is taken whole and the rest goes to the others. Ids are given in a seeded random
order; each stratum is split into halves by a seeded hash of the id, before anyone labels.

Standard library only. Usage: see studies/types/README.md.
"""

import argparse
import bz2
import collections
import gzip
import hashlib
import html
import json
import random
import re
import sys

BLIND_MAX_MEMBERS = 12


def norm(text):
    return " ".join(text.lower().split())


def open_any(path):
    with open(path, "rb") as f:
        magic = f.read(3)
    if magic == b"BZh":
        return bz2.open(path, "rt", encoding="utf-8", errors="replace")
    if magic[:2] == b"\x1f\x8b":
        return gzip.open(path, "rt", encoding="utf-8", errors="replace")
    return open(path, encoding="utf-8", errors="replace")


def read_clusters(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def stratum_of(cluster):
    titles = {m.get("title", "") for m in cluster["members"]}
    scope = "one" if len(titles) == 1 else "cross"
    if len({norm(m["text"]) for m in cluster["members"]}) == 1:
        return ("same_text", scope)
    return (cluster["type"], scope)


def allocate(sizes, budget):
    """Equal shares of `budget` over strata, water-filling: small strata are taken whole."""
    alloc = {}
    left = dict(sizes)
    while left:
        share = budget // len(left)
        small = {k: n for k, n in left.items() if n <= share}
        if not small:
            # Integer remainder goes to the strata first in sorted order.
            rest = budget - share * len(left)
            for i, k in enumerate(sorted(left)):
                alloc[k] = share + (1 if i < rest else 0)
            break
        for k, n in small.items():
            alloc[k] = n
            budget -= n
            del left[k]
    return alloc


def seeded_hash(seed, key):
    return hashlib.sha256(f"{seed}:{key}".encode()).hexdigest()


def blind_members(cluster, rng):
    members = [{"title": m.get("title", ""), "text": m["text"]} for m in cluster["members"]]
    if len(members) <= BLIND_MAX_MEMBERS:
        rng.shuffle(members)
        return members
    groups = collections.OrderedDict()
    for m in members:
        g = groups.setdefault(m["text"], {"text": m["text"], "titles": [], "count": 0})
        g["count"] += 1
        if m["title"] not in g["titles"]:
            g["titles"].append(m["title"])
    out = list(groups.values())
    for g in out:
        g["titles"].sort()
    rng.shuffle(out)
    return out


PAGE_RE = re.compile(r"<page>(.*?)</page>", re.S)
FIELD_RE = {
    "title": re.compile(r"<title>(.*?)</title>", re.S),
    "ns": re.compile(r"<ns>(.*?)</ns>", re.S),
    "id": re.compile(r"<id>(.*?)</id>", re.S),
    "revision": re.compile(r"<revision>\s*<id>(.*?)</id>", re.S),
    "timestamp": re.compile(r"<timestamp>(.*?)</timestamp>", re.S),
}
TEXT_RE = re.compile(r"<text[^>]*>(.*?)</text>", re.S)
CATEGORY_RE = re.compile(r"\[\[\s*category\s*:\s*([^|\]]+?)\s*(?:\|[^\]]*)?\]\]", re.I)


def read_dump_pages(path, wanted):
    """Pages of a dump whose titles are in `wanted`, found by regex so that damaged dumps
    (a stray fragment, a page cut off) still yield every complete page."""
    with open_any(path) as f:
        data = f.read()
    for m in PAGE_RE.finditer(data):
        # A page cut off in a damaged dump runs into the next one: keep only the complete page.
        body = m.group(1).rsplit("<page>", 1)[-1]
        fields = {}
        for k, rx in FIELD_RE.items():
            fm = rx.search(body)
            fields[k] = html.unescape(fm.group(1).strip()) if fm else None
        if fields["title"] not in wanted or fields["ns"] not in (None, "0"):
            continue
        tm = TEXT_RE.search(body)
        text = html.unescape(tm.group(1)) if tm else ""
        cats = []
        for c in CATEGORY_RE.findall(text):
            c = " ".join(c.replace("_", " ").split())
            if c not in cats:
                cats.append(c)
        yield fields, cats


SENTENCE_END = re.compile(r"(?<=[.!?])[\"')\]]*\s+(?=[\"'(\[]?[A-Z0-9])")


def first_sentence(paragraphs):
    for p in paragraphs:
        text = p.get("text", "").strip()
        if p.get("list") or not text:
            continue
        # A rough split (the clusters carry the tool's own sentences); good enough for context.
        return SENTENCE_END.split(text, maxsplit=1)[0]
    return None


def read_extract(path, wanted):
    """First sentences by (title, page id) from `textreuse extract` output."""
    out = {}
    with open_any(path) as f:
        for line in f:
            if not line.strip():
                continue
            d = json.loads(line)
            if d.get("title") in wanted:
                out[(d["title"], str(d.get("id")))] = first_sentence(d.get("paragraphs", []))
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("clusters", help="clusters.jsonl of a textreuse dedup run")
    ap.add_argument("--out", default="studies/types/sample")
    ap.add_argument("--seed", type=int, default=45)
    ap.add_argument("--size", type=int, default=520, help="clusters in the whole sample")
    ap.add_argument("--identical", type=int, default=60,
                    help="clusters kept from the same-text pool (all members equal up to case and spaces)")
    ap.add_argument("--dump", action="append", default=[],
                    help="a dump given to dedup (repeatable): categories for pages.jsonl")
    ap.add_argument("--extract", action="append", default=[],
                    help="`textreuse extract` output of a dump (repeatable): first sentences")
    ap.add_argument("--exclude", action="append", default=[], metavar="KEY",
                    help="key.jsonl of an earlier sample of the same run (repeatable): its clusters "
                         "are not drawn again, so that a fresh sample holds only unseen clusters")
    ap.add_argument("--prefix", default="c", help="id prefix (c0001, ...); a fresh sample takes "
                    "another so that its ids never collide with an earlier sample's labels")
    args = ap.parse_args()

    seen = set()
    for path in args.exclude:
        seen.update(k["cluster"] for k in read_clusters(path))
    clusters = [c for c in read_clusters(args.clusters) if c["cluster"] not in seen]
    strata = collections.defaultdict(list)
    for c in clusters:
        strata[stratum_of(c)].append(c)
    for k in strata:
        strata[k].sort(key=lambda c: c["cluster"])
    sizes = {k: len(v) for k, v in strata.items()}

    same = {k: n for k, n in sizes.items() if k[0] == "same_text"}
    other = {k: n for k, n in sizes.items() if k[0] != "same_text"}
    alloc = allocate(same, args.identical)
    alloc.update(allocate(other, args.size - sum(alloc.values())))

    rng = random.Random(args.seed)
    sampled = []
    for k in sorted(strata):
        pick = rng.sample(strata[k], alloc[k])
        sampled.extend((k, c) for c in pick)
    rng.shuffle(sampled)

    entries = []
    for i, (k, c) in enumerate(sampled, 1):
        entries.append({"id": f"{args.prefix}{i:04d}", "stratum": k, "cluster": c})

    # Split each stratum in halves by a seeded hash of the id: the lower half of the hash order
    # is tuning, the upper half held out; an odd stratum's middle cluster goes by its hash's parity.
    by_stratum = collections.defaultdict(list)
    for e in entries:
        by_stratum[e["stratum"]].append(e)
    for k, es in by_stratum.items():
        es.sort(key=lambda e: seeded_hash(args.seed, e["id"]))
        n = len(es)
        for j, e in enumerate(es):
            if 2 * j + 1 < n:
                e["split"] = "tuning"
            elif 2 * j + 1 > n:
                e["split"] = "heldout"
            else:
                e["split"] = "tuning" if int(seeded_hash(args.seed, e["id"]), 16) % 2 == 0 else "heldout"

    out = args.out.rstrip("/")
    files = {s: open(f"{out}/{s}.blind.jsonl", "w", encoding="utf-8") for s in ("tuning", "heldout")}
    with open(f"{out}/key.jsonl", "w", encoding="utf-8") as key:
        for e in entries:
            c = e["cluster"]
            mrng = random.Random(f"{args.seed}:{e['id']}")
            blind = {"id": e["id"], "members": blind_members(c, mrng)}
            files[e["split"]].write(json.dumps(blind, ensure_ascii=False) + "\n")
            key.write(json.dumps({
                "id": e["id"],
                "split": e["split"],
                "cluster": c["cluster"],
                "stratum": f"{e['stratum'][0]}/{e['stratum'][1]}",
                "tool_type": c["type"],
                "scope": e["stratum"][1],
                "same_text": e["stratum"][0] == "same_text",
                "size": c["size"],
                "sources": sorted({m.get("source", "") for m in c["members"]}),
            }, ensure_ascii=False) + "\n")
    for f in files.values():
        f.close()

    titles = sorted({m.get("title", "") for e in entries for m in e["cluster"]["members"]})
    wanted = set(titles)
    firsts = {}
    for path in args.extract:
        firsts.update(read_extract(path, wanted))
    pages = collections.defaultdict(list)
    for path in args.dump:
        for fields, cats in read_dump_pages(path, wanted):
            pages[fields["title"]].append({
                "source": path,
                "page": fields["id"],
                "revision": fields["revision"],
                "timestamp": fields["timestamp"],
                "categories": cats,
                "first_sentence": firsts.get((fields["title"], fields["id"])),
            })
    with open(f"{out}/pages.jsonl", "w", encoding="utf-8") as f:
        for t in titles:
            f.write(json.dumps({"title": t, "pages": pages.get(t, [])}, ensure_ascii=False) + "\n")

    # Each stratum's size in the run and its sample, for estimates weighted by stratum size
    # (evaluate.py --weighted).
    with open(f"{out}/strata.json", "w", encoding="utf-8") as f:
        json.dump([{"stratum": f"{k[0]}/{k[1]}", "clusters": sizes[k], "sampled": alloc[k]}
                   for k in sorted(sizes)], f, indent=1)
        f.write("\n")

    # The strata table, for the README.
    counts = collections.Counter((e["stratum"], e["split"]) for e in entries)
    print("| stratum (type/scope) | clusters | sampled | tuning | held out |")
    print("|---|---:|---:|---:|---:|")
    for k in sorted(sizes):
        print(f"| {k[0]}/{k[1]} | {sizes[k]} | {alloc[k]} | {counts[(k, 'tuning')]} | {counts[(k, 'heldout')]} |")
    print(f"| total | {sum(sizes.values())} | {len(entries)} | "
          f"{sum(v for (k, s), v in counts.items() if s == 'tuning')} | "
          f"{sum(v for (k, s), v in counts.items() if s == 'heldout')} |")
    missing = [t for t in titles if not pages.get(t)]
    if missing:
        print(f"pages.jsonl: {len(missing)} of {len(titles)} titles not found in the dumps given",
              file=sys.stderr)


if __name__ == "__main__":
    main()
