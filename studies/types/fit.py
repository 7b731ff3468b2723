#!/usr/bin/env python3
"""Fit the cluster-type model (crates/dedup/src/classify/learned.rs): gradient-boosted trees
that read the rules' evidence of a cluster and give each of the six types a probability,
fitted to the labelled clusters of the cluster-type study; write its trees as Rust.

    fit.py --run new=F_NEW --run md=F_MD --run db=F_DB --run cp=F_CP [--write] [--heldout]

Each F is a study run's clusters.jsonl turned into features by the Rust code the typing runs
(the dedup runs of studies/types/README.md: `new` the first run, `md` the Maryland run, `db`
the DBpedia-14 run, `cp` the run of 2019 articles):

    cargo run --release -p textreuse-dedup --example type_features < RUN/clusters.jsonl > F.jsonl

The model is fitted to every labelled cluster of the first eight samples and the Maryland
supplement, both halves (their held-out halves were scored before; see SEALED), never to the
ninth sample (`sample-wp6`), drawn before this model and kept to score it. Labels are the first
annotator's. A cluster the rules type identical (one folded text) stays identical: the model
neither learns from it nor types it; the rules' reference (citation) and other (fragment) stand
too (KEPT_RULES).

Prints leave-one-sample-out cross-validation on the fitting clusters (each sample scored by a
model fitted on the others) against the rules; with --heldout, the fitted model and the rules
on the ninth sample. With --write, writes crates/dedup/src/classify/learned/model.rs and the
fixture crates/dedup/src/classify/learned/fixture.tsv (64 clusters' features and
probabilities, which the Rust tests compare with their own).

Needs numpy and scikit-learn (a virtualenv: `pip install scikit-learn`).
"""

import argparse
import json
import os
import sys

import numpy as np
from sklearn.ensemble import GradientBoostingClassifier

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
import trees  # noqa: E402  (studies/trees.py)

MODEL = os.path.join(ROOT, "crates/dedup/src/classify/learned/model.rs")
FIXTURE = os.path.join(ROOT, "crates/dedup/src/classify/learned/fixture.tsv")
TYPES = ("identical", "template", "copyedit", "factual_drift", "reference", "other")
BOTH = ("tuning", "heldout")
# Each sample, its run, and which of its halves the model is fitted to.
SAMPLES = {
    "sample": ("new", BOTH),
    "sample-md": ("md", BOTH),
    "sample-r3": ("new", BOTH),
    "sample-db": ("db", BOTH),
    "sample-wp": ("cp", BOTH),
    "sample-wp2": ("cp", BOTH),
    "sample-wp3": ("cp", BOTH),
    "sample-wp4": ("cp", BOTH),
    "sample-wp5": ("cp", BOTH),
}
# The ninth sample, never fitted to (--heldout).
HELD_OUT = {"sample-wp6": ("cp", BOTH)}
TREES = 150
DEPTH = 2
LEARNING_RATE = 0.1


def labels():
    """The first annotator's labels of every sample."""
    out = {}
    folder = os.path.join(HERE, "labels")
    for name in sorted(os.listdir(folder)):
        if name.endswith(".labels.jsonl") and not name.startswith("second-"):
            with open(os.path.join(folder, name), encoding="utf-8") as f:
                for line in f:
                    if line.strip():
                        r = json.loads(line)
                        out[r["id"]] = r["label"]
    return out


def read_features(path):
    with open(path, encoding="utf-8") as f:
        return {r["cluster"]: (r["features"], r["rule_type"]) for r in map(json.loads, f)}


def clusters(runs, samples):
    """(sample, id, label, features, rule_type) of the labelled clusters of `samples`' halves."""
    lab = labels()
    out = []
    for sample, (run, splits) in samples.items():
        with open(os.path.join(HERE, sample, "key.jsonl"), encoding="utf-8") as f:
            for k in map(json.loads, f):
                if k["split"] in splits and k["id"] in lab and k["cluster"] in runs[run]:
                    features, rule_type = runs[run][k["cluster"]]
                    out.append((sample, k["id"], lab[k["id"]], features, rule_type))
    return out


def arrays(data):
    groups = np.array([d[0] for d in data])
    x = np.array([d[3] for d in data], dtype=float)
    y = np.array([TYPES.index(d[2]) for d in data])
    rules = np.array([TYPES.index(d[4]) for d in data])
    return groups, x, y, rules


