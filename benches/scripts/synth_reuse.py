#!/usr/bin/env python3
"""Makes a large, deterministic corpus of documents for measuring `textreuse reuse` rates, as
JSON Lines: made-up words with Wikipedia-like statistics and planted reused paragraphs.

    python3 benches/scripts/synth_reuse.py 100000 /tmp/reuse100k.jsonl

Words come from a vocabulary of 1,000,000 made-up words with Zipf frequencies (exponent 1.0,
as word frequencies in English text); each document has 30 topic words of middling frequency
that make up a fifth of its words, so documents differ in their heavy terms as articles do.
A document has 3 to 15 paragraphs of 40 to 140 words (about 4 KB of text). 5 % of the
documents reuse a paragraph of an earlier document, half of them verbatim and half with 10 %
of the words replaced; the truth (`reuser<TAB>source`) is written beside the output as
`OUT.truth.tsv`. Needs numpy.
"""
import json
import sys

import numpy as np

SYLLABLES = [a + b for a in "bcdfghjklmnprstvz" for b in "aeiou"]


def vocabulary(n, rng):
    """`n` distinct made-up words of 2 to 5 syllables."""
    words, seen = [], set()
    while len(words) < n:
        parts = rng.integers(0, len(SYLLABLES), size=(n, 5))
        lengths = rng.integers(2, 6, size=n)
        for row, k in zip(parts, lengths):
            w = "".join(SYLLABLES[i] for i in row[:k])
            if w not in seen:
                seen.add(w)
                words.append(w)
                if len(words) == n:
                    break
    return np.array(words, dtype=object)


def main():
    count, out_path = int(sys.argv[1]), sys.argv[2]
    rng = np.random.default_rng(20261124)
    vocab = vocabulary(1_000_000, rng)
    ranks = np.arange(1, len(vocab) + 1, dtype=np.float64)
    cdf = np.cumsum(1.0 / ranks)
    cdf /= cdf[-1]
    paragraphs = []  # (document, paragraph text) of earlier documents, a sample to reuse from
    with open(out_path, "w", encoding="utf-8") as out, open(
        out_path + ".truth.tsv", "w", encoding="utf-8"
    ) as truth:
        for doc in range(count):
            topic = vocab[rng.integers(1_000, 200_000, size=30)]
            paras = []
            for _ in range(rng.integers(3, 16)):
                n = int(rng.integers(40, 141))
                words = vocab[np.searchsorted(cdf, rng.random(n))]
                mask = rng.random(n) < 0.2
                words[mask] = topic[rng.integers(0, 30, size=int(mask.sum()))]
                paras.append(" ".join(words) + ".")
            if paragraphs and rng.random() < 0.05:
                source, text = paragraphs[int(rng.integers(0, len(paragraphs)))]
                if rng.random() < 0.5:
                    words = text.split(" ")
                    for i in rng.integers(0, len(words), size=len(words) // 10):
                        words[i] = vocab[int(np.searchsorted(cdf, rng.random()))]
                    text = " ".join(words)
                paras.insert(int(rng.integers(0, len(paras) + 1)), text)
                truth.write(f"{doc}\t{source}\n")
            if len(paragraphs) < 100_000:
                paragraphs.append((doc, paras[int(rng.integers(0, len(paras)))]))
            else:
                paragraphs[int(rng.integers(0, len(paragraphs)))] = (doc, paras[0])
            record = {"id": doc, "title": f"Synthetic {doc}", "text": "\n\n".join(paras)}
            out.write(json.dumps(record) + "\n")


if __name__ == "__main__":
    main()
