#!/usr/bin/env python3
"""Which entities tell content reuse from structure reuse? Measures three sources of a
passage's entities on the labelled tuning cases of the reuse-class study (issue #46):

    entities.py RUN/reuse.jsonl      # a `textreuse reuse --passage-texts` run of studies/reuse

* `caps`: the run's own `entity_jaccard` (maximal runs of capitalized words, what
  `textreuse reuse` computes);
* `gazetteer`: the titles of the run's input pages, and their subjects (a title before a comma
  or parenthesis), found in the passage as whole words, longest first;
* `wikilinks`: the targets of the two pages' own `[[links]]` whose label the passage contains
  (cases between two pages of the XML inputs only: the Maryland input is plain text).

For each it prints the area under the ROC curve of the entity Jaccard similarity between the
two passages, content against structure reuse and content against not reuse (0.5: no better
than chance), and what the thesis's H1 (entity Jaccard in (0.5, 1], 10-gram Jaccard above 0.5,
either share below 0.5) calls content with it. Tuning splits only (dev, heldout2, h3-tuning):
the held-out halves are not read. Standard library only; reads the inputs listed in
studies/types/data/README.md.
"""

import argparse
import bz2
import collections
import json
import os
import re

import evaluate as E

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DATA = os.path.join(ROOT, "studies", "types", "data")
SHARED = os.path.join(os.path.dirname(ROOT), "shared", "data")
XML = [
    os.path.join(SHARED, "enwiki-part-201.xml.bz2"),
    os.path.join(SHARED, "enwiki-sample-206.xml.bz2"),
    os.path.join(DATA, "wikiduper-near-duplicate-articles.xml.bz2"),
    os.path.join(DATA, "wikiduper-katrina.xml"),
]
MARYLAND = os.path.join(DATA, "wikiduper-maryland.jsonl")
SPLITS = ("dev", "heldout2", "h3-tuning")
PAGE = re.compile(r"<title>(.*?)</title>.*?<text[^>]*>(.*?)</text>", re.S)
LINK = re.compile(r"\[\[([^\]|#]+)(?:#[^\]|]*)?(?:\|([^\]]+))?\]\]")
FIRST_WORDS = set("The It A An In On At This That He She They His Her Its Their As For By With "
                  "From Of And But Or".split())


def read_pages():
    pages = {}
    for path in XML:
        opener = bz2.open if path.endswith(".bz2") else open
        with opener(path, "rt", encoding="utf-8", errors="replace") as f:
            for m in PAGE.finditer(f.read()):
                pages[(m.group(1), os.path.basename(path))] = m.group(2)
    return pages


def labelled_cases(run):
    by_pair = collections.defaultdict(list)
    with open(run, encoding="utf-8") as f:
        for line in f:
            c = json.loads(line)
            by_pair[(E.doc_key(c["suspicious"]), E.doc_key(c["source"]))].append(c)
    for split in SPLITS:
        sample, prefixes, splits = E.SPLITS[split]
        labels = {}
        for prefix in prefixes:
            labels.update(E.read_labels(prefix))
        with open(os.path.join(HERE, sample, "key.jsonl"), encoding="utf-8") as f:
            for line in f:
                k = json.loads(line)
                if k["split"] not in splits:
                    continue
                best = E.best_case(by_pair, k)
                if best:
                    yield labels[k["id"]], best


def gazetteer(titles):
    out = set()
    for t in titles:
        if ":" in t:
            continue
        out.add(t)
        subject = re.split(r"[,(]", t)[0].strip()
        if len(subject) >= 3:
            out.add(subject)
    return out


def gazetteer_entities(text, gaz):
    words = [w.strip(".,;:()\"'") for w in text.split()]
    out, i = set(), 0
    while i < len(words):
        for n in range(6, 0, -1):
            name = " ".join(words[i:i + n])
            if i + n <= len(words) and name in gaz:
                out.add(name)
                i += n
                break
        else:
            i += 1
    return out


def link_map(wikitext):
    out = {}
    for m in LINK.finditer(wikitext):
        target = m.group(1).strip()
        if ":" in target or not target:
            continue
        label = (m.group(2) or m.group(1)).strip()
        out[label] = (target[:1].upper() + target[1:]).replace("_", " ")
    return out


def link_entities(text, links):
    return {t for label, t in links.items()
            if len(label) >= 2 and re.search(r"(?<!\w)" + re.escape(label) + r"(?!\w)", text)}


def jaccard(a, b):
    return len(a & b) / len(a | b) if a | b else 0.0


def auc(pos, neg):
    if not pos or not neg:
        return float("nan")
    wins = sum(1.0 if p > n else 0.5 if p == n else 0.0 for p in pos for n in neg)
    return wins / (len(pos) * len(neg))


def report(name, rows):
    """rows: (label, entity Jaccard, 10-gram Jaccard, smaller share)."""
    by = {lab: [r[1] for r in rows if r[0] == lab] for lab in E.LABELS}
    h1 = [r for r in rows if 0.5 < r[1] <= 1.0 and r[2] > 0.5 and r[3] < 0.5]
    right = sum(r[0] == "content" for r in h1)
    print(f"  {name:<10} {len(rows):>5} {auc(by['content'], by['structure']):>20.3f} "
          f"{auc(by['content'], by['none']):>16.3f} {len(h1):>9} {right:>13}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("reuse_jsonl")
    args = ap.parse_args()
    pages = read_pages()
    titles = {t for t, _ in pages}
    with open(MARYLAND, encoding="utf-8") as f:
        titles.update(json.loads(line)["title"] for line in f if line.strip())
    gaz = gazetteer(titles)
    cases = list(labelled_cases(args.reuse_jsonl))
    print(f"{len(cases)} labelled tuning cases ({', '.join(SPLITS)}); gazetteer of {len(gaz)} "
          f"names from {len(titles)} titles")
    print(f"  {'entities':<10} {'cases':>5} {'AUC content/structure':>20} "
          f"{'content/none':>16} {'H1 fires':>9} {'H1 content':>13}")
    caps, gazet, caps_x, links = [], [], [], []
    for label, c in cases:
        a, b = c["source_text"], c["suspicious_text"]
        rest = (c["jaccard_10"], min(c["source_share"], c["suspicious_share"]))
        caps.append((label, c["entity_jaccard"], *rest))
        gazet.append((label, jaccard(gazetteer_entities(a, gaz), gazetteer_entities(b, gaz)),
                      *rest))
        ka = (c["source"]["title"], os.path.basename(c["source"].get("source") or ""))
        kb = (c["suspicious"]["title"], os.path.basename(c["suspicious"].get("source") or ""))
        if ka in pages and kb in pages:
            la, lb = link_map(pages[ka]), link_map(pages[kb])
            ea = link_entities(a, {**lb, **la})
            eb = link_entities(b, {**la, **lb})
            links.append((label, jaccard(ea, eb), *rest))
            caps_x.append((label, c["entity_jaccard"], *rest))
    report("caps", caps)
    report("gazetteer", gazet)
    print("  cases between two XML pages:")
    report("caps", caps_x)
    report("wikilinks", links)


if __name__ == "__main__":
    main()