def one_text(x):
    """The clusters of one folded text (rule same_text, the first feature): identical."""
    return x[:, 0] == 1


# The rules whose type stands (crates/dedup/src/classify/learned.rs, `retype`): feature index
# of the rule, and its type.
KEPT_RULES = ((1, TYPES.index("reference")), (11, TYPES.index("other")))


def model():
    return GradientBoostingClassifier(n_estimators=TREES, max_depth=DEPTH,
                                      learning_rate=LEARNING_RATE, random_state=0)


def table(title, pred, y):
    print(title)
    print(f"  clusters {len(y)}; typed right {(pred == y).mean():.3f}; non-identical typed right "
          f"{(pred[y != 0] == y[y != 0]).mean():.3f} ({(pred[y != 0] == y[y != 0]).sum()} of "
          f"{(y != 0).sum()})")
    print("  type            labelled  typed  precision  recall")
    for i, t in enumerate(TYPES):
        typed, labelled = (pred == i).sum(), (y == i).sum()
        right = ((pred == i) & (y == i)).sum()
        p = f"{right / typed:.2f}" if typed else "-"
        r = f"{right / labelled:.2f}" if labelled else "-"
        print(f"  {t:<14} {labelled:>9} {typed:>6} {p:>10} {r:>7}")


def ranking(title, p_drift, pred, y):
    drift = pred == 3
    order = np.argsort(-p_drift[drift], kind="stable")
    ranked = (y[drift] == 3)[order]
    tops = ", ".join(f"first {k}: {ranked[:k].mean():.2f}" for k in (10, 20, 40)
                     if len(ranked) >= k)
    print(f"{title}: {drift.sum()} typed factual drift, {ranked.sum()} labelled drift; {tops}")


def predict(m, x):
    p = m.predict_proba(x)
    full = np.zeros((len(x), len(TYPES)))
    full[:, m.classes_] = p
    pred = full.argmax(axis=1)
    pred[one_text(x)] = 0
    for feature, kind in KEPT_RULES:
        pred[x[:, feature] == 1] = kind
    return pred, full


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", action="append", required=True, metavar="NAME=FEATURES.jsonl")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--heldout", action="store_true",
                    help="also score the fitted model on the ninth sample (reports only)")
    args = ap.parse_args()
    runs = {name: read_features(path) for name, path in (r.split("=", 1) for r in args.run)}
    groups, x, y, rules = arrays(clusters(runs, SAMPLES))
    fit = ~one_text(x)
    print(f"{len(y)} labelled clusters, {fit.sum()} not of one folded text (fitted to); labels: "
          + ", ".join(f"{t} {(y == i).sum()}" for i, t in enumerate(TYPES)))
    pred = np.zeros(len(y), dtype=int)
    prob = np.zeros((len(y), len(TYPES)))
    for g in sorted(set(groups)):
        test = groups == g
        m = model().fit(x[fit & ~test], y[fit & ~test])
        pred[test], prob[test] = predict(m, x[test])
    table("leave-one-sample-out, the model:", pred, y)
    table("the rules, same clusters:", rules, y)
    ranking("leave-one-sample-out", prob[:, 3], pred, y)
    m = model().fit(x[fit], y[fit])
    if args.heldout:
        _, hx, hy, hrules = arrays(clusters(runs, HELD_OUT))
        hpred, hprob = predict(m, hx)
        table("ninth sample (never fitted to), the model:", hpred, hy)
        table("ninth sample, the rules:", hrules, hy)
        ranking("ninth sample", hprob[:, 3], hpred, hy)
    if args.write:
        diff = trees.write_model(
            m, x[fit], MODEL, "studies/types/fit.py",
            [f"{TREES} rounds of {DEPTH}-deep regression trees, one per type ("
             + ", ".join(TYPES) + "),",
             f"fitted to {fit.sum()} labelled clusters (not of one folded text)."])
        trees.write_fixture(m, x[fit], FIXTURE, "features (32, tab-separated) then the "
                            "probabilities of the six types; written by studies/types/fit.py")
        print(f"wrote {MODEL} (trees within {diff:.1e} of the fit) and {FIXTURE}")


if __name__ == "__main__":
    main()
