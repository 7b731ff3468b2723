"""Signing and LSH throughput from Python: textreuse against datasketch 2.0 and rensa 0.5,
side by side in one process, on the same texts, 128 permutations.

    python bench_compat.py ARTICLES.jsonl [--repeat 5] [--json out.json]

ARTICLES.jsonl is `textreuse extract` output (one article per line, `paragraphs[].text`), e.g.

    textreuse extract -q data/enwiki-sample-206.xml.bz2 data/enwiki-part-201.xml.bz2 > articles.jsonl

Two kinds of texts are cut from it: sentences (textreuse.sentences, 40 characters or more) and
2,000-character documents (consecutive text of an article). Every row measures the whole unit of
work a user has, text in and 128 hash values out, tokenization included (the peers tokenize in
Python: words from str.split(), UTF-8 encoded for datasketch's SHA-1 hash; textreuse.compat takes
the same tokens; the native Signer shingles the raw text itself into 12-character shingles).
Batch rows use each library's batch call (which may use every core: the CPU column says how much
CPU it took); per-item rows call the per-object API once per text. Rows are run in rounds (one
round runs every row once, in order), `--repeat` rounds, and the median wall and CPU seconds are
reported, with texts per second of wall time.
"""

from __future__ import annotations

import os

# numpy's OpenBLAS keeps spinning worker threads that take CPU from whatever runs beside them;
# no row here uses BLAS, so one BLAS thread for all of them (set before numpy is imported).
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import argparse
import importlib.metadata as md
import json
import platform
import statistics
import time

import numpy as np

import textreuse
from textreuse.compat import datasketch as ours
from textreuse.compat import rensa as ours_rensa

PERMS = 128


def load_texts(path: str, n_sentences: int, n_documents: int):
    sentences, documents = [], []
    with open(path, encoding="utf-8") as f:
        for line in f:
            article = json.loads(line)
            text = " ".join(p["text"] for p in article.get("paragraphs", []))
            for _, _, s in textreuse.sentences(text):
                if len(s) >= 40 and len(sentences) < n_sentences:
                    sentences.append(s)
            for start in range(0, len(text) - 2000 + 1, 2000):
                if len(documents) < n_documents:
                    documents.append(text[start : start + 2000])
    return sentences, documents


def timed(fn):
    w, c = time.perf_counter(), time.process_time()
    out = fn()
    return time.perf_counter() - w, time.process_time() - c, out


def signing_rows(texts):
    import datasketch
    import rensa

    native_oph = textreuse.Signer(scheme="oph", rows=8, bands=16)
    native_mas = textreuse.Signer(scheme="disjoint", rows=8, bands=16)
    assert native_oph.hashes == PERMS and native_mas.hashes == PERMS

    def ds_batch():
        return datasketch.MinHash.bulk(
            [[w.encode("utf8") for w in t.split()] for t in texts], num_perm=PERMS
        )

    def ds_item():
        out = []
        for t in texts:
            m = datasketch.MinHash(num_perm=PERMS)
            m.update_batch([w.encode("utf8") for w in t.split()])
            out.append(m)
        return out

    def rensa_batch():
        return rensa.RMinHash.digest_matrix_from_token_sets(
            [t.split() for t in texts], num_perm=PERMS, seed=42
        )

    def rensa_item():
        out = []
        for t in texts:
            m = rensa.RMinHash(num_perm=PERMS, seed=42)
            m.update(t.split())
            out.append(m.digest())
        return out

    def compat_batch():
        return ours.MinHash.bulk(
            [[w.encode("utf8") for w in t.split()] for t in texts], num_perm=PERMS
        )

    def compat_item():
        out = []
        for t in texts:
            m = ours.MinHash(num_perm=PERMS)
            m.update_batch([w.encode("utf8") for w in t.split()])
            out.append(m)
        return out

    def ours_rensa_batch():
        return ours_rensa.RMinHash.digest_matrix_from_token_sets(
            [t.split() for t in texts], num_perm=PERMS, seed=42
        )

    def ours_rensa_item():
        out = []
        for t in texts:
            m = ours_rensa.RMinHash(num_perm=PERMS, seed=42)
            m.update(t.split())
            out.append(m.digest())
        return out

    return [
        ("datasketch 2.0 MinHash.bulk", "batch", ds_batch),
        ("datasketch 2.0 MinHash.update_batch", "per item", ds_item),
        ("rensa 0.5 RMinHash.digest_matrix_from_token_sets", "batch", rensa_batch),
        ("rensa 0.5 RMinHash.update + digest", "per item", rensa_item),
        ("textreuse.compat.datasketch MinHash.bulk", "batch", compat_batch),
        ("textreuse.compat.datasketch MinHash.update_batch", "per item", compat_item),
        ("textreuse.compat.rensa RMinHash.digest_matrix_from_token_sets", "batch", ours_rensa_batch),
        ("textreuse.compat.rensa RMinHash.update + digest", "per item", ours_rensa_item),
        ("textreuse Signer(oph, 128 bins).sign_batch", "batch", lambda: native_oph.sign_batch(texts)),
        ("textreuse Signer(oph, 128 bins).sign", "per item", lambda: [native_oph.sign(t) for t in texts]),
        ("textreuse Signer(disjoint, 128 hashes).sign_batch", "batch", lambda: native_mas.sign_batch(texts)),
        ("textreuse Signer(disjoint, 128 hashes).sign", "per item", lambda: [native_mas.sign(t) for t in texts]),
    ]


