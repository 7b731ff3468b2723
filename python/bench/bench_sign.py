"""Throughput of MinHash signing from Python: textreuse next to rensa and gaoya.

    python python/bench/bench_sign.py [--sentences FILE.jsonl] [--repeat 5]

Input: real sentences, one JSON object with a "text" field per line, by default the output of
`textreuse sentences` over the bundled sample dumps ($TEXTREUSE_BIN, else `textreuse` on PATH).
Each case runs --repeat times over all sentences; the best run is reported in sentences per
second of process CPU time (the machine is shared, so wall time is noisier) and wall time.
Everything runs on one thread (RAYON_NUM_THREADS=1 for gaoya's parallel bulk insert).

What each case computes, per sentence:
- textreuse: lowercase + collapse whitespace, 12-character shingles hashed to 64 bits, N
  minhashes of 60 bits (multiply-add-shift); band_key_records adds the M band keys.
- rensa RMinHash: N 32-bit minhashes of the given tokens (its own token hash and permutation
  scheme). Tokens are the 12-character shingles of the lowercased text, cut in Python (as a rensa
  user must), or prepared beforehand ("signing only"), or our 64-bit shingle fingerprints passed
  as one flat buffer (digest_matrix_from_flat_token_hashes).
- gaoya MinHashStringIndex: lowercase, 12-character n-grams (its Rust analyzer), num_bands *
  band_size minhashes of 64 bits (classic disjoint banding, so N = K * M), and the insert of the
  signature's band keys into its in-memory LSH index (more work than signing alone).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable

os.environ.setdefault("RAYON_NUM_THREADS", "1")  # before gaoya's rayon pool starts

import pyarrow as pa  # noqa: E402

import textreuse  # noqa: E402
from textreuse import Signer, kernels  # noqa: E402


def load_sentences(path: str | None) -> list[str]:
    if path:
        with open(path, encoding="utf-8") as f:
            return [json.loads(line)["text"] for line in f]
    exe = os.environ.get("TEXTREUSE_BIN") or shutil.which("textreuse")
    if not exe:
        sys.exit("give --sentences FILE or set TEXTREUSE_BIN to the textreuse binary")
    out = subprocess.run([exe, "sentences", "--quiet"], check=True, capture_output=True, text=True).stdout
    return [json.loads(line)["text"] for line in out.splitlines()]


def measure(run: Callable[[], object], repeat: int) -> tuple[float, float]:
    """Best (CPU seconds, wall seconds) over `repeat` runs."""
    best_cpu = best_wall = float("inf")
    for _ in range(repeat):
        c0, w0 = time.process_time(), time.perf_counter()
        run()
        best_cpu = min(best_cpu, time.process_time() - c0)
        best_wall = min(best_wall, time.perf_counter() - w0)
    return best_cpu, best_wall


def py_shingles(text: str, n: int = 12) -> list[str]:
    t = " ".join(text.lower().split())
    return [t[i : i + n] for i in range(len(t) - n + 1)]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--sentences", help="JSON Lines with a 'text' field (default: textreuse sentences)")
    ap.add_argument("--repeat", type=int, default=5)
    args = ap.parse_args()

    texts = load_sentences(args.sentences)
    n = len(texts)
    chars = sum(len(t) for t in texts)
    arrow = pa.array(texts, pa.string())
    print(f"{n} sentences, {chars / n:.0f} chars on average; best of {args.repeat}; one thread")
    print(f"{'case':<72} {'sent/s (CPU)':>13} {'sent/s (wall)':>14}")

    def report(name: str, run: Callable[[], object]) -> None:
        cpu, wall = measure(run, args.repeat)
        print(f"{name:<72} {n / cpu:>13,.0f} {n / wall:>14,.0f}", flush=True)

    for hashes, rows, bands, scheme in ((20, 10, 10, "drawn"), (100, 10, 10, "disjoint")):
        s = Signer(hashes=hashes, rows=rows, bands=bands, scheme=scheme)
        tag = f"N={hashes}"
        report(f"textreuse Signer.sign_batch(list[str]) -> numpy rows, {tag}", lambda s=s: s.sign_batch(texts))
        report(f"textreuse Signer.sign_batch(pa.string) -> numpy rows, {tag}", lambda s=s: s.sign_batch(arrow))
        report(f"textreuse kernels.signatures(pa.string) -> Arrow, {tag}", lambda s=s: kernels.signatures(s, arrow))
        report(
            f"textreuse kernels.band_key_records (sign + {bands} band keys), {tag}",
            lambda s=s: kernels.band_key_records(s, arrow),
        )

    try:
        from rensa import RMinHash
    except ImportError:
        print("rensa not installed (pip install rensa)")
    else:
        token_sets = [py_shingles(t) for t in texts]
        fps = [textreuse.shingles(t) for t in texts]
        flat = pa.array([f for doc in fps for f in doc], pa.uint64()).to_numpy()
        offsets = pa.array([0] + [len(doc) for doc in fps], pa.uint64()).to_numpy().cumsum()
        for perm in (20, 100):
            report(
                f"rensa RMinHash, text -> Python shingles -> digest matrix, N={perm}",
                lambda p=perm: RMinHash.digest_matrix_from_token_sets(
                    [py_shingles(t) for t in texts], num_perm=p, seed=1
                ),
            )
            report(
                f"rensa RMinHash, prepared shingle lists (signing only), N={perm}",
                lambda p=perm: RMinHash.digest_matrix_from_token_sets(token_sets, num_perm=p, seed=1),
            )
            report(
                f"rensa RMinHash, flat 64-bit shingle hashes (signing only), N={perm}",
                lambda p=perm: RMinHash.digest_matrix_from_flat_token_hashes(flat, offsets, num_perm=p, seed=1),
            )

    try:
        from gaoya.minhash import MinHashStringIndex
    except ImportError:
        print("gaoya not installed (pip install gaoya)")
    else:
        ids = list(range(n))

        def index(bands: int, band_size: int) -> MinHashStringIndex:
            return MinHashStringIndex(
                hash_size=64,
                jaccard_threshold=0.8,
                num_bands=bands,
                band_size=band_size,
                analyzer="char",
                lowercase=True,
                ngram_range=(12, 12),
                id_container="vec",
            )

        for bands, band_size in ((2, 10), (10, 10)):
            tag = f"N={bands * band_size} ({bands} bands x {band_size})"

            def one_by_one(b=bands, k=band_size) -> None:
                idx = index(b, k)
                for i, t in zip(ids, texts):
                    idx.insert_document(i, t)

            report(f"gaoya MinHashStringIndex.insert_document per sentence, {tag}", one_by_one)
            report(
                f"gaoya MinHashStringIndex.par_bulk_insert_docs (1 thread), {tag}",
                lambda b=bands, k=band_size: index(b, k).par_bulk_insert_docs(ids, texts),
            )


if __name__ == "__main__":
    main()
