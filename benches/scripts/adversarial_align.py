#!/usr/bin/env python3
"""Writes deterministic adversarial inputs for `textreuse align` / `check`: documents on which
an uncapped sentence alignment does work quadratic in their length (see align_caps.sh, which
measures them, and docs/performance.md "align", which records the table).

    python3 benches/scripts/adversarial_align.py vocab MB SEED > src.txt
    python3 benches/scripts/adversarial_align.py repeat MB > passage.txt
    python3 benches/scripts/adversarial_align.py copies MB > copies.txt

`vocab`: sentences of 8 to 15 words drawn uniformly from a vocabulary of 20 content words (no
stopwords), the first capitalized, ending with a period, about MB megabytes (10^6 bytes) of
them. Every term occurs in about half of all sentences, so every sentence shares terms with
every other and most sentence pairs pass the seed thresholds. Two documents with different
seeds make a source and a suspicious document.

`repeat`: a passage of about 2,000 characters (16 sentences of 12 to 16 words from a made-up
vocabulary of 400 words, seed fixed) repeated to about MB megabytes; aligned with itself, each
of its sentences matches every copy of itself on the other side.

`copies`: a passage of MB/90 megabytes, sentences of 12 to 16 random 4-to-9-letter words (so
almost every word occurs once in it), repeated 90 times. Each term then occurs in about 90
sentences, just under the aligner's postings cap (100), so nothing is left out: aligned with
itself, every sentence matches 90 copies of itself with cosine 1, and seeding visits 90
postings per word. This is the worst case for the caps rather than for the uncapped aligner.

Only the Python standard library is needed; output is ASCII, one paragraph per line.
"""
import random
import sys

VOCAB20 = (
    "river mountain forest village market harbour engine garden winter lantern "
    "copper silver meadow castle bridge thunder orchard canyon glacier desert"
).split()


def vocab_doc(size, seed):
    rng = random.Random(seed)
    out, n, line = [], 0, []
    while n < size:
        words = [rng.choice(VOCAB20) for _ in range(rng.randint(8, 15))]
        sentence = " ".join(words).capitalize() + "."
        line.append(sentence)
        n += len(sentence) + 1
        if len(line) == 10:
            out.append(" ".join(line))
            line = []
    if line:
        out.append(" ".join(line))
    return "\n".join(out) + "\n"


def made_up_word(rng):
    syllables = ["ka", "lo", "mi", "ter", "san", "po", "ru", "vel", "da", "nor", "ish", "ben"]
    return "".join(rng.choice(syllables) for _ in range(rng.randint(2, 4)))


def repeat_doc(size):
    rng = random.Random(2000)
    vocab = sorted({made_up_word(rng) for _ in range(600)})[:400]
    sentences = []
    for _ in range(16):
        words = [rng.choice(vocab) for _ in range(rng.randint(12, 16))]
        sentences.append(" ".join(words).capitalize() + ".")
    passage = " ".join(sentences)
    copies = max(1, size // (len(passage) + 1))
    return "\n".join([passage] * copies) + "\n"


def copies_doc(size, copies=90):
    rng = random.Random(90)
    letters = "abcdefghijklmnopqrstuvwxyz"
    sentences, n = [], 0
    while n < size // copies:
        words = [
            "".join(rng.choice(letters) for _ in range(rng.randint(4, 9)))
            for _ in range(rng.randint(12, 16))
        ]
        sentence = " ".join(words).capitalize() + "."
        sentences.append(sentence)
        n += len(sentence) + 1
    passage = "\n".join(" ".join(sentences[i : i + 10]) for i in range(0, len(sentences), 10))
    return "\n".join([passage] * copies) + "\n"


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("vocab", "repeat", "copies"):
        sys.exit(__doc__)
    size = int(float(sys.argv[2]) * 1_000_000)
    if sys.argv[1] == "vocab":
        seed = int(sys.argv[3]) if len(sys.argv) > 3 else 1
        sys.stdout.write(vocab_doc(size, seed))
    elif sys.argv[1] == "repeat":
        sys.stdout.write(repeat_doc(size))
    else:
        sys.stdout.write(copies_doc(size))


if __name__ == "__main__":
    main()
