#!/usr/bin/env python3
"""Score a `textreuse reuse` run against the blind labels of the reuse-class study (issue #46).

    evaluate.py RUN/reuse.jsonl --split heldout [--errors]

Each labelled case (studies/reuse/sample/key.jsonl: the documents and passage offsets of the
sampled run) is looked up in the run's reuse.jsonl: the same document pair (ids and input
files) with the same offsets, else the case of that pair whose passages overlap it most. A
labelled case the run no longer reports, or marks `spurious`, counts as predicted `none`. The
run's `kind` is the predicted class otherwise; `unclassified` is its own prediction (never
right).

Reports, on the split's cases: the share of reported cases that are reuse (labelled content or
structure) among those between differently titled articles, accuracy over the three labels,
and per-class precision and recall. `--errors` lists the disagreements (refused on the held-out
half: rules are tuned on the tuning half only). Where a second annotator labelled the same
cases apart from the first (`labels/second-<split>-*.labels.jsonl`), it also prints their
agreement and Cohen's kappa, the run's accuracy against the second annotator, and its accuracy
on the cases the two agree on.

Standard library only.
"""

import argparse
import collections
import json
import os

HERE = os.path.dirname(os.path.abspath(__file__))
LABELS = ("content", "structure", "none")
# --split: the sample folder, the label files' name prefixes, the key's splits.
SPLITS = {
    "tuning": ("sample", ("tuning-",), ("tuning",)),
    "heldout": ("sample", ("heldout-",), ("heldout",)),
    "dev": ("sample", ("tuning-", "heldout-"), ("tuning", "heldout")),
    "heldout2": ("sample-h2", ("heldout2",), ("heldout",)),
    "db-tuning": ("sample-db", ("db-tuning",), ("tuning",)),
    "db-heldout": ("sample-db", ("db-heldout",), ("heldout",)),
    "h3-tuning": ("sample-h3", ("h3-tuning",), ("tuning",)),
    "h3-heldout": ("sample-h3", ("h3-heldout",), ("heldout",)),
    "cp-tuning": ("sample-cp", ("cp-tuning",), ("tuning",)),
    "cp-heldout": ("sample-cp", ("cp-heldout",), ("heldout",)),
    "s6-tuning": ("sample-s6", ("s6-tuning",), ("tuning",)),
    "s6-heldout": ("sample-s6", ("s6-heldout",), ("heldout",)),
    "s7-heldout": ("sample-s7", ("s7-heldout",), ("heldout",)),
    "s8-heldout": ("sample-s8", ("s8-heldout",), ("heldout",)),
    "s9-heldout": ("sample-s9", ("s9-heldout",), ("heldout",)),
    "s10-heldout": ("sample-s10", ("s10-heldout",), ("heldout",)),
    "s11-heldout": ("sample-s11", ("s11-heldout",), ("heldout",)),
}
# Held-out halves kept from tuning: --errors never lists them. Every earlier held-out half and
# sample was scored once and is fitting data since the eleventh sample was drawn (fit.py).
SEALED = ("s11-heldout",)


def doc_key(d):
    return (d.get("doc"), os.path.basename(d.get("source") or ""))


def read_labels(split):
    out = {}
    folder = os.path.join(HERE, "labels")
    for name in sorted(os.listdir(folder)):
        if name.startswith(split) and name.endswith(".labels.jsonl"):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                for line in f:
                    if line.strip():
                        r = json.loads(line)
                        out[r["id"]] = r["label"]
    return out


