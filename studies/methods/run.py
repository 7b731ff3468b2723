#!/usr/bin/env python3
"""The seed methods side by side (issue #48): precision, recall and run time of MinHash
(sentence and document units), SimHash, Wang's paragraph fingerprints (the paper's k x m grid
at r = 0.8) and random projection over word embeddings, each run as a user runs it (the
`textreuse` command over the whole corpus), scored on the same labelled pairs.

    run.py --bin target/release/textreuse --pan ../shared/eval/pan13-train --work /tmp/methods

Three labelled sets (README.md says where each comes from):

- `pan`: the 5,185 (suspicious, source) document pairs of the PAN 2013 text alignment training
  corpus, labelled by the corpus: reuse with no, random, translation or summary obfuscation, or
  none (`01-no-plagiarism`). A method flags a pair when its output links the two documents (a
  cluster with a member of each, or a `docsim` pair); pairs the labels do not cover are counted
  but not scored.
- `revisions`: the 207 articles of the two bundled dumps (2013 and 2016): the 97 articles in
  both are the true pairs (revisions of one article), every other pair of documents is false.
- `sentences`: real sentences of the 2016 dump, each a document of its own, plus copies of
  some of them edited at known rates (characters replaced, or words dropped, swapped and
  replaced by other words of the dump): a copy and its source (and copies of one source) are
  true pairs; a pair with a copy in it and not of one family is false; pairs of two original
  sentences are not labelled (the dump has natural near-duplicates) and not scored.

Each method's CPU time (user + system of the command, one thread) is the median of --runs runs,
interleaved method by method. Writes WORK/results.json and prints the markdown tables.
Standard library only.
"""

import argparse
import collections
import itertools
import json
import os
import random
import re
import resource
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DUMPS = [os.path.join(ROOT, "data", "enwiki-part-201.xml.bz2"),
         os.path.join(ROOT, "data", "enwiki-sample-206.xml.bz2")]
PAN_CLASSES = ["02-no-obfuscation", "03-random-obfuscation", "04-translation-obfuscation",
               "05-summary-obfuscation", "01-no-plagiarism"]
CHAR_RATES = [0.01, 0.03, 0.06, 0.10]
WORD_RATES = [0.10, 0.20, 0.30]
SEED = 4848
PROJECTION = "Random projection over embeddings, sentences"


def methods(dataset):
    """(name, family, arguments after the inputs) per method; the dataset says how documents
    are cut (PAN's paragraphs are lines; a sentence set's documents are single sentences)."""
    # The sentence set's documents are its sentences: "sentences" there means one unit a line.
    sentence_unit = ["--unit", "document"] if dataset == "sentences" else []
    paragraphs = ["--paragraphs", "lines"] if dataset == "pan" else []
    out = [
        ("MinHash, sentences", "dedup", sentence_unit),
        ("MinHash, documents", "dedup", ["--unit", "document"]),
        ("SimHash (64 bits, Hamming 3), sentences", "dedup", ["--method", "simhash"] + sentence_unit),
        ("SimHash (64 bits, Hamming 3), documents", "dedup",
         ["--method", "simhash", "--unit", "document"]),
    ]
    for k in (9, 11, 13, 15):
        for m in (6, 9):
            out.append((f"Wang k={k} m={m} r=0.8", "docsim",
                        ["--words", str(k), "--sentences", str(m), "--threshold", "0.8"] + paragraphs))
    # Below the paper's threshold: how much a document-level set cosine can find at all.
    out.append(("Wang k=11 m=9 r=0.1", "docsim",
                ["--words", "11", "--sentences", "9", "--threshold", "0.1"] + paragraphs))
    out.append((PROJECTION, "dedup",
                ["--method", "rp-embed"] + sentence_unit))
    out.append(("Random projection over embeddings, D=60, sentences", "dedup",
                ["--method", "rp-embed", "--projection-bits", "60"] + sentence_unit))
    # Weissman's verification (normalized edit distance <= 0.25) on each method's pairs before
    # the union-find: what the window search's chaining leaves when candidates are checked.
    out.append(("MinHash, sentences, --max-edit 0.25", "dedup", sentence_unit + ["--max-edit", "0.25"]))
    out.append((PROJECTION + ", --max-edit 0.25", "dedup",
                ["--method", "rp-embed", "--max-edit", "0.25"] + sentence_unit))
    if dataset == "sentences":
        # One unit per document: the sentence and document rows would be the same runs.
        out = [m for m in out if "documents" not in m[0]]
    return out


