#!/usr/bin/env python3
"""Which planted copies a `textreuse dedup` run found: reads OUT/clusters.jsonl of a run over a
planted.py corpus (one sentence per line) and the corpus's truth TSV, and prints, per edit rate,
how many copies ended up in the same cluster as their source. One JSON object.

    textreuse dedup /tmp/planted1m.jsonl --out /tmp/out-oph --scheme oph
    python3 benches/scripts/planted_found.py /tmp/out-oph /tmp/planted1m.tsv
"""
import json
import sys
from collections import defaultdict


def main():
    out, truth = sys.argv[1], sys.argv[2]
    cluster = {}
    with open(f"{out}/clusters.jsonl", encoding="utf-8") as f:
        for line in f:
            c = json.loads(line)
            for m in c["members"]:
                cluster[m["doc"]] = c["cluster"]
    pairs = defaultdict(int)
    found = defaultdict(int)
    with open(truth, encoding="utf-8") as f:
        for line in f:
            copy, source, rate = line.rstrip("\n").split("\t")
            pairs[rate] += 1
            c = cluster.get(copy)
            found[rate] += c is not None and c == cluster.get(source)
    rates = sorted(pairs, key=float)
    print(json.dumps({r: {"pairs": pairs[r], "found": round(found[r] / pairs[r], 4)} for r in rates}))


if __name__ == "__main__":
    main()
