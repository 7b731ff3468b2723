#!/usr/bin/env python3
"""Builds an in-memory MinHash LSH index of a peer library (datasketch's MinHashLSH or rensa's
RMinHashLSH) over a JSON Lines corpus, queries it, and prints one JSON object of measurements:
the peers `textreuse index` is compared with. The `textreuse` peer is textreuse's own Python
index (`textreuse.LSHIndex`) measured the same way.

Setup (a virtualenv outside the repository; versions measured with):

    python3 -m venv /work/venv-peers
    /work/venv-peers/bin/pip install datasketch==2.0.0 rensa==0.5.0 numpy==2.4.6
    # (datasketch pulls scipy, 1.17.1 here)

The textreuse peer needs the `textreuse` wheel (python/; `python/run-tests.sh`
installs it into `$CARGO_TARGET_DIR/python-venv`, whose python runs this script as well).

Run (corpus and queries from synth_sentences.py, one peer per process so that peak RSS is the
peer's own):

    python3 benches/scripts/synth_sentences.py 1000000 /tmp/sent1m.jsonl
    python3 benches/scripts/synth_sentences.py 1000000 --queries 10000 \\
        --truth /tmp/q10k.tsv /tmp/q10k.jsonl
    /work/venv-peers/bin/python benches/scripts/index_peers.py \\
        /tmp/sent1m.jsonl /tmp/q10k.jsonl datasketch --truth /tmp/q10k.tsv
    /work/venv-peers/bin/python benches/scripts/index_peers.py \\
        /tmp/sent1m.jsonl /tmp/q10k.jsonl rensa --truth /tmp/q10k.tsv
    $CARGO_TARGET_DIR/python-venv/bin/python benches/scripts/index_peers.py \\
        /tmp/sent1m.jsonl /tmp/q10k.jsonl textreuse --truth /tmp/q10k.tsv

Items are made the way textreuse makes them: the text lowercased, runs of whitespace collapsed
to one space and trimmed (`" ".join(text.lower().split())`), shingles = the set of all
12-character substrings (character windows; a text shorter than 12 characters has none and is
skipped, as textreuse skips it). Shingles are given to datasketch as UTF-8 bytes (its default
SHA-1 hash function takes bytes) and to rensa as str (its documented token type). Keys are the
0-based line numbers of the corpus (rensa keys must be integers; datasketch gets the same keys
for a fair comparison); synth_sentences.py ids are `s<line number>`.

Parameters: `--num-perm` (default 128, what users of both libraries use) and `--threshold`
(default 0.8).
* datasketch: `MinHashLSH(threshold=t, num_perm=n)` chooses (bands, rows) itself by minimizing
  the false positive plus false negative area of the S-curve; for t = 0.8, n = 128 that is
  9 bands of 13 rows (117 of the 128 values used; P(candidate) at Jaccard 0.8 = 0.40, half point
  at Jaccard 0.82).
* rensa: `RMinHashLSH(threshold, num_perm, num_bands)` takes the bands from the user (num_perm
  must be divisible by them; the threshold only serves `is_similar`, a query returns every key
  sharing a band). The bands are chosen here by the same objective as datasketch's, over the
  divisors of num_perm: for t = 0.8, n = 128 that is 8 bands of 16 rows (P(candidate) at
  Jaccard 0.8 = 0.20, half point 0.86), which is also what rensa's own benchmark uses at
  threshold 0.8. 16 bands of 8 would give 0.95 at 0.8 and a half point at 0.67.
* textreuse: `LSHIndex(threshold=t, num_perm=n)`: one document per key (unit "document"), the
  band rows K and bands M chosen by textreuse's tuner (`textreuse tune`, the exact S-curve of
  the default "drawn" scheme, whose M bands of K rows are drawn from the n functions; K*M may
  exceed n). Texts go to the index as they are: it normalizes, shingles (12 characters, hashed
  by its own 64-bit fingerprint) and signs them itself, so there is no Python shingling.
  `--no-text` creates it with `store_text=False` (the peers keep no texts; textreuse keeps them
  by default, for verified queries).
* `--params B,R` fixes both: datasketch `MinHashLSH(num_perm=n, params=(B, R))` (B*R <= n),
  rensa `num_bands=B` (needs n == B*R), textreuse `LSHIndex(scheme="disjoint", bands=B,
  rows=R)` (classic banding over N = B*R functions, whatever n is: the same S-curve
  1 - (1 - J^R)^B as the peers). textreuse's defaults (N = 20 hash functions, M = 10
  bands of K = 10 rows drawn from the 20) have the nominal S-curve 1 - (1 - J^10)^10 of 10
  independent bands of 10 rows: `--num-perm 100 --params 10,10` gives both peers that curve
  (with 100 hash evaluations per shingle instead of 20; textreuse's bands share their 20 values,
  which the peers cannot express).

What is timed:
* build: from reading the corpus to the last insert (reading JSON, normalizing, shingling,
  MinHash, insert), with the peer's bulk API: datasketch `MinHash.generator` style (a template
  MinHash `copy()`-ed and `update_batch`-ed per text, as `MinHash.bulk` does) and an
  `insertion_session`; rensa `RMinHash.digest_matrix_from_token_sets` over chunks of 1,000 texts
  and `RMinHashLSH.insert_matrix`; textreuse `LSHIndex.insert_batch(keys, texts)` over the same
  chunks (it signs each chunk on all cores: build_cpu_seconds shows it). `--single` inserts one
  item at a time instead (datasketch `lsh.insert`, rensa `RMinHash(...).update(...)` and
  `lsh.insert`, textreuse `index.insert(key, text)`). Index construction (datasketch's
  parameter search) is timed separately as construct_seconds. build_prep_seconds is the part of
  build spent reading JSON, normalizing and shingling in Python (the same code for both peers;
  build_seconds - build_prep_seconds is the peer's MinHash and insert work; for textreuse it is
  reading JSON only).
* textreuse only: commit_seconds, the `commit()` after the build that writes the index to disk
  (in a temporary directory; the peers have nothing like it). Queries run after it, on the
  committed, memory-mapped index.
  build_cpu_seconds > build_seconds would mean the peer used more than one thread.
* single-query latency: each query text on its own, text -> normalize -> shingles -> MinHash ->
  `query`, timed together; p50 and p99 in ms. The first 100 queries are run once untimed first
  (warm-up).
* batch query: all query texts at once, text -> candidate lists: datasketch has no batch query,
  so `MinHash.bulk` and a loop of `query`; rensa `RMinHash.from_token_sets` and
  `RMinHashLSH.query_all`; textreuse `LSHIndex.query_batch(texts)` (signs on all cores).
* queries_with_candidates: queries with at least one candidate key (from the batch query; the
  single queries must agree). With `--truth` (the TSV of `synth_sentences.py --queries
  --truth`), truth_recall is the fraction of near-duplicate queries whose source line is among
  their candidates.
* peak RSS: `resource.getrusage(RUSAGE_SELF).ru_maxrss` (KiB on Linux) in bytes, after build and
  at the end; rss_before_build_bytes is VmRSS after the imports and the index's construction (the
  interpreter and libraries, about 18 MB for rensa and 60 MB for datasketch with numpy and scipy),
  and also includes the query texts (small).

Persistence: not measured for the peers. datasketch's persistent storage (`storage_config`)
needs a Redis or Cassandra server, which this machine does not have (and pickling an in-memory
MinHashLSH is not what its documentation offers as persistence); rensa has no persistent LSH
storage. Both peers are measured in memory only; textreuse's index is on disk by design (its
uncommitted batch in memory until commit_seconds).

The corpus is streamed (only the index and one chunk of texts are in memory).
"""
import argparse
import json
import resource
import sys
import time
from importlib.metadata import version