def run(cmd, stdout=None):
    """Runs cmd; returns CPU seconds (user + system of the child) and wall seconds."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    t = time.monotonic()
    proc = subprocess.run(cmd, stdout=stdout, stderr=subprocess.PIPE)
    wall = time.monotonic() - t
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    # Exit 3: some input problem was reported and skipped (the bundled 2013 dump has six).
    if proc.returncode not in (0, 3):
        sys.exit(f"{' '.join(cmd)} failed ({proc.returncode}):\n{proc.stderr.decode()[-2000:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return cpu, wall


def doc_key(record):
    """A document as the outputs name it: (input file name, doc)."""
    return os.path.basename(record["source"]), str(record["doc"])


class Links:
    """The document pairs a method's output links, kept as the groups that link them (a dedup
    cluster's documents, a docsim pair) rather than as pairs: a chained cluster of 10,000
    documents links 50 million pairs."""

    EXACT_LIMIT = 5_000_000

    def __init__(self, groups):
        self.groups = [sorted(g) for g in map(set, groups) if len(g) > 1]
        self.of = collections.defaultdict(list)
        for i, g in enumerate(self.groups):
            for d in g:
                self.of[d].append(i)

    def linked(self, a, b):
        gb = set(self.of.get(b, ()))
        return any(i in gb for i in self.of.get(a, ()))

    def neighbours(self, a):
        out = set()
        for i in self.of.get(a, ()):
            out.update(self.groups[i])
        out.discard(a)
        return out

    def count(self):
        """(distinct linked pairs, exact): exact up to EXACT_LIMIT pairs in the groups, beyond
        that the groups' pair count, an upper bound."""
        bound = sum(len(g) * (len(g) - 1) // 2 for g in self.groups)
        if bound > self.EXACT_LIMIT:
            return bound, False
        return len({p for g in self.groups for p in itertools.combinations(g, 2)}), True


def links(family, out_path):
    """What a method's output links, documents named by doc_key."""
    groups = []
    if family == "docsim":
        with open(out_path, encoding="utf-8") as f:
            for line in f:
                p = json.loads(line)
                groups.append((doc_key(p["a"]), doc_key(p["b"])))
    else:
        with open(os.path.join(out_path, "clusters.jsonl"), encoding="utf-8") as f:
            for line in f:
                groups.append({doc_key(m) for m in json.loads(line)["members"]})
    return Links(groups)


# --- the labelled sets ------------------------------------------------------------------------

def pan_set(pan, work):
    """One JSON Lines file of every document in a labelled pair; labels {(a, b): class}."""
    path = os.path.join(work, "pan.jsonl")
    labels = {}
    names = set()
    for cls in PAN_CLASSES:
        with open(os.path.join(pan, cls, "pairs"), encoding="utf-8") as f:
            for line in f:
                susp, src = line.split()
                names.update((susp, src))
                a, b = ("pan.jsonl", susp), ("pan.jsonl", src)
                labels[(min(a, b), max(a, b))] = cls
    with open(path, "w", encoding="utf-8") as out:
        for name in sorted(names):
            folder = "susp" if name.startswith("suspicious") else "src"
            with open(os.path.join(pan, folder, name), encoding="utf-8-sig") as f:
                text = f.read()
            out.write(json.dumps({"id": name, "text": text}, ensure_ascii=False) + "\n")
    return [path], labels


def dump_titles(binary):
    """(source, doc) -> title of every article of the bundled dumps, named as the outputs name
    them (their source and doc fields)."""
    out = subprocess.run([binary, "docsim", "-q", "--fingerprints"] + DUMPS, capture_output=True,
                         check=False)
    titles = {}
    for line in out.stdout.decode().splitlines():
        r = json.loads(line)
        titles[doc_key(r)] = r["title"]
    return titles


def revisions_set(binary):
    titles = dump_titles(binary)
    by_title = collections.defaultdict(list)
    for key, title in titles.items():
        by_title[title].append(key)
    labels = {}
    for a, b in itertools.combinations(sorted(titles), 2):
        labels[(a, b)] = "revision" if titles[a] == titles[b] else "different"
    return DUMPS, labels, sum(1 for v in by_title.values() if len(v) == 2)


def edit_chars(rng, text, rate):
    return "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") if c.isalpha() and rng.random() < rate
                   else c for c in text)


def edit_words(rng, words, vocabulary, rate):
    """Drops, swaps with the next, or replaces by another word of the dump, each word with
    probability `rate` (the operations of PAN's random obfuscation)."""
    out = list(words)
    i = 0
    while i < len(out):
        if rng.random() < rate:
            op = rng.randrange(3)
            if op == 0 and len(out) > 4:
                del out[i]
                continue
            if op == 1 and i + 1 < len(out):
                out[i], out[i + 1] = out[i + 1], out[i]
                i += 2
                continue
            out[i] = rng.choice(vocabulary)
        i += 1
    return " ".join(out)