def agreement(ids, first, second, predictions):
    """Prints how often a second annotator (labels/second-*.labels.jsonl, labelled blind and
    apart from the first) gave the same label, Cohen's kappa, and the run's accuracy against
    each annotator and on the cases where the two agree."""
    n = len(ids)
    same = [cid for cid in ids if first[cid] == second[cid]]
    p_o = len(same) / n
    p_e = sum(
        (sum(first[c] == label for c in ids) / n) * (sum(second[c] == label for c in ids) / n)
        for label in LABELS
    )
    kappa = (p_o - p_e) / (1 - p_e) if p_e < 1 else 1.0
    print(f"  second annotator on {n} cases: agreement {len(same)}/{n} = {p_o:.3f}, "
          f"Cohen's kappa {kappa:.3f}")
    pairs = collections.Counter((first[c], second[c]) for c in ids)
    print("    first \\ second " + " ".join(f"{b:>9}" for b in LABELS))
    for a in LABELS:
        print(f"    {a:<15} " + " ".join(f"{pairs[(a, b)]:>9}" for b in LABELS))
    right2 = sum(predictions[c] == second[c] for c in ids)
    print(f"  accuracy against the second annotator: {right2}/{n} = {right2 / n:.3f}")
    right = sum(predictions[c] == first[c] for c in same)
    print(f"  accuracy on the {len(same)} cases the two agree on: {right}/{len(same)} = "
          f"{right / max(len(same), 1):.3f}")


def overlap(a0, alen, b0, blen):
    return max(0, min(a0 + alen, b0 + blen) - max(a0, b0))