def index_rows(texts):
    """Insert every text's signature, then query every one, threshold 0.8."""
    import datasketch
    import rensa

    tokens = [[w.encode("utf8") for w in t.split()] for t in texts]
    ds_sigs = datasketch.MinHash.bulk(tokens, num_perm=PERMS)
    our_sigs = ours.MinHash.bulk(tokens, num_perm=PERMS)
    rensa_sigs = []
    for t in texts:
        m = rensa.RMinHash(num_perm=PERMS, seed=42)
        m.update(t.split())
        rensa_sigs.append(m)

    def ds_index():
        lsh = datasketch.MinHashLSH(threshold=0.8, num_perm=PERMS)
        for i, m in enumerate(ds_sigs):
            lsh.insert(i, m)
        return sum(len(lsh.query(m)) for m in ds_sigs)

    def compat_index():
        lsh = ours.MinHashLSH(threshold=0.8, num_perm=PERMS)
        for i, m in enumerate(our_sigs):
            lsh.insert(i, m)
        return sum(len(lsh.query(m)) for m in our_sigs)

    def rensa_index():
        # rensa needs the band count; datasketch's choice for (0.8, 128) is 9 bands of 13 rows,
        # the closest rensa can take with bands dividing 128 is 8 bands of 16.
        lsh = rensa.RMinHashLSH(threshold=0.8, num_perm=PERMS, num_bands=8)
        for i, m in enumerate(rensa_sigs):
            lsh.insert(i, m)
        return sum(len(lsh.query(m)) for m in rensa_sigs)

    ours_rensa_sigs = []
    for t in texts:
        m = ours_rensa.RMinHash(num_perm=PERMS, seed=42)
        m.update(t.split())
        ours_rensa_sigs.append(m)

    def ours_rensa_index():
        lsh = ours_rensa.RMinHashLSH(threshold=0.8, num_perm=PERMS, num_bands=8)
        for i, m in enumerate(ours_rensa_sigs):
            lsh.insert(i, m)
        return sum(len(lsh.query(m)) for m in ours_rensa_sigs)

    def native_index():
        index = textreuse.LSHIndex(rows=8, bands=16, scheme="disjoint")
        index.insert_batch(list(range(len(texts))), texts)
        return sum(len(keys) for keys in index.query_batch(texts))

    return [
        ("datasketch 2.0 MinHashLSH insert + query", "per item", ds_index),
        ("rensa 0.5 RMinHashLSH insert + query", "per item", rensa_index),
        ("textreuse.compat.datasketch MinHashLSH insert + query", "per item", compat_index),
        ("textreuse.compat.rensa RMinHashLSH insert + query", "per item", ours_rensa_index),
        ("textreuse LSHIndex insert_batch + query_batch (texts, signs too)", "batch", native_index),
    ]


def run(kind, texts, rows, repeat):
    results = {name: [] for name, _, _ in rows}
    for _ in range(repeat):
        for name, _, fn in rows:
            wall, cpu, _ = timed(fn)
            results[name].append((wall, cpu))
    out = []
    for name, mode, _ in rows:
        wall = statistics.median(w for w, _ in results[name])
        cpu = statistics.median(c for _, c in results[name])
        out.append(
            {"texts": kind, "row": name, "mode": mode, "n": len(texts), "wall_s": wall,
             "cpu_s": cpu, "per_s": len(texts) / wall}
        )
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("articles")
    ap.add_argument("--sentences", type=int, default=20000)
    ap.add_argument("--documents", type=int, default=2000)
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--json")
    args = ap.parse_args()
    sentences, documents = load_texts(args.articles, args.sentences, args.documents)
    results = []
    for kind, texts in (("sentences", sentences), ("2000-char documents", documents)):
        results += run(kind, texts, signing_rows(texts), args.repeat)
        results += run(kind, texts, index_rows(texts), args.repeat)
    versions = {p: md.version(p) for p in ("textreuse", "datasketch", "rensa", "numpy")}
    print(f"# {platform.python_version()}, {os.cpu_count()} cores; " +
          ", ".join(f"{k} {v}" for k, v in versions.items()))
    print("| texts | what | mode | n | wall s | CPU s | texts/s |")
    print("|---|---|---|---|---|---|---|")
    for r in results:
        print(f"| {r['texts']} | {r['row']} | {r['mode']} | {r['n']} | {r['wall_s']:.3f} | "
              f"{r['cpu_s']:.3f} | {r['per_s']:,.0f} |")
    if args.json:
        with open(args.json, "w") as f:
            json.dump({"versions": versions, "results": results}, f, indent=1)


if __name__ == "__main__":
    main()
