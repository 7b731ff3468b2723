#!/usr/bin/env python3
"""Streams a deterministic synthetic corpus in which every document has a passage of reuse, as
JSON Lines, for measuring what `textreuse reuse` keeps per document with a passage (the rows
of `documents.tsv`, the corpus view's articles).

    python3 benches/scripts/synth_pairs.py 1000000 > /tmp/pairs1m.jsonl

Documents come in pairs: `{"id": "p<n>", "title": "Doc <n>", "text": ...}`, where documents 2k
and 2k + 1 share three sentences (about 60 words) between two sentences of their own. Words are
drawn from a fixed vocabulary of 200,000 made-up words with Zipf-like frequencies (enough rare
words that tf-idf finds each pair) (seeded: the
same bytes every run). Standard library only.
"""

import itertools
import json
import random
import sys


def vocabulary(rng, n=200_000):
    syllables = [c + v for c in "bcdfghjklmnprstvwz" for v in "aeiou"]
    words = set()
    while len(words) < n:
        words.add("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def main():
    n = int(sys.argv[1])
    rng = random.Random(4620)
    words = vocabulary(rng)
    cumulative = list(itertools.accumulate(1.0 / (i + 1) for i in range(len(words))))

    def sentence():
        w = rng.choices(words, cum_weights=cumulative, k=rng.randint(16, 24))
        return " ".join(w).capitalize() + "."

    out = sys.stdout
    for k in range((n + 1) // 2):
        shared = " ".join(sentence() for _ in range(3))
        for doc in (2 * k, 2 * k + 1):
            if doc >= n:
                break
            text = f"{sentence()} {shared} {sentence()}"
            out.write(json.dumps({"id": f"p{doc}", "title": f"Doc {doc}", "text": text}) + "\n")


if __name__ == "__main__":
    main()
