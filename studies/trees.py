"""Write a fitted scikit-learn GradientBoostingClassifier as a static Rust table that
textreuse-trees (crates/trees) evaluates, and the fixture its Rust test compares with.

Shared by studies/types/fit.py and studies/reuse/fit.py. The written trees are walked here in
Python exactly as crates/trees walks them (features rounded to f32, leaf values times the
learning rate, logistic for one class, softmax for several) and must reproduce
`predict_proba` within 1e-9 before anything is written.
"""

import numpy as np
import sklearn


def rust_float(v):
    r = repr(float(v))
    return r if ("." in r or "e" in r or "inf" in r) else r + ".0"


def tables(m, x):
    """(init, roots, nodes) of a fitted model: roots flattened round by round, class by class;
    nodes as (feature, threshold, left, right, value), left == 0 for a leaf."""
    nodes, roots = [], []
    for stage in m.estimators_:
        for tree in stage:
            t = tree.tree_
            base = len(nodes)
            roots.append(base)
            for i in range(t.node_count):
                left, right = t.children_left[i], t.children_right[i]
                if left == -1:
                    nodes.append((0, 0.0, 0, 0, float(t.value[i].reshape(-1)[0])))
                else:
                    nodes.append((int(t.feature[i]), float(t.threshold[i]), base + left,
                                  base + right, 0.0))
    init = [float(v) for v in m._raw_predict_init(x[:1])[0]]
    return init, roots, nodes


def walk(init, roots, nodes, learning_rate, f):
    """The probabilities the Rust evaluator gives features `f`."""
    k = len(init)
    score = np.array(init, dtype=float)
    for j, r in enumerate(roots):
        i = r
        while nodes[i][2] != 0:
            xv = float(np.float32(f[nodes[i][0]]))
            i = nodes[i][2] if xv <= nodes[i][1] else nodes[i][3]
        score[j % k] += learning_rate * nodes[i][4]
    if k == 1:
        return np.array([1 / (1 + np.exp(-score[0]))])
    e = np.exp(score - score.max())
    return e / e.sum()


def write_model(m, x, path, script, summary, extra=()):
    """Writes `path`: a header naming `script` and `summary` (comment lines), the lines of
    `extra` (Rust items), and `pub(super) static MODEL`. Returns the largest difference between
    the written trees' probabilities and `predict_proba` on `x`."""
    init, roots, nodes = tables(m, x)
    mine = np.array([walk(init, roots, nodes, m.learning_rate, f) for f in x])
    theirs = m.predict_proba(x)
    if len(init) == 1:
        theirs = theirs[:, 1:]
    diff = float(np.abs(mine - theirs).max())
    assert diff < 1e-9, diff
    lines = [f"// Written by {script} (scikit-learn {sklearn.__version__}, numpy "
             f"{np.__version__}): do not edit."]
    lines += [f"// {s}" for s in summary]
    lines += [f"// The written trees reproduce the fit's probabilities within {diff:.1e}.",
              "use textreuse_trees::{Boosted, Node};", ""]
    lines += list(extra)
    lines += [
        "/// The fitted model.",
        f"pub(super) static MODEL: Boosted<'static> = Boosted::new({rust_float(m.learning_rate)}, "
        f"&[{', '.join(rust_float(v) for v in init)}], &ROOTS, &NODES);",
        f"static ROOTS: [u32; {len(roots)}] = [",
    ]
    per_line = len(init) if len(init) > 1 else 10
    for i in range(0, len(roots), per_line):
        lines.append("    " + ", ".join(str(r) for r in roots[i:i + per_line]) + ",")
    lines += ["];", f"static NODES: [Node; {len(nodes)}] = ["]
    for feature, threshold, left, right, value in nodes:
        if left == 0:
            lines.append(f"    Node::leaf({rust_float(value)}),")
        else:
            lines.append(f"    Node::split({feature}, {rust_float(threshold)}, {left}, {right}),")
    lines.append("];")
    with open(path, "w", encoding="utf-8") as f:
        f.write("\n".join(lines) + "\n")
    return diff


def write_fixture(m, x, path, header, rows=64):
    """Writes `path`: `header` as a comment, then `rows` cases spread over `x` (every
    len(x)/rows-th), each its features then `predict_proba` (the positive class's only, for a
    binary model), tab-separated."""
    step = max(1, len(x) // rows)
    with open(path, "w", encoding="utf-8") as f:
        f.write(f"# {header}\n")
        for i in range(0, len(x), step)[:rows]:
            p = list(m.predict_proba(x[i:i + 1])[0])
            if len(p) == 2:
                p = p[1:]
            f.write("\t".join(rust_float(v) for v in list(x[i]) + p) + "\n")