def sentences_set(binary, work, copies):
    """Sentences of the 2016 dump (texts of 8+ words, each text once) and `copies` edited
    copies; labels are built by family when scoring (see score_sentences)."""
    out = subprocess.run([binary, "sentences", "-q", DUMPS[1]], capture_output=True, check=True)
    seen = set()
    base = []
    for line in out.stdout.decode().splitlines():
        text = json.loads(line)["text"]
        fold = re.sub(r"\W+", " ", text.lower()).strip()
        if len(text.split()) >= 8 and fold not in seen:
            seen.add(fold)
            base.append(text)
    rng = random.Random(SEED)
    vocabulary = sorted({w for t in base for w in t.split()})
    edits = [("chars", r) for r in CHAR_RATES] + [("words", r) for r in WORD_RATES]
    rows = [{"id": f"s{i}", "text": t} for i, t in enumerate(base)]
    family = {}
    for j in range(copies):
        src = rng.randrange(len(base))
        kind, rate = edits[j % len(edits)]
        text = (edit_chars(rng, base[src], rate) if kind == "chars"
                else edit_words(rng, base[src].split(), vocabulary, rate))
        cid = f"c{j}"
        rows.append({"id": cid, "text": text})
        family[cid] = (f"s{src}", f"{kind} {rate:g}")
    rng.shuffle(rows)
    path = os.path.join(work, "sentences.jsonl")
    with open(path, "w", encoding="utf-8") as f:
        for r in rows:
            f.write(json.dumps(r, ensure_ascii=False) + "\n")
    return [path], family, len(base)


# --- scoring ----------------------------------------------------------------------------------

def unlabelled(found, flagged):
    total, exact = found.count()
    return total - flagged if exact else f"at most {total - flagged:,}"


def score_labelled(found, labels, positive_classes):
    """Per class: labelled pairs and how many were linked; precision over labelled pairs."""
    per = collections.Counter()
    hit = collections.Counter()
    for (a, b), cls in labels.items():
        per[cls] += 1
        if found.linked(a, b):
            hit[cls] += 1
    tp = sum(hit[c] for c in positive_classes)
    flagged = sum(hit.values())
    positives = sum(per[c] for c in positive_classes)
    return {
        "precision": tp / flagged if flagged else None,
        "recall": tp / positives,
        "flagged": flagged,
        "unlabelled_pairs": unlabelled(found, flagged),
        "recall_by_class": {c: hit[c] / per[c] for c in positive_classes},
        "false_by_class": {c: hit[c] for c in per if c not in positive_classes},
    }


def score_sentences(found, family):
    """A copy's true pairs: its source and the other copies of that source. Scored: every
    linked pair with a copy in it."""
    by_source = collections.defaultdict(list)
    for cid, (src, _) in family.items():
        by_source[src].append(cid)
    kind_of = {}
    for src, cids in by_source.items():
        for a, b in itertools.combinations([src] + cids, 2):
            # The pair's edit kind: the copy's (between two copies, the larger edit).
            kinds = [family[x][1] for x in (a, b) if x in family]
            kind_of[(min(a, b), max(a, b))] = max(kinds, key=lambda k: float(k.split()[1]))
    key = {d: k for k in found.of for d in [k[1]]}
    scored = 0
    hit = collections.Counter()
    for x in family:
        if x not in key:
            continue
        for y in found.neighbours(key[x]):
            y = y[1]
            if y in family and y < x:
                continue  # a pair of two copies, counted from the other one
            scored += 1
            kind = kind_of.get((min(x, y), max(x, y)))
            if kind:
                hit[kind] += 1
    tp = sum(hit.values())
    per = collections.Counter(kind_of.values())
    order = sorted(per, key=lambda k: (k.split()[0], float(k.split()[1])))
    return {
        "precision": tp / scored if scored else None,
        "recall": tp / len(kind_of),
        "flagged": scored,
        "unlabelled_pairs": unlabelled(found, scored),
        "recall_by_class": {k: hit[k] / per[k] for k in order},
    }


def clusters_of(out_dir):
    """Each cluster of a dedup output as a frozenset of its members (source, doc, idx)."""
    with open(os.path.join(out_dir, "clusters.jsonl"), encoding="utf-8") as f:
        return [frozenset((m["source"], str(m["doc"]), m["idx"]) for m in json.loads(line)["members"])
                for line in f]


