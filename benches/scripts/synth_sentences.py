#!/usr/bin/env python3
"""Streams a deterministic synthetic corpus of sentences (or queries against it) as JSON Lines,
for comparing persistent LSH indexes (`textreuse index`, datasketch, rensa; see
index_peers.py).

Each line is `{"id": "s<n>", "text": "..."}` (n = 0, 1, 2, ... the line number), one sentence per
line: words drawn from a fixed vocabulary of 4,000 words (50 English function words and
made-up words of one to three syllables, 2 to 10 letters, with Zipf-like frequencies), the first
word capitalized, ending with a period, 100..250 characters long. That is 89..239 shingles of 12
characters, inside textreuse's sentence filter (75..=600 shingles: 86..611 characters once
lowercased and with whitespace collapsed, which changes nothing here). Only ASCII letters,
spaces and the period occur, so the JSON needs no escaping.

It needs only the Python standard library (any python3 >= 3.8, e.g. the system one; the
peers' virtualenv of index_peers.py works as well):

    python3 benches/scripts/synth_sentences.py 1000000 > /tmp/sent1m.jsonl
    python3 benches/scripts/synth_sentences.py 1000000 /tmp/sent1m.jsonl          # same bytes
    python3 benches/scripts/synth_sentences.py 1000000 --queries 10000 > /tmp/q10k.jsonl
    python3 benches/scripts/synth_sentences.py 1000000 --queries 10000 --truth /tmp/q10k.tsv \
        /tmp/q10k.jsonl                                         # also the near-duplicate targets

Corpus: of every line, with probability 0.02 it is an exact copy of one of the previous 10,000
lines, with probability 0.10 a near-duplicate of one of them (1 to 3 words replaced by random
vocabulary words; a replaced word changes about 12 + its length shingles, so one replacement
leaves a Jaccard similarity of about 0.8 and three about 0.5), and otherwise a fresh random
sentence. Memory is flat (the window of 10,000 recent sentences) at any N, up to 10^8 lines.

With `--per-doc K` the same N sentences are written K to a line, as documents
`{"id": "d<n>", "text": "<sentence> <sentence> ..."}` (for indexes whose units are sentences
of larger documents; the 100M-entry measurement of docs/index.md uses K = 10).

The stream is prefix-stable: the first n lines are the same bytes for every N >= n (lines are
drawn in blocks of 1,024 whatever N is, and a last partial block is cut, not drawn shorter).

Queries (`--queries K`): K lines `{"id": "q<j>", "text": "..."}` from a second random stream
(its own seed). About half of them (each with probability 0.5) are near-duplicates of a corpus
line: a line index i uniform in 0..N-1 is picked, the corpus is regenerated with the corpus
seed up to the largest picked index (prefix-stable, so it is line i of the corpus written with
this N, or any larger N), and 1 to 3 of its words are replaced as above. The other queries are
fresh random sentences, which match nothing except by chance. Regeneration costs the time of
writing the corpus up to max(i) (about N/rate seconds) and memory for K sentences. With
`--truth PATH`, a TSV `query_id<TAB>corpus_id` of the near-duplicate queries is written too
(the JSONL itself keeps only id and text).

Speed (pure Python 3.11, one core of the 2-core development box, measured while other jobs
were running): 1,000,000 corpus lines (201 MB) in 2.9 to 3.2 s wall including start-up, about
330,000 lines/s, with a peak RSS of 20 MB; so 10^8 lines take about 5 minutes and 20 GB of
disk. `--queries 10000` against N = 10^6 takes about 2.6 s (mostly regenerating the corpus
prefix). Measured on those 10,000 queries: the near-duplicate queries have a shingle Jaccard
similarity to their source line of median 0.69 (10 % quantile 0.52, 90 % quantile 0.84), and
22 % of them reach 0.8.
"""
import argparse
import random
import sys

CORPUS_SEED = 20260517
QUERY_SEED = 77031
VOCAB_SEED = 4242
WINDOW = 10_000
BLOCK = 1024
MIN_CHARS = 100
MAX_CHARS = 250
P_EXACT = 0.02
P_NEAR = 0.10  # on top of P_EXACT: near-duplicate when P_EXACT <= r < P_EXACT + P_NEAR

FUNCTION_WORDS = (
    "the of and to in a is that for it as was with be by on not he this are or his from at "
    "which but have an they one you were her all she there would their we him been has when who "
    "will more no if out so"
).split()