def best_case(by_pair, k):
    """The run's case for the sampled case `k`: of the run's cases of the same document pair
    (`by_pair`: (suspicious, source) doc keys -> cases), the one whose passages overlap k's
    most, or None."""
    best, best_overlap = None, 0
    for c in by_pair.get((doc_key(k["suspicious"]), doc_key(k["source"])), []):
        o = overlap(c["suspicious_offset"], c["suspicious_length"],
                    k["suspicious_offset"], k["suspicious_length"]) + overlap(
            c["source_offset"], c["source_length"], k["source_offset"], k["source_length"])
        if o > best_overlap:
            best, best_overlap = c, o
    return best


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("reuse_jsonl")
    ap.add_argument("--split", choices=tuple(SPLITS), required=True,
                    help="dev: tuning and heldout together (heldout became tuning data once "
                    "heldout2 was drawn); db-*: the halves of the DBpedia-14 sample "
                    "(sample-db); h3-*: the halves of the third Wikipedia sample (sample-h3); cp-*: "
                    "the halves of the sample of 2019 articles (sample-cp); s6-*: the halves of the second "
                    "sample of 2019 articles (sample-s6); s7-heldout: the third, scored once held out, "
                    "tuning data since the fourth was drawn (sample-s7); s8-heldout, s9-heldout: the "
                    "fourth and fifth, all held out (sample-s8, sample-s9); s10-heldout: the sixth, all held "
                    "out, drawn to score the learned classifier (sample-s10); s11-heldout: the "
                    "seventh, all held out, drawn to score the classifier refitted to every "
                    "earlier label (sample-s11)")
    ap.add_argument("--errors", action="store_true")
    args = ap.parse_args()
    if args.errors and args.split in SEALED:
        raise SystemExit("--errors is for the tuning data only")

    by_pair = collections.defaultdict(list)
    with open(args.reuse_jsonl, encoding="utf-8") as f:
        for line in f:
            c = json.loads(line)
            by_pair[(doc_key(c["suspicious"]), doc_key(c["source"]))].append(c)

    sample, prefixes, splits = SPLITS[args.split]
    labels = {}
    for prefix in prefixes:
        labels.update(read_labels(prefix))
    key = {}
    with open(os.path.join(HERE, sample, "key.jsonl"), encoding="utf-8") as f:
        for line in f:
            k = json.loads(line)
            if k["split"] in splits:
                key[k["id"]] = k
    missing = sorted(set(key) - set(labels))
    if missing:
        raise SystemExit(f"{len(missing)} cases of {args.split} have no label: {missing[:5]}")

    with open(os.path.join(HERE, sample, "strata.json"), encoding="utf-8") as f:
        population = {tuple(r["stratum"]): r["cases"] for r in json.load(f)}
    sampled = collections.Counter(tuple(k["stratum"]) for k in key.values())
    # Per stratum: (reported, reported and labelled reuse) among the split's cases.
    by_stratum = collections.defaultdict(lambda: [0, 0])
    confusion = collections.Counter()
    errors = []
    predictions = {}
    for cid in sorted(key):
        k = key[cid]
        best = best_case(by_pair, k)
        # A case the run marks spurious is reported as not reuse.
        predicted = best["kind"] if best else "none"
        if predicted == "spurious":
            predicted = "none"
        truth = labels[cid]
        predictions[cid] = predicted
        confusion[(truth, predicted)] += 1
        if predicted != "none":
            s = by_stratum[tuple(k["stratum"])]
            s[0] += 1
            s[1] += truth != "none"
        if predicted != truth:
            errors.append((cid, truth, predicted, k, best))

    n = sum(confusion.values())
    kept = sum(v for (t, p), v in confusion.items() if p != "none")
    kept_reuse = sum(v for (t, p), v in confusion.items() if p != "none" and t != "none")
    right = sum(v for (t, p), v in confusion.items() if t == p)
    print(f"{args.split}: {n} labelled cases; run: {args.reuse_jsonl}")
    print(f"  reported cases that are reuse: {kept_reuse}/{kept} = {kept_reuse / max(kept, 1):.3f}")
    # Weighted by the strata's sizes in the sampled run: an estimate for all its cases between
    # differently titled articles (a stratum's reported cases stand for its share of the run).
    w_kept = sum(population[s] * v[0] / sampled[s] for s, v in by_stratum.items())
    w_reuse = sum(population[s] * v[1] / sampled[s] for s, v in by_stratum.items())
    print(f"  the same, weighted by stratum size (estimate for the whole run): "
          f"{w_reuse / max(w_kept, 1e-9):.3f}")
    truth_reuse = sum(v for (t, p), v in confusion.items() if t != "none")
    print(f"  reuse cases still reported: {kept_reuse}/{truth_reuse} = "
          f"{kept_reuse / max(truth_reuse, 1):.3f}")
    print(f"  accuracy (content/structure/none): {right}/{n} = {right / max(n, 1):.3f}")
    print(f"  {'class':<10} {'labelled':>8} {'predicted':>9} {'precision':>9} {'recall':>7}")
    predicted_labels = sorted({p for _, p in confusion} | set(LABELS))
    for c in LABELS:
        t = sum(v for (a, _), v in confusion.items() if a == c)
        p = sum(v for (_, b), v in confusion.items() if b == c)
        tp = confusion[(c, c)]
        prec = f"{tp / p:.3f}" if p else "-"
        rec = f"{tp / t:.3f}" if t else "-"
        print(f"  {c:<10} {t:>8} {p:>9} {prec:>9} {rec:>7}")
    print("  confusion (rows: label, columns: predicted " + ", ".join(predicted_labels) + "):")
    for c in LABELS:
        print(f"    {c:<10} " + " ".join(f"{confusion[(c, p)]:>5}" for p in predicted_labels))
    second = {}
    for prefix in prefixes:
        second.update(read_labels("second-" + prefix))
    both = sorted(cid for cid in key if cid in second)
    if both:
        agreement(both, labels, second, predictions)
    if args.errors:
        for cid, truth, predicted, k, best in errors:
            feats = ""
            if best:
                feats = " ".join(f"{f}={best[f]:.2f}" for f in (
                    "jaccard_2", "jaccard_5", "jaccard_10", "entity_jaccard",
                    "suspicious_share", "source_share", "score"))
                feats += f" len={best['suspicious_length']}/{best['source_length']}"
            print(f"{cid} label={truth} predicted={predicted} "
                  f"{k['suspicious']['title']!r} <- {k['source']['title']!r} {feats}")


if __name__ == "__main__":
    main()
