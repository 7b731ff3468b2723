#!/usr/bin/env python3
"""Score cluster types against blind labels (issue #45): per-type precision, recall and count.

    evaluate.py --labels DIR --sample KEY CLUSTERS [--sample KEY CLUSTERS ...] [--split heldout]

--labels DIR holds `*.labels.jsonl` files ({"id", "label"}); each --sample pairs a sample's
key.jsonl (id -> cluster number, split, the sampling run's `tool_type`) with the clusters.jsonl
of a run over the same inputs by the classifier to score (a cluster's number is its smallest
member id: stable while the sentence splitting of its document's earlier text is; labelled
clusters the run does not hold under their numbers are counted and left out). Prints, for the split, the table "before" (the key's tool_type, the
classifier the sample was drawn with) and "after" (the run's type), and the share of clusters
labelled non-identical that each typed right. `--weighted` adds the "after" table with each
cluster weighted by its stratum's size in the sampling run over the stratum's labelled clusters
(`strata.json` beside the key; a sample without it weighs 1): precision and recall for the whole
run, where the sample over-draws small strata such as factual drift. Labels of a second
annotator (`second-*.labels.jsonl`, labelled blind and apart from the first) are not scored;
they give the agreement, Cohen's kappa, and the tables against the second annotator. Standard
library only.
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


def table(pairs, weights=None):
    """pairs: [(label, predicted)] -> markdown rows per type; with `weights` (one per pair), the
    precision and recall are of the weighted counts."""
    weights = weights or [1.0] * len(pairs)
    rows = []
    for t in TYPES:
        tp = sum(1 for g, p in pairs if g == t and p == t)
        n_pred = sum(1 for _, p in pairs if p == t)
        n_gold = sum(1 for g, _ in pairs if g == t)
        w_tp = sum(w for (g, p), w in zip(pairs, weights) if g == t and p == t)
        w_pred = sum(w for (_, p), w in zip(pairs, weights) if p == t)
        w_gold = sum(w for (g, _), w in zip(pairs, weights) if g == t)
        prec = f"{w_tp / w_pred:.2f}" if w_pred else "–"
        rec = f"{w_tp / w_gold:.2f}" if w_gold else "–"
        rows.append((t, n_gold, n_pred, tp, prec, rec))
    return rows


def stratum_weights(rows, key_paths):
    """Per row, its stratum's clusters in the sampling run over the stratum's rows here (from the
    strata.json beside each key; 1 where a sample has none): estimates for the whole run from a
    sample that over-draws the small strata."""
    sizes = {}
    for key_path in key_paths:
        path = os.path.join(os.path.dirname(key_path), "strata.json")
        if os.path.exists(path):
            for r in read_jsonl_or_json(path):
                sizes[(os.path.normpath(key_path), r["stratum"])] = r["clusters"]
    counts = collections.Counter((r[5], r[6]) for r in rows)
    return [sizes[(r[5], r[6])] / counts[(r[5], r[6])] if (r[5], r[6]) in sizes else 1.0
            for r in rows]


def read_jsonl_or_json(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def agreement(rows, second):
    """The first annotators' labels against a second annotator's (labels/second-*.labels.jsonl,
    labelled blind and apart), and the typing against each."""
    both = [r for r in rows if r[0] in second]
    if not both:
        return
    n = len(both)
    same = [r for r in both if r[1] == second[r[0]]]
    p_o = len(same) / n
    p_e = sum((sum(r[1] == t for r in both) / n) * (sum(second[r[0]] == t for r in both) / n)
              for t in TYPES)
    kappa = (p_o - p_e) / (1 - p_e) if p_e < 1 else 1.0
    print(f"second annotator on {n} clusters: agreement {len(same)}/{n} = {p_o:.2f}, "
          f"Cohen's kappa {kappa:.2f}\n")
    for name, idx in (("before", 2), ("after", 3)):
        print(f"### {name}, against the second annotator\n")
        print("| type | labelled | typed | right | precision | recall |")
        print("|---|---:|---:|---:|---:|---:|")
        for t, n_gold, n_pred, tp, prec, rec in table([(second[r[0]], r[idx]) for r in both]):
            print(f"| {t} | {n_gold} | {n_pred} | {tp} | {prec} | {rec} |")
        print()
    drift = [r for r in same if r[1] == "factual_drift"]
    print(f"factual drift where the two agree: {len(drift)} clusters, "
          f"typed factual_drift {sum(r[3] == 'factual_drift' for r in drift)}; typed "
          f"factual_drift among the agreed clusters: {sum(r[3] == 'factual_drift' for r in same)}"
          f", right {sum(r[3] == 'factual_drift' == r[1] for r in same)}\n")


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
    ap.add_argument("--weighted", action="store_true",
                    help="also the table weighted by stratum size (strata.json beside a key)")
    args = ap.parse_args()
    sealed = sealed_keys()
    if args.errors and args.split != "tuning" and any(k in sealed for k, _ in args.sample):
        ap.error("--errors lists mistakes of tuning halves only: the held-out halves of "
                 f"{', '.join(sorted(sealed))} are for scoring (SEALED)")

    labels, second = {}, {}
    for path in sorted(glob.glob(f"{args.labels}/*.labels.jsonl")):
        into = second if os.path.basename(path).startswith("second-") else labels
        for r in read_jsonl(path):
            into[r["id"]] = r["label"]
    rows = []
    missing = []
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
            if c is None:
                # A cluster's number is its first member's document and sentence: a change of
                # sentence splitting earlier in that document renumbers it.
                missing.append(k["id"])
                continue
            rows.append((k["id"], labels[k["id"]], k["tool_type"], c["type"], c,
                         os.path.normpath(key_path), k.get("stratum")))
    print(f"{args.split}: {len(rows)} labelled clusters\n")
    if missing:
        print(f"({len(missing)} labelled clusters are not in the run under their numbers and are "
              f"left out: {', '.join(missing[:10])})\n")
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
    if args.weighted:
        weights = stratum_weights(rows, [k for k, _ in args.sample])
        pairs = [(r[1], r[3]) for r in rows]
        print("### after, weighted by stratum size (precision and recall for the whole run)\n")
        print("| type | labelled | typed | right | precision | recall |")
        print("|---|---:|---:|---:|---:|---:|")
        for t, n_gold, n_pred, tp, prec, rec in table(pairs, weights):
            print(f"| {t} | {n_gold} | {n_pred} | {tp} | {prec} | {rec} |")
        print()
    agreement(rows, second)
    if args.errors:
        for cid, gold, before, after, c, _, _ in rows:
            if gold != after and c:
                ev = {k: c.get(k) for k in ("rule", "groups", "differences")}
                print(json.dumps({"id": cid, "label": gold, "typed": after, **ev,
                                  "members": [(m["title"], m["text"]) for m in c["members"][:4]]},
                                 ensure_ascii=False))


if __name__ == "__main__":
    main()