def overlap(minhash_dir, projection_dir):
    """Meng and Zheng's comparison: the sentence pairs each method's clusters hold, and the
    clusters both found with the same members."""
    a, b = clusters_of(minhash_dir), clusters_of(projection_dir)

    def pairs(clusters):
        return {p for c in clusters for p in itertools.combinations(sorted(c), 2)}

    pa, pb = pairs(a), pairs(b)
    return {
        "minhash_clusters": len(a), "projection_clusters": len(b),
        "same_clusters": len(set(a) & set(b)),
        "minhash_pairs": len(pa), "projection_pairs": len(pb), "both_pairs": len(pa & pb),
        "minhash_sentences": len(set().union(*a)) if a else 0,
        "projection_sentences": len(set().union(*b)) if b else 0,
    }


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--bin", required=True, help="the textreuse binary")
    ap.add_argument("--pan", help="the PAN 2013 training corpus (leave out to skip that set)")
    ap.add_argument("--work", required=True, help="scratch directory for inputs and outputs")
    ap.add_argument("--runs", type=int, default=3, help="timed runs per method (median)")
    ap.add_argument("--copies", type=int, default=2800, help="edited copies in the sentence set")
    ap.add_argument("--only", choices=["pan", "revisions", "sentences"], help="run only this set")
    args = ap.parse_args()
    os.makedirs(args.work, exist_ok=True)
    binary = os.path.abspath(args.bin)

    sets = []
    if args.pan and args.only in (None, "pan"):
        inputs, labels = pan_set(args.pan, args.work)
        sets.append(("pan", inputs, lambda f, l=labels: score_labelled(f, l, PAN_CLASSES[:4]),
                     {"documents": len({d for p in labels for d in p}), "pairs": len(labels)}))
    if args.only in (None, "revisions"):
        inputs, labels, n_true = revisions_set(binary)
        sets.append(("revisions", inputs, lambda f, l=labels: score_labelled(f, l, ["revision"]),
                     {"documents": len({d for p in labels for d in p}), "true_pairs": n_true}))
    if args.only in (None, "sentences"):
        inputs, family, n_base = sentences_set(binary, args.work, args.copies)
        sets.append(("sentences", inputs, lambda f, fa=family: score_sentences(f, fa),
                     {"originals": n_base, "copies": len(family)}))

    results = {"binary": binary, "runs": args.runs, "sets": {}}
    for name, inputs, score, info in sets:
        ms = methods(name)
        cpu = collections.defaultdict(list)
        wall = collections.defaultdict(list)
        found = {}
        for r in range(args.runs):
            for i, (label, family, extra) in enumerate(ms):
                out = os.path.join(args.work, f"{name}-{i}")
                if family == "docsim":
                    cmd = [binary, "docsim", "-q", "--threads", "1"] + extra + inputs
                    with open(out + ".jsonl", "w") as f:
                        c, w = run(cmd, stdout=f)
                    path = out + ".jsonl"
                else:
                    cmd = [binary, "dedup", "-q", "--threads", "1", "--out", out] + extra + inputs
                    c, w = run(cmd)
                    path = out
                cpu[label].append(c)
                wall[label].append(w)
                if r == 0:
                    found[label] = (links(family, path), " ".join(["textreuse"] + cmd[1:]))
                print(f"{name} run {r + 1}: {label}: {c:.2f} s", file=sys.stderr)
        rows = []
        for label, _, _ in ms:
            pairs, cmd = found[label]
            s = score(pairs)
            s.update(method=label, command=cmd, cpu_s=statistics.median(cpu[label]),
                     wall_s=statistics.median(wall[label]), cpu_runs=cpu[label])
            rows.append(s)
        results["sets"][name] = {"info": info, "rows": rows}
        print_table(name, info, rows)
        if name == "revisions":
            # The bundled samples as Meng and Zheng compare the two methods' clusters.
            labels = [m[0] for m in ms]
            o = overlap(os.path.join(args.work, f"{name}-{labels.index('MinHash, sentences')}"),
                        os.path.join(args.work, f"{name}-{labels.index(PROJECTION)}"))
            results["overlap"] = o
            print("\n" + json.dumps(o))
    with open(os.path.join(args.work, "results.json"), "w") as f:
        json.dump(results, f, indent=1)


def count(x):
    return x if isinstance(x, str) else f"{x:,}"


def fmt(x):
    return "–" if x is None else f"{x:.3f}"


def print_table(name, info, rows):
    classes = list(rows[0]["recall_by_class"])
    print(f"\n### {name} ({', '.join(f'{k} {v:,}' for k, v in info.items())})\n")
    print("| method | precision | recall | " + " | ".join(f"recall {c}" for c in classes)
          + " | flagged | not labelled | CPU s |")
    print("|---|" + "---:|" * (len(classes) + 5))
    for r in rows:
        print(f"| {r['method']} | {fmt(r['precision'])} | {fmt(r['recall'])} | "
              + " | ".join(fmt(r["recall_by_class"][c]) for c in classes)
              + f" | {r['flagged']:,} | {count(r['unlabelled_pairs'])} | {r['cpu_s']:.2f} |")


if __name__ == "__main__":
    main()
