#!/usr/bin/env python3
"""Score cluster types against blind labels (issue #45): per-type precision, recall and count.

    evaluate.py --labels DIR --sample KEY CLUSTERS [--sample KEY CLUSTERS ...] [--split heldout]

--labels DIR holds `*.labels.jsonl` files ({"id", "label"}); each --sample pairs a sample's
key.jsonl (id -> cluster number, split, the sampling run's `tool_type`) with the clusters.jsonl
of a run over the same inputs by the classifier to score (cluster numbers are stable: a cluster's
smallest member id). Prints, for the split, the table "before" (the key's tool_type, the
classifier the sample was drawn with) and "after" (the run's type), and the share of clusters
labelled non-identical that each typed right. Standard library only.
"""

import argparse
import collections
import glob
import json
import os

TYPES = ["identical", "template", "copyedit", "factual_drift", "reference", "other"]


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        return [json.loads(line) for line in f if line.strip()]


def table(pairs):
    """pairs: [(label, predicted)] -> markdown rows per type."""
    rows = []
    for t in TYPES:
        tp = sum(1 for g, p in pairs if g == t and p == t)
        n_pred = sum(1 for _, p in pairs if p == t)
        n_gold = sum(1 for g, _ in pairs if g == t)
        prec = f"{tp / n_pred:.2f}" if n_pred else "–"
        rec = f"{tp / n_gold:.2f}" if n_gold else "–"
        rows.append((t, n_gold, n_pred, tp, prec, rec))
    return rows


def sealed_keys():
    """The samples whose held-out half is still unseen (SEALED, one key path per line): --errors
    never lists their held-out clusters. A sample leaves SEALED once its held-out half has been
    scored and reported; its clusters may then tune the next round's rules."""
    here = os.path.dirname(os.path.abspath(__file__))
    with open(os.path.join(here, "SEALED"), encoding="utf-8") as f:
        names = [line.split("#")[0].strip() for line in f]
    return {os.path.normpath(os.path.join("studies/types", n)) for n in names if n}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--labels", required=True)
    ap.add_argument("--sample", nargs=2, action="append", metavar=("KEY", "CLUSTERS"), required=True)
    ap.add_argument("--split", default="heldout", choices=["heldout", "tuning", "all"])
    ap.add_argument("--errors", action="store_true", help="list the clusters typed wrong (tuning only)")
    args = ap.parse_args()
    sealed = sealed_keys()
    if args.errors and args.split != "tuning" and any(k in sealed for k, _ in args.sample):
        ap.error("--errors lists mistakes of tuning halves only: the held-out halves of "
                 f"{', '.join(sorted(sealed))} are for scoring (SEALED)")

    labels = {}
    for path in sorted(glob.glob(f"{args.labels}/*.labels.jsonl")):
        for r in read_jsonl(path):
            labels[r["id"]] = r["label"]
    rows = []
    for key_path, clusters_path in args.sample:
        types = {c["cluster"]: c for c in read_jsonl(clusters_path)}
        for k in read_jsonl(key_path):
            if args.errors and k["split"] == "heldout" and os.path.normpath(key_path) in sealed:
                continue
            if args.split != "all" and k["split"] != args.split:
                continue
            if k["id"] not in labels:
                continue
            c = types.get(k["cluster"])
            after = c["type"] if c else "missing"
            rows.append((k["id"], labels[k["id"]], k["tool_type"], after, c))
    print(f"{args.split}: {len(rows)} labelled clusters\n")
    for name, idx in (("before", 2), ("after", 3)):
        pairs = [(r[1], r[idx]) for r in rows]
        print(f"### {name}\n")
        print("| type | labelled | typed | right | precision | recall |")
        print("|---|---:|---:|---:|---:|---:|")
        for t, n_gold, n_pred, tp, prec, rec in table(pairs):
            print(f"| {t} | {n_gold} | {n_pred} | {tp} | {prec} | {rec} |")
        non_ident = [(g, p) for g, p in pairs if g != "identical"]
        right = sum(1 for g, p in non_ident if g == p)
        share = right / len(non_ident) if non_ident else float("nan")
        print(f"\nnon-identical clusters typed right: {right} of {len(non_ident)} ({share:.2f})\n")
    if args.errors:
        for cid, gold, before, after, c in rows:
            if gold != after and c:
                ev = {k: c.get(k) for k in ("rule", "groups", "differences")}
                print(json.dumps({"id": cid, "label": gold, "typed": after, **ev,
                                  "members": [(m["title"], m["text"]) for m in c["members"][:4]]},
                                 ensure_ascii=False))


if __name__ == "__main__":
    main()
