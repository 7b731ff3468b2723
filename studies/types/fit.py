#!/usr/bin/env python3
"""Fit the confidence of `contradictions.jsonl` (crates/dedup/src/contradictions/drift.rs): the
probability that a cluster is factual drift, from gradient-boosted trees over its evidence,
fitted to the labelled tuning clusters of the cluster-type study; write its trees as Rust.

    fit.py --run new=F_NEW --run md=F_MD --run db=F_DB --run cp=F_CP [--write]

Each F is a study run's clusters.jsonl turned into features by the Rust code the confidence
runs (the dedup runs of studies/types/README.md: `new` the first run, `md` the Maryland run,
`db` the DBpedia-14 run, `cp` the run of 2019 articles):

    cargo run --release -p textreuse-dedup --example drift_features < RUN/clusters.jsonl > F.jsonl

Only tuning clusters are read: both halves of the first sample and of the Maryland supplement
(reported once, tuning data since), the tuning halves of the later samples; never a held-out
half of a sample in SEALED, nor the eighth sample (scored whole). Labels are the first
annotator's.

Prints the leave-one-sample-out cross-validation (each tuning sample scored by a model fitted on
the others): among the clusters the rules type factual drift, the precision at several
confidence cut-offs, against the rules alone. With --write, fits the model on all tuning
clusters and writes crates/dedup/src/contradictions/drift/model.rs and the fixture
crates/dedup/src/contradictions/drift/fixture.tsv (64 clusters' features and probabilities,
which the Rust tests compare with their own).

Needs numpy and scikit-learn (a virtualenv: `pip install scikit-learn`).
"""

import argparse
import json
import os

import numpy as np
import sklearn
from sklearn.ensemble import GradientBoostingClassifier

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MODEL = os.path.join(ROOT, "crates/dedup/src/contradictions/drift/model.rs")
FIXTURE = os.path.join(ROOT, "crates/dedup/src/contradictions/drift/fixture.tsv")
# Each sample, its run, and which of its halves are tuning data.
SAMPLES = {
    "sample": ("new", ("tuning", "heldout")),
    "sample-md": ("md", ("tuning", "heldout")),
    "sample-r3": ("new", ("tuning",)),
    "sample-db": ("db", ("tuning",)),
    "sample-wp": ("cp", ("tuning",)),
    "sample-wp2": ("cp", ("tuning",)),
    "sample-wp3": ("cp", ("tuning",)),
    "sample-wp4": ("cp", ("tuning",)),
}
# The held-out halves (and the eighth sample, scored whole), for --heldout.
HELD_OUT = {
    "sample-r3": ("new", ("heldout",)),
    "sample-db": ("db", ("heldout",)),
    "sample-wp": ("cp", ("heldout",)),
    "sample-wp2": ("cp", ("heldout",)),
    "sample-wp3": ("cp", ("heldout",)),
    "sample-wp4": ("cp", ("heldout",)),
    "sample-wp5": ("cp", ("tuning", "heldout")),
}
TREES = 150
DEPTH = 2
LEARNING_RATE = 0.1


def labels():
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
        return {r["cluster"]: r["features"] for r in map(json.loads, f)}


def clusters(runs, samples):
    """(sample, id, label, features) of the labelled clusters of `samples`' halves."""
    lab = labels()
    out = []
    for sample, spec in samples.items():
        run, splits = spec
        with open(os.path.join(HERE, sample, "key.jsonl"), encoding="utf-8") as f:
            for k in map(json.loads, f):
                if k["split"] in splits and k["id"] in lab and k["cluster"] in runs[run]:
                    out.append((sample, k["id"], lab[k["id"]], runs[run][k["cluster"]]))
    return out


def model():
    return GradientBoostingClassifier(n_estimators=TREES, max_depth=DEPTH,
                                      learning_rate=LEARNING_RATE, random_state=0)


def typed_drift(x):
    """The clusters the rules typed factual drift: their rule is one of the three drift rules."""
    return (x[:, 6] + x[:, 7] + x[:, 8]) > 0


def precision_table(title, p, y, drift):
    print(title)
    print(f"  clusters the rules type drift: {drift.sum()}, labelled drift {y[drift].sum()} "
          f"(precision {y[drift].mean():.3f})")
    for cut in (0.2, 0.3, 0.4, 0.5, 0.6, 0.7):
        keep = drift & (p >= cut)
        print(f"  confidence >= {cut}: {keep.sum():>4} clusters, precision "
              f"{y[keep].mean() if keep.any() else float('nan'):.3f}, labelled drift kept "
              f"{y[keep].sum()} of {y[drift].sum()}")
    order = np.argsort(-p[drift], kind="stable")
    ranked = y[drift][order]
    for k in (10, 20, 40):
        if len(ranked) >= k:
            print(f"  precision of the top {k}: {ranked[:k].mean():.3f}")