def vocabulary():
    """The fixed vocabulary (same for every seed) and a Zipf-like sampling population: a list in
    which word rank r appears about 400 / (r + 8) times (at least once)."""
    rng = random.Random(VOCAB_SEED)
    onsets = "b c d f g h j k l m n p r s t v w y z br cl dr fl gr pl st tr ch sh th wh".split()
    vowels = "a e i o u a e i o ea ou ai io".split()
    codas = ["", "", "", "n", "r", "s", "t", "l", "m", "nd", "st", "rt", "ng", "ck"]
    seen = set(FUNCTION_WORDS)
    words = list(FUNCTION_WORDS)
    while len(words) < 4000:
        w = "".join(
            rng.choice(onsets) + rng.choice(vowels) + rng.choice(codas)
            for _ in range(rng.choice((1, 2, 2, 2, 3)))
        )
        if 2 <= len(w) <= 10 and w not in seen:
            seen.add(w)
            words.append(w)
    population = []
    for rank, w in enumerate(words):
        population.extend([w] * max(1, 400 // (rank + 8)))
    return words, population


WORDS, POPULATION = vocabulary()


def fit(words, rng):
    """Makes the rendered sentence of `words` 100..250 characters long (in place) and renders
    it."""
    s = " ".join(words)
    while len(s) < MIN_CHARS - 1:
        words.append(rng.choice(POPULATION))
        s = " ".join(words)
    while len(s) > MAX_CHARS - 1:
        words.pop()
        s = " ".join(words)
    return s[0].upper() + s[1:] + "."


def mutate(words, rng):
    """A copy of `words` with 1 to 3 words (positions may repeat) replaced by random vocabulary
    words."""
    words = list(words)
    for _ in range(1 + int(rng.random() * 3)):
        words[int(rng.random() * len(words))] = WORDS[int(rng.random() * len(WORDS))]
    return words


def sentences(rng, dup=True):
    """Yields blocks (lists) of BLOCK sentences, forever. Each sentence is its word list (in the
    window) rendered as text. With dup=False, only fresh sentences."""
    choices = rng.choices
    random_ = rng.random
    window = []  # the last WINDOW word lists, as a ring
    n = 0
    # 14..35 words of about 6.4 characters with a space: about 90..225 characters before fit().
    counts_population = list(range(16, 32))
    while True:
        counts = choices(counts_population, k=BLOCK)
        pool = choices(POPULATION, k=sum(counts))
        rs = [random_() for _ in range(BLOCK)] if dup else None
        out = []
        at = 0
        for i in range(BLOCK):
            c = counts[i]
            words = pool[at : at + c]
            at += c
            r = rs[i] if dup else 1.0
            if r < P_EXACT + P_NEAR and n:
                m = n if n < WINDOW else WINDOW
                src = window[(n - 1 - int(random_() * m)) % WINDOW]
                words = list(src) if r < P_EXACT else mutate(src, rng)
            s = " ".join(words)
            if len(s) < MIN_CHARS - 1 or len(s) > MAX_CHARS - 1:
                s = fit(words, rng)
            else:
                s = s[0].upper() + s[1:] + "."
            if dup:
                if n < WINDOW:
                    window.append(words)
                else:
                    window[n % WINDOW] = words
            out.append(s)
            n += 1
        yield out


def write_corpus(n_lines, out, per_doc=1):
    rng = random.Random(CORPUS_SEED)
    written = 0
    pending = []
    for block in sentences(rng):
        take = min(BLOCK, n_lines - written)
        if take <= 0:
            break
        if per_doc == 1:
            out.write(
                "".join(
                    f'{{"id": "s{written + i}", "text": "{block[i]}"}}\n' for i in range(take)
                )
            )
        else:
            pending.extend(block[:take])
            docs = len(pending) // per_doc
            first = (written + take - len(pending)) // per_doc
            out.write(
                "".join(
                    f'{{"id": "d{first + d}", "text": "'
                    + " ".join(pending[d * per_doc : (d + 1) * per_doc])
                    + '"}\n'
                    for d in range(docs)
                )
            )
            del pending[: docs * per_doc]
        written += take
    if pending:
        first = (written - len(pending)) // per_doc
        out.write(f'{{"id": "d{first}", "text": "' + " ".join(pending) + '"}\n')


def write_queries(n_lines, k, out, truth_path=None):
    qrng = random.Random(QUERY_SEED)
    near = [qrng.random() < 0.5 for _ in range(k)]
    targets = [int(qrng.random() * n_lines) for j in range(k) if near[j]]
    # Regenerate the corpus prefix and keep the picked lines' texts.
    wanted = {}
    for t in targets:
        wanted[t] = None
    if wanted:
        last = max(wanted)
        rng = random.Random(CORPUS_SEED)
        base = 0
        for block in sentences(rng):
            for t in [t for t in range(base, base + BLOCK) if t in wanted]:
                wanted[t] = block[t - base]
            base += BLOCK
            if base > last:
                break
    fresh = sentences(random.Random(QUERY_SEED + 1), dup=False)
    fresh_block, fresh_at = next(fresh), 0
    lines = []
    truth = []
    ti = 0
    for j in range(k):
        if near[j]:
            t = targets[ti]
            ti += 1
            text = wanted[t]
            words = text[:-1].lower().split(" ")
            s = fit(mutate(words, qrng), qrng)
            truth.append(f"q{j}\ts{t}\n")
        else:
            if fresh_at == BLOCK:
                fresh_block, fresh_at = next(fresh), 0
            s = fresh_block[fresh_at]
            fresh_at += 1
        lines.append(f'{{"id": "q{j}", "text": "{s}"}}\n')
        if len(lines) >= 4096:
            out.write("".join(lines))
            lines.clear()
    out.write("".join(lines))
    if truth_path:
        with open(truth_path, "w", encoding="utf-8") as f:
            f.writelines(truth)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("n", type=int, help="corpus lines N")
    ap.add_argument("output", nargs="?", help="output file (default stdout)")
    ap.add_argument("--queries", type=int, metavar="K", help="write K query lines instead")
    ap.add_argument("--truth", metavar="PATH", help="with --queries: TSV of near-duplicate targets")
    ap.add_argument(
        "--per-doc",
        type=int,
        default=1,
        metavar="K",
        help="corpus: K consecutive sentences per line, as one document with id d<n> (the same "
        "N sentences, N/K lines)",
    )
    args = ap.parse_intermixed_args()
    out = (
        open(args.output, "w", encoding="ascii", buffering=1 << 20)
        if args.output
        else sys.stdout
    )
    try:
        if args.queries is not None:
            write_queries(args.n, args.queries, out, args.truth)
        else:
            write_corpus(args.n, out, args.per_doc)
    except BrokenPipeError:
        sys.stderr.close()
    finally:
        if args.output:
            out.close()


if __name__ == "__main__":
    main()
