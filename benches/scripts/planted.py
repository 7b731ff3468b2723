#!/usr/bin/env python3
"""Streams a deterministic corpus of sentences with planted near-copies of known edit rates, for
measuring MinHash recall per Jaccard similarity (benches/src/bin/planted_recall.rs) and
`textreuse dedup` end to end:

    python3 benches/scripts/planted.py 1000000 --truth /tmp/planted1m.tsv > /tmp/planted1m.jsonl

Each line is `{"id": "s<n>", "text": "..."}`, one sentence per line. With probability 0.8 a line
is a fresh random sentence from synth_sentences.py's generator (100..250 characters of a made-up
4,000-word vocabulary); otherwise it is a copy of one of the previous 10,000 fresh lines in which
every character is replaced, with probability r, by a random lowercase letter, r drawn uniformly
from RATES (0.25% to 12%). A replaced character changes the 12 shingles that contain it, so the
copies' shingle Jaccard similarities run from about 0.97 (r = 0.25%) down to about 0.2
(r = 12%), with every bin in between populated. The truth TSV has one line per copy:
`copy_id<TAB>source_id<TAB>r`.

Only the Python standard library is needed; 10^6 lines take about 6 s.
"""
import argparse
import importlib.util
import json
import os
import random
import sys

RATES = [0.0025, 0.005, 0.0075, 0.01, 0.015, 0.02, 0.03, 0.05, 0.08, 0.12]
PLANT = 0.2
WINDOW = 10_000
SEED = 9090
LETTERS = "abcdefghijklmnopqrstuvwxyz"


def synth():
    """synth_sentences.py, imported from beside this file."""
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "synth_sentences.py")
    spec = importlib.util.spec_from_file_location("synth_sentences", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def edit(rng, text, rate):
    chars = list(text)
    for i in range(len(chars)):
        if rng.random() < rate:
            chars[i] = rng.choice(LETTERS)
    return "".join(chars)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("count", type=int)
    parser.add_argument("--truth", required=True, help="where the copy<TAB>source<TAB>rate TSV goes")
    args = parser.parse_args()
    fresh = (text for block in synth().sentences(random.Random(SEED + 1), dup=False) for text in block)
    rng = random.Random(SEED)
    recent = []
    out = sys.stdout
    with open(args.truth, "w", encoding="utf-8") as truth:
        for n in range(args.count):
            if recent and rng.random() < PLANT:
                source, text = recent[rng.randrange(len(recent))]
                rate = rng.choice(RATES)
                truth.write(f"s{n}\ts{source}\t{rate}\n")
                out.write(json.dumps({"id": f"s{n}", "text": edit(rng, text, rate)}) + "\n")
                continue
            text = next(fresh)
            if len(recent) < WINDOW:
                recent.append((n, text))
            else:
                recent[rng.randrange(WINDOW)] = (n, text)
            out.write(json.dumps({"id": f"s{n}", "text": text}) + "\n")

if __name__ == "__main__":
    main()