def rust_float(v):
    r = repr(float(v))
    return r if ("." in r or "e" in r or "inf" in r) else r + ".0"


def export(m, x):
    nodes, roots = [], []
    for stage in m.estimators_:
        t = stage[0].tree_
        base = len(nodes)
        roots.append(base)
        for i in range(t.node_count):
            left, right = t.children_left[i], t.children_right[i]
            if left == -1:
                nodes.append((0, 0.0, 0, 0, float(t.value[i].reshape(-1)[0])))
            else:
                nodes.append((int(t.feature[i]), float(t.threshold[i]), base + left, base + right,
                              0.0))
    init = float(m._raw_predict_init(x[:1])[0][0])

    def prob(f):
        score = init
        for r in roots:
            i = r
            while nodes[i][2] != 0:
                i = nodes[i][2] if float(np.float32(f[nodes[i][0]])) <= nodes[i][1] else nodes[i][3]
            score += LEARNING_RATE * nodes[i][4]
        return 1 / (1 + np.exp(-score))

    mine = np.array([prob(f) for f in x])
    diff = np.abs(mine - m.predict_proba(x)[:, 1]).max()
    assert diff < 1e-9, diff
    lines = [
        f"// Written by studies/types/fit.py (scikit-learn {sklearn.__version__}, numpy "
        f"{np.__version__}): do not edit.",
        f"// {TREES} regression trees of depth {DEPTH} (log-odds of factual drift), fitted to "
        f"{len(x)} labelled tuning clusters;",
        f"// the written trees reproduce the fit's probabilities within {diff:.1e}.",
        "use super::Node;",
        "",
        f"pub(super) const LEARNING_RATE: f64 = {rust_float(LEARNING_RATE)};",
        f"pub(super) const INIT: f64 = {rust_float(init)};",
        f"pub(super) static ROOTS: [u32; {len(roots)}] = [",
    ]
    lines += [f"    {r}," for r in roots]
    lines += ["];", f"pub(super) static NODES: [Node; {len(nodes)}] = ["]
    for feature, threshold, left, right, value in nodes:
        lines.append(f"    Node {{ feature: {feature}, threshold: {rust_float(threshold)}, "
                     f"left: {left}, right: {right}, value: {rust_float(value)} }},")
    lines.append("];")
    with open(MODEL, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    step = max(1, len(x) // 64)
    with open(FIXTURE, "w", encoding="utf-8") as f:
        f.write("# features (32, tab-separated) then the probability of factual drift; written by "
                "studies/types/fit.py\n")
        for i in range(0, len(x), step)[:64]:
            p = m.predict_proba(x[i:i + 1])[0][1]
            f.write("\t".join(rust_float(v) for v in list(x[i]) + [p]) + "\n")
    print(f"wrote {MODEL} ({len(nodes)} nodes) and {FIXTURE}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--run", action="append", required=True, metavar="NAME=FEATURES.jsonl")
    ap.add_argument("--write", action="store_true")
    ap.add_argument("--heldout", action="store_true",
                    help="also score the fitted model on the held-out halves (reports only)")
    args = ap.parse_args()
    runs = {name: read_features(path) for name, path in (r.split("=", 1) for r in args.run)}
    data = clusters(runs, SAMPLES)
    groups = np.array([s for s, _, _, _ in data])
    x = np.array([f for _, _, _, f in data], dtype=float)
    y = np.array([label == "factual_drift" for _, _, label, _ in data], dtype=int)
    print(f"{len(y)} tuning clusters, {y.sum()} labelled factual drift")
    p = np.zeros(len(y))
    for g in sorted(set(groups)):
        test = groups == g
        p[test] = model().fit(x[~test], y[~test]).predict_proba(x[test])[:, 1]
    precision_table("leave-one-sample-out on the tuning clusters:", p, y, typed_drift(x))
    m = model().fit(x, y)
    if args.heldout:
        held = clusters(runs, HELD_OUT)
        hx = np.array([f for _, _, _, f in held], dtype=float)
        hy = np.array([label == "factual_drift" for _, _, label, _ in held], dtype=int)
        precision_table("held-out halves (never fitted to):", m.predict_proba(hx)[:, 1], hy,
                        typed_drift(hx))
    if args.write:
        export(m, x)


if __name__ == "__main__":
    main()
