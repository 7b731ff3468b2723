#!/usr/bin/env python3
"""The peer row of the end-to-end table (docs/performance.md, issue #50): rensa's
`RMinHashLSH` deduplicating a planted.py corpus the way a rensa user would, from text, one
unit per line, with the same shingles as `textreuse dedup` (12-character shingles of the text
lowercased with white space collapsed), and the found pairs written as `OUT/clusters.jsonl` so
that planted_found.py scores both tools alike:

    python3 -m venv /tmp/rensa-venv && /tmp/rensa-venv/bin/pip install rensa==0.5.0
    python3 benches/scripts/planted.py 1000000 --truth /tmp/planted1m.tsv > /tmp/planted1m.jsonl
    /usr/bin/time -v /tmp/rensa-venv/bin/python benches/scripts/rensa_planted.py \
        /tmp/planted1m.jsonl --out /tmp/out-rensa
    python3 benches/scripts/planted_found.py /tmp/out-rensa /tmp/planted1m.tsv

The defaults are `textreuse dedup`'s (143 minhashes in 13 bands of 11 rows, every band
collision a pair: dedup verifies nothing without `--threshold`). Each line is queried, then
inserted (every earlier line it collides with in a band is a candidate); candidates are kept
when rensa's estimated Jaccard similarity of the two signatures is at least `--threshold` (0:
all), and joined into clusters by union-find. Prints one JSON object: lines, kept pairs, clusters, and the seconds spent
shingling, signing and in the index (process CPU time, one thread: rensa runs on the calling
thread).
"""
import argparse
import json
import os
import re
import sys
import time

from rensa import RMinHash, RMinHashLSH

SPACE = re.compile(r"\s+")


def shingles(text, k):
    """The text's k-character shingles, lowercased, white space collapsed (a shorter text is one
    shingle)."""
    t = SPACE.sub(" ", text.lower()).strip()
    if len(t) <= k:
        return [t] if t else []
    return list({t[i:i + k] for i in range(len(t) - k + 1)})


def find(parent, x):
    while parent[x] != x:
        parent[x] = parent[parent[x]]
        x = parent[x]
    return x


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", help="JSON Lines: {\"id\", \"text\"} per line")
    ap.add_argument("--out", required=True)
    ap.add_argument("--perms", type=int, default=143)
    ap.add_argument("--bands", type=int, default=13)
    ap.add_argument("--threshold", type=float, default=0.0)
    ap.add_argument("--shingle", type=int, default=12)
    ap.add_argument("--seed", type=int, default=42)
    args = ap.parse_args()

    lsh = RMinHashLSH(threshold=args.threshold, num_perm=args.perms, num_bands=args.bands)
    ids, signatures = [], []
    parent = []
    clock = time.process_time
    t_shingle = t_sign = t_index = 0.0
    kept = 0
    with open(args.corpus, encoding="utf-8") as f:
        for n, line in enumerate(f):
            doc = json.loads(line)
            t0 = clock()
            s = shingles(doc["text"], args.shingle)
            t1 = clock()
            m = RMinHash(num_perm=args.perms, seed=args.seed)
            m.update(s)
            t2 = clock()
            parent.append(n)
            for other in lsh.query(m):
                if m.jaccard(signatures[other]) >= args.threshold:
                    a, b = find(parent, n), find(parent, other)
                    if a != b:
                        parent[max(a, b)] = min(a, b)
                    kept += 1
            lsh.insert(n, m)
            t3 = clock()
            ids.append(doc["id"])
            signatures.append(m)
            t_shingle += t1 - t0
            t_sign += t2 - t1
            t_index += t3 - t2

    members = {}
    for n in range(len(ids)):
        members.setdefault(find(parent, n), []).append(n)
    os.makedirs(args.out, exist_ok=True)
    clusters = 0
    with open(os.path.join(args.out, "clusters.jsonl"), "w", encoding="utf-8") as f:
        for root, group in sorted(members.items()):
            if len(group) < 2:
                continue
            clusters += 1
            f.write(json.dumps({"cluster": root, "members": [{"doc": ids[i]} for i in group]}) + "\n")
    json.dump(
        {
            "lines": len(ids),
            "pairs_kept": kept,
            "clusters": clusters,
            "seconds": {
                "shingling": round(t_shingle, 2),
                "signing": round(t_sign, 2),
                "index": round(t_index, 2),
            },
        },
        sys.stdout,
    )
    print()


if __name__ == "__main__":
    main()