SHINGLE = 12
CHUNK = 1_000  # texts per bulk call: their shingle lists (~11 MB) are the only transient memory
WARMUP = 100


def normalize(text):
    return " ".join(text.lower().split())


def shingles(text):
    t = normalize(text)
    return list({t[i : i + SHINGLE] for i in range(len(t) - SHINGLE + 1)})


def read_jsonl(path):
    with open(path, encoding="utf-8") as f:
        for line in f:
            if line.strip():
                d = json.loads(line)
                yield d["id"], d["text"]


def chunks(it, size):
    chunk = []
    for x in it:
        chunk.append(x)
        if len(chunk) == size:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def vm_rss():
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def max_rss():
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024


def cpu_seconds():
    r = resource.getrusage(resource.RUSAGE_SELF)
    return r.ru_utime + r.ru_stime


def s_curve_error(threshold, b, r, steps=2000):
    """datasketch's objective: 0.5 * false positive area below the threshold plus 0.5 * false
    negative area above it (midpoint rule)."""
    p = lambda s: 1 - (1 - s**r) ** b
    fp = sum(p(threshold * (i + 0.5) / steps) for i in range(steps)) * threshold / steps
    w = 1 - threshold
    fn = sum(1 - p(threshold + w * (i + 0.5) / steps) for i in range(steps)) * w / steps
    return 0.5 * fp + 0.5 * fn


def divisor_bands(threshold, num_perm):
    """The bands b (a divisor of num_perm, at least 2, rows num_perm / b) minimizing
    s_curve_error."""
    best = None
    for b in range(2, num_perm + 1):
        if num_perm % b == 0:
            e = s_curve_error(threshold, b, num_perm // b)
            if best is None or e < best[0]:
                best = (e, b)
    return best[1]


class Datasketch:
    name = "datasketch"

    def __init__(self, args):
        from datasketch import MinHash, MinHashLSH

        self.MinHash = MinHash
        if args.params:
            self.lsh = MinHashLSH(num_perm=args.num_perm, params=args.params)
        else:
            self.lsh = MinHashLSH(threshold=args.threshold, num_perm=args.num_perm)
        self.bands, self.rows = self.lsh.b, self.lsh.r
        self.num_perm = args.num_perm
        self.template = MinHash(num_perm=args.num_perm)

    def _minhash(self, sh):
        m = self.template.copy()
        m.update_batch([s.encode("utf-8") for s in sh])
        return m

    def build(self, entries, single):
        """entries: iterable of (key, shingle list). Returns the count inserted."""
        n = 0
        if single:
            for key, sh in entries:
                self.lsh.insert(key, self._minhash(sh))
                n += 1
        else:
            with self.lsh.insertion_session() as session:
                for key, sh in entries:
                    session.insert(key, self._minhash(sh))
                    n += 1
        return n

    def query_one(self, text):
        return self.lsh.query(self._minhash(shingles(text)))

    def query_batch(self, texts):
        ms = self.MinHash.bulk(
            [[s.encode("utf-8") for s in shingles(t)] for t in texts], num_perm=self.num_perm
        )
        q = self.lsh.query
        return [q(m) for m in ms]


class Rensa:
    name = "rensa"
    SEED = 42  # the seed of rensa's README examples

    def __init__(self, args):
        from rensa import RMinHash, RMinHashLSH

        self.RMinHash = RMinHash
        n = args.num_perm
        if args.params:
            b, r = args.params
            if b * r != n:
                sys.exit(f"rensa: --params {b},{r} needs --num-perm {b * r} (bands * rows)")
        else:
            b = divisor_bands(args.threshold, n)
        self.lsh = RMinHashLSH(threshold=args.threshold, num_perm=n, num_bands=b)
        self.bands, self.rows = b, n // b
        self.num_perm = n

    def _minhash(self, sh):
        m = self.RMinHash(num_perm=self.num_perm, seed=self.SEED)
        m.update(sh)
        return m

    def build(self, entries, single):
        n = 0
        if single:
            for key, sh in entries:
                self.lsh.insert(key, self._minhash(sh))
                n += 1
        else:
            for chunk in chunks(entries, CHUNK):
                matrix = self.RMinHash.digest_matrix_from_token_sets(
                    [sh for _, sh in chunk], self.num_perm, self.SEED
                )
                # Keys are assigned start_key + row; chunk keys are consecutive line numbers
                # unless a text was skipped, so insert a skipping chunk row by row.
                first = chunk[0][0]
                if chunk[-1][0] - first == len(chunk) - 1:
                    self.lsh.insert_matrix(matrix, start_key=first)
                else:
                    for key, sh in chunk:
                        self.lsh.insert(key, self._minhash(sh))
                n += len(chunk)
        return n

    def query_one(self, text):
        return self.lsh.query(self._minhash(shingles(text)))

    def query_batch(self, texts):
        ms = self.RMinHash.from_token_sets(
            [shingles(t) for t in texts], num_perm=self.num_perm, seed=self.SEED
        )
        return self.lsh.query_all(ms)


class Textreuse:
    name = "textreuse"
    signs_text = True  # build entries are (key, text): the index normalizes and shingles

    def __init__(self, args):
        import textreuse

        options = {"store_text": not args.no_text}
        if args.params:
            b, r = args.params
            self.index = textreuse.LSHIndex(scheme="disjoint", bands=b, rows=r, **options)
        else:
            self.index = textreuse.LSHIndex(
                threshold=args.threshold, num_perm=args.num_perm, **options
            )
        p = self.index.params
        self.bands, self.rows, self.num_perm = p["bands"], p["rows"], p["hashes"]
        self.skipped = 0

    def build(self, entries, single):
        """entries: iterable of (key, text). Returns the count indexed (texts too short to
        sign are recorded by the index but not indexed; they count as skipped)."""
        n = total = 0
        if single:
            for key, text in entries:
                n += self.index.insert(key, text)
                total += 1
        else:
            for chunk in chunks(entries, CHUNK):
                n += self.index.insert_batch([k for k, _ in chunk], [t for _, t in chunk])
                total += len(chunk)
        self.skipped = total - n
        return n

    def commit(self):
        self.index.commit()

    def query_one(self, text):
        return self.index.query(text)

    def query_batch(self, texts):
        return self.index.query_batch(texts)


PEERS = {"datasketch": Datasketch, "rensa": Rensa, "textreuse": Textreuse}


def percentile(sorted_values, q):
    if not sorted_values:
        return None
    i = min(len(sorted_values) - 1, max(0, round(q * (len(sorted_values) - 1))))
    return sorted_values[i]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("corpus", help="corpus JSON Lines ({\"id\", \"text\"} per line)")
    ap.add_argument("queries", help="query JSON Lines")
    ap.add_argument("peer", choices=sorted(PEERS))
    ap.add_argument("--num-perm", type=int, default=128)
    ap.add_argument("--threshold", type=float, default=0.8)
    ap.add_argument(
        "--params",
        type=lambda s: tuple(int(x) for x in s.split(",")),
        metavar="B,R",
        help="bands and rows instead of the threshold's choice",
    )
    ap.add_argument("--single", action="store_true", help="build with one insert per entry")
    ap.add_argument(
        "--no-text", action="store_true", help="textreuse: an index without texts (store_text=False)"
    )
    ap.add_argument("--truth", metavar="TSV", help="query_id<TAB>corpus_id of near-duplicates")
    ap.add_argument("--max-queries", type=int, help="use only the first K queries")
    args = ap.parse_args()

    queries = [t for _, t in read_jsonl(args.queries)]
    query_ids = [i for i, _ in read_jsonl(args.queries)]
    if args.max_queries is not None:
        queries, query_ids = queries[: args.max_queries], query_ids[: args.max_queries]
    truth = {}
    if args.truth:
        with open(args.truth, encoding="utf-8") as f:
            for line in f:
                q, c = line.split()
                truth[q] = c
    wanted_corpus_ids = set(truth.values())
    corpus_line = {}  # corpus id -> line number (key), for the truth ids only

    t0 = time.perf_counter()
    peer = PEERS[args.peer](args)
    construct = time.perf_counter() - t0
    rss_before = vm_rss()

    skipped = 0
    prep = 0.0  # seconds spent reading, normalizing and shingling (Python, the same for both)

    def entries():
        nonlocal skipped, prep
        clock = time.perf_counter
        t = clock()
        for line_no, (cid, text) in enumerate(read_jsonl(args.corpus)):
            if cid in wanted_corpus_ids:
                corpus_line[cid] = line_no
            if getattr(peer, "signs_text", False):
                prep += clock() - t
                yield line_no, text
                t = clock()
                continue
            sh = shingles(text)
            if not sh:
                skipped += 1
                continue
            u = clock()
            prep += u - t
            yield line_no, sh
            t = clock()
        prep += clock() - t

    cpu0 = cpu_seconds()
    t0 = time.perf_counter()
    n = peer.build(entries(), args.single)
    build = time.perf_counter() - t0
    build_cpu = cpu_seconds() - cpu0
    rss_after_build = max_rss()
    skipped += getattr(peer, "skipped", 0)
    commit = None
    if hasattr(peer, "commit"):
        t0 = time.perf_counter()
        peer.commit()
        commit = time.perf_counter() - t0

    # Single queries.
    for text in queries[:WARMUP]:
        peer.query_one(text)
    latencies = []
    single_hits = 0
    for text in queries:
        t0 = time.perf_counter()
        c = peer.query_one(text)
        latencies.append(time.perf_counter() - t0)
        single_hits += bool(len(c))
    latencies.sort()

    # Batch query.
    t0 = time.perf_counter()
    results = peer.query_batch(queries)
    batch = time.perf_counter() - t0
    hits = sum(1 for c in results if len(c))
    candidates = sum(len(c) for c in results)

    report = {
        "peer": peer.name,
        "version": version(peer.name),
        "corpus": args.corpus,
        "num_perm": peer.num_perm,
        "threshold": args.threshold,
        "bands": peer.bands,
        "rows": peer.rows,
        "build_api": "single" if args.single else "bulk",
        "entries": n,
        "skipped_short": skipped,
        "construct_seconds": round(construct, 4),
        "build_seconds": round(build, 3),
        "build_cpu_seconds": round(build_cpu, 3),
        "build_prep_seconds": round(prep, 3),
        "build_rate": round(n / build, 1) if build else None,
        "commit_seconds": round(commit, 3) if commit is not None else None,
        "rss_before_build_bytes": rss_before,
        "peak_rss_after_build_bytes": rss_after_build,
        "peak_rss_bytes": max_rss(),
        "queries": len(queries),
        "query_p50_ms": round(percentile(latencies, 0.50) * 1e3, 4) if latencies else None,
        "query_p99_ms": round(percentile(latencies, 0.99) * 1e3, 4) if latencies else None,
        "batch_query_seconds": round(batch, 4),
        "batch_qps": round(len(queries) / batch, 1) if batch else None,
        "queries_with_candidates": hits,
        "single_queries_with_candidates": single_hits,
        "mean_candidates": round(candidates / len(queries), 3) if queries else None,
    }
    if truth:
        by_id = dict(zip(query_ids, results))
        found = total = 0
        for q, c in truth.items():
            if q in by_id and c in corpus_line:
                total += 1
                found += corpus_line[c] in set(by_id[q])
        report["truth_queries"] = total
        report["truth_recall"] = round(found / total, 4) if total else None
    if hits != single_hits:
        print(
            f"warning: batch and single queries disagree ({hits} vs {single_hits} with candidates)",
            file=sys.stderr,
        )
    print(json.dumps(report))


if __name__ == "__main__":
    main()
