"""``python -m textreuse.spark dedup SENTENCES... --out DIR``: the dedup pipeline on Spark;
``python -m textreuse.spark reuse DOCS... [--against OTHER...] --out DIR``: text reuse.

The parameters are those of ``textreuse dedup`` and ``textreuse reuse``. With ``spark-submit``, give this file as the
application (it imports the installed package absolutely)::

    spark-submit --master spark://host:7077 \
        "$(python -c 'import textreuse.spark.__main__ as m; print(m.__file__)')" \
        dedup sentences.jsonl --out out
"""

from __future__ import annotations

import argparse
import json
import signal
import sys
import time

from textreuse._native import DEFAULTS as _DEFAULTS
from textreuse.spark.dedup import KEEP_RULES, METHODS, UNITS, DedupParams, run_dedup
from textreuse.spark.reuse import ReuseParams, run_reuse


def _ngram_or_off(text: str) -> int | None:
    """``--fallback-ngram``: a size of at least 1, or ``off``."""
    if text == "off":
        return None
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r}: expected a number of at least 1, or off")
    return int(text)


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m textreuse.spark",
        description="The textreuse dedup pipeline on Apache Spark.",
    )
    sub = p.add_subparsers(dest="command", required=True)
    d = sub.add_parser(
        "dedup",
        help="clusters of near-duplicate sentences, paragraphs or documents",
        description=(
            "Reads sentence records written by `textreuse sentences --min-shingles 0 "
            "--max-shingles 0` (JSON Lines, or Parquet with the same columns), or with "
            "--documents the documents themselves, and writes clusters.jsonl, duplicates.jsonl, "
            "stats.json and article-pairs.tsv like `textreuse dedup`."
        ),
    )
    d.add_argument(
        "inputs", nargs="+", metavar="INPUT",
        help="sentence records (JSON Lines or Parquet), or documents with --documents",
    )
    d.add_argument("--out", default="textreuse-out", metavar="DIR")
    d.add_argument(
        "--input-stats", action="append", default=[], metavar="FILE",
        help="counts written by `textreuse sentences --stats FILE` (repeat per shard)",
    )
    defaults = DedupParams()
    d.add_argument(
        "--unit", choices=UNITS, default=defaults.unit,
        help="what is compared: sentences, paragraphs (non-blank lines) or whole documents; "
        "paragraphs and documents need --documents",
    )
    d.add_argument(
        "--threshold", type=float, default=None, metavar="T",
        help="the Jaccard similarity that counts as a duplicate: plans the cheapest scheme, K "
        "and M that find 99%% of pairs at T (unless -k/-m); with --verify, members below T "
        "leave duplicates.jsonl",
    )
    d.add_argument("--shingle", type=int, default=defaults.shingle, metavar="CHARS")
    d.add_argument(
        "--min-shingles", type=int, default=None, metavar="N",
        help=f"default {_DEFAULTS['min_shingles']} for sentences, "
        f"{_DEFAULTS['min_shingles_long_units']} for paragraphs and documents",
    )
    d.add_argument(
        "--max-shingles", type=int, default=None, metavar="N",
        help=f"0: no upper bound (default {_DEFAULTS['max_shingles']} for sentences, none "
        "otherwise)",
    )
    d.add_argument(
        "--hashes", type=int, default=None, metavar="N",
        help=f"N of drawn bands (default {_DEFAULTS['hashes']}); K*M for disjoint and oph",
    )
    d.add_argument("--bits", type=int, default=defaults.bits)
    d.add_argument(
        "-k", "--rows", type=int, default=None,
        help=f"default {_DEFAULTS['rows']}; oph {_DEFAULTS['oph_rows']}; or planned for --threshold",
    )
    d.add_argument(
        "-m", "--bands", type=int, default=None,
        help=f"default {_DEFAULTS['bands']}; oph {_DEFAULTS['oph_bands']}; or planned for "
        "--threshold",
    )
    d.add_argument("--seed", type=int, default=defaults.seed)
    d.add_argument(
        "--scheme", choices=["drawn", "disjoint", "oph"], default=None,
        help="default: drawn for sentences, oph for paragraphs and documents; with --threshold "
        "the cheapest",
    )
    d.add_argument(
        "--recall", type=float, default=defaults.recall, metavar="P",
        help="with --threshold: the probability of finding a pair at or above it",
    )
    d.add_argument(
        "--below", type=float, default=None, metavar="S",
        help="with --threshold: pairs at or below this similarity (default max(T - 0.4, T / 6)) ...",
    )
    d.add_argument(
        "--candidate-rate", type=float, default=defaults.candidate_rate, metavar="P",
        help="... become candidates with at most this probability",
    )
    d.add_argument("--max-bucket", type=int, default=defaults.max_bucket, metavar="N")
    d.add_argument("--max-edit", type=float, default=None, metavar="D")
    d.add_argument(
        "--max-article-pairs", type=int, default=defaults.max_article_pairs, metavar="N"
    )
    d.add_argument(
        "--keep", choices=KEEP_RULES, default=defaults.keep,
        help="which member of a cluster is kept (the others go to duplicates.jsonl): the first "
        "seen in input order, the earliest revision timestamp, or the longest text",
    )
    d.add_argument(
        "--verify", action="store_true",
        help="compute each member's exact Jaccard similarity to the kept one, and leave "
        "members below (1/M)^(1/K) out of duplicates.jsonl",
    )
    d.add_argument(
        "--method", choices=METHODS, default=defaults.method,
        help="how candidates are found: MinHash band keys, or rp-embed: Meng and Zheng's random "
        "projection of mean word vectors (--vectors, or trained on the inputs) onto "
        "--projection-bits hyperplanes, pairs within --max-hamming bits found by the sliding "
        "window over --permutations bit orders (docs/embeddings.md)",
    )
    d.add_argument(
        "--max-hamming", type=int, default=None, metavar="K",
        help="with --method rp-embed: the largest Hamming distance (of --projection-bits bits) "
        f"of a candidate pair (default {_DEFAULTS['projection_max_hamming']})",
    )
    rp = d.add_argument_group("random projection over word vectors (with --method rp-embed)")
    rp.add_argument(
        "--vectors", default=None, metavar="FILE",
        help="word vectors to average (word2vec text or binary, GloVe, fastText .vec), read on "
        "the driver; default: train skip-gram vectors on the inputs' kept units first, on the "
        "driver (--dim, --epochs)",
    )
    rp.add_argument(
        "--vectors-format", default=defaults.vectors_format,
        choices=["auto", "word2vec", "word2vec-binary", "glove", "fasttext"],
        help="the format of --vectors; auto tells them apart by the first bytes",
    )
    rp.add_argument(
        "--no-stem", action="store_true",
        help="do not stem words (for --vectors trained on unstemmed words)",
    )
    rp.add_argument(
        "--no-center", action="store_true",
        help="average word vectors as they are, without subtracting the inputs' mean word "
        "vector first",
    )
    rp.add_argument(
        "--projection-bits", type=int, default=defaults.projection_bits, metavar="D",
        help="signature width D: random hyperplanes per unit vector",
    )
    rp.add_argument(
        "--permutations", type=int, default=defaults.permutations, metavar="Q",
        help="random bit permutations Q of the window search",
    )
    rp.add_argument(
        "--window", type=int, default=defaults.window, metavar="B",
        help="each signature is compared with the next B in every permuted order",
    )
    rp.add_argument(
        "--dim", type=int, default=defaults.dim, metavar="N",
        help="without --vectors: the dimension of the trained vectors",
    )
    rp.add_argument(
        "--epochs", type=int, default=defaults.epochs, metavar="N",
        help="without --vectors: training passes over the inputs",
    )
    d.add_argument(
        "--driver-pairs-limit", type=int, default=defaults.driver_pairs_limit, metavar="N",
        help="union-find on the driver up to this many pairs, else large-star/small-star",
    )
    d.add_argument(
        "--documents", action="store_true",
        help="the inputs are documents (Wikipedia dumps, JSON Lines documents, WARC/WET, plain text; "
        "compressed or not; directories walked), read as textreuse dedup reads them, one task "
        "per file, instead of the sentence records of textreuse sentences",
    )
    d.add_argument(
        "--split-bytes", type=int, default=defaults.split_bytes, metavar="N",
        help="bytes of an uncompressed record file per read task (compressed files: one task each)",
    )
    d.add_argument(
        "--chunks-dir", default=None, metavar="DIR",
        help="where the tasks write their parts of the outputs for the driver to join: a "
        "directory the executors and the driver share (default: inside --out's staging "
        "directory, which is shared in local mode)",
    )
    d.add_argument(
        "--master", default=None,
        help="Spark master (default: spark-submit's, or local[*])",
    )
    d.add_argument(
        "--partitions", type=int, default=None, metavar="N",
        help="spark.sql.shuffle.partitions (default: 4 x default parallelism)",
    )
    d.add_argument(
        "--conf", action="append", default=[], metavar="KEY=VALUE", help="extra Spark settings"
    )
    d.add_argument(
        "--report", action="store_true",
        help="also write OUT/report.html, as `textreuse dedup --report` does",
    )
    d.add_argument("--quiet", "-q", action="store_true")

    r = sub.add_parser(
        "reuse",
        help="every reused passage within a corpus or between two",
        description=(
            "Reads documents as `textreuse reuse` reads them, one task per input file "
            "(Wikipedia dumps, JSON Lines documents, WARC/WET, plain text; gzip, zstd or bzip2 "
            "compressed or not; not Parquet) and writes reuse.jsonl, pairs.tsv, documents.tsv "
            "and stats.json like `textreuse reuse` (tf-idf candidates)."
        ),
    )
    r.add_argument("corpus", nargs="+", metavar="DOCS", help="input files or directories")
    r.add_argument("--against", nargs="+", default=[], metavar="OTHER",
                   help="compare the corpus only against these documents (the sources)")
    r.add_argument("--out", default="reuse-out", metavar="DIR")
    rd = ReuseParams()
    r.add_argument("--terms", type=int, default=rd.terms, metavar="N")
    r.add_argument("--top-docs", type=int, default=rd.top_docs, metavar="K")
    r.add_argument("--max-postings", type=int, default=rd.max_postings, metavar="N")
    r.add_argument("--min-score", type=float, default=rd.min_score, metavar="S")
    r.add_argument("--min-words", type=int, default=rd.min_words, metavar="N")
    r.add_argument("--min-length", type=int, default=rd.min_length, metavar="N")
    r.add_argument("--lang", default=rd.lang, metavar="CODE",
                   help="the texts' language for alignment (ISO 639-1 code) or auto")
    r.add_argument("--fallback-ngram", type=_ngram_or_off, default=rd.fallback_ngram,
                   metavar="N|off", help="where alignment finds no passage, look again from "
                   "the sentence pairs sharing a word N-gram (default off)")
    r.add_argument("--synonyms", choices=("on", "off"),
                   default="on" if rd.synonyms else "off",
                   help="match English words with their WordNet synonyms (default on)")
    r.add_argument("--classes", choices=("default", "rules", "learned", "thesis"), default=rd.classes,
                   help="how passages are classed: default, or thesis (H1 and H2 exactly; "
                   "cases neither covers are unclassified)")
    r.add_argument("--passage-texts", action="store_true",
                   help="also write each passage's text on both sides into reuse.jsonl")
    r.add_argument("--candidates-only", action="store_true",
                   help="stop after the candidates: pairs.tsv lists them all")
    for option in ("--master", "--partitions", "--conf", "--quiet"):
        action = next(a for a in d._actions if option in a.option_strings)
        r._add_action(action)
    return p


def main(argv: list[str] | None = None) -> int:
    args = _parser().parse_args(argv)
    from pyspark.sql import SparkSession

    log = (lambda msg: None) if args.quiet else (lambda msg: print(f"textreuse.spark: {msg}", file=sys.stderr))
    builder = SparkSession.builder.appName(f"textreuse {args.command}")
    if args.master:
        builder = builder.master(args.master)
    if args.quiet:
        # No stage progress bars on stderr either (a --conf can turn them back on).
        builder = builder.config("spark.ui.showConsoleProgress", "false")
    for kv in args.conf:
        key, sep, value = kv.partition("=")
        if not sep:
            print(f"textreuse.spark: --conf expects KEY=VALUE, got {kv!r}", file=sys.stderr)
            return 2
        builder = builder.config(key, value)
    if args.command == "reuse":
        try:
            params = ReuseParams(
                terms=args.terms, top_docs=args.top_docs, max_postings=args.max_postings,
                min_score=args.min_score, min_words=args.min_words, min_length=args.min_length,
                lang=args.lang, fallback_ngram=args.fallback_ngram,
                synonyms=args.synonyms == "on", candidates_only=args.candidates_only,
                classes=args.classes, passage_texts=args.passage_texts,
            )
            from textreuse.kernels import ReuseJob

            ReuseJob(**params.job_args())  # parameter errors before Spark starts
        except ValueError as e:
            print(f"textreuse.spark: {e}", file=sys.stderr)
            return 2
        return _run(builder, args, log, lambda spark: run_reuse(
            spark, args.corpus, args.out, params, args.against, log
        ))
    try:
        params = DedupParams(
            unit=args.unit, threshold=args.threshold, shingle=args.shingle,
            min_shingles=args.min_shingles, max_shingles=args.max_shingles,
            hashes=args.hashes, bits=args.bits, rows=args.rows, bands=args.bands,
            seed=args.seed, scheme=args.scheme, recall=args.recall, below=args.below,
            candidate_rate=args.candidate_rate, max_bucket=args.max_bucket,
            max_edit=args.max_edit, max_article_pairs=args.max_article_pairs,
            keep=args.keep, verify=args.verify, driver_pairs_limit=args.driver_pairs_limit,
            split_bytes=args.split_bytes, chunks_dir=args.chunks_dir, documents=args.documents,
            method=args.method, vectors=args.vectors, vectors_format=args.vectors_format,
            stem=not args.no_stem, center=not args.no_center,
            projection_bits=args.projection_bits, permutations=args.permutations,
            window=args.window, max_hamming=args.max_hamming, dim=args.dim, epochs=args.epochs,
        ).resolved()  # parameter errors before Spark starts; a threshold is planned once
    except ValueError as e:
        print(f"textreuse.spark: {e}", file=sys.stderr)
        return 2
    return _run(builder, args, log, lambda spark: run_dedup(
        spark, args.inputs, args.out, params, log, args.input_stats
    ))


# The signals received, in order: the exit status is decided by the first, whatever exception
# finally unwinds the run (PySpark replaces a SystemExit raised while it reads from the JVM by
# the JVM's own error about the broken pipe).
_signals: list[int] = []


def _exit_on_signals() -> None:
    """SIGTERM and SIGHUP end the run as Ctrl-C does: an exception unwinds it, so the new
    outputs are removed and Spark is stopped; the exit status is 128 + the signal's number,
    as the command line's."""

    def handler(signum, frame):
        _signals.append(signum)
        raise SystemExit(128 + signum)

    for s in (signal.SIGTERM, signal.SIGHUP):
        signal.signal(s, handler)


def _run(builder, args, log, job) -> int:
    """Starts Spark, runs `job(spark)`, reports; the exit status of `textreuse`: 3 when input
    problems were skipped."""
    started = time.monotonic()
    _exit_on_signals()
    spark = builder.getOrCreate()
    try:
        if not args.quiet:
            spark.sparkContext.setLogLevel("WARN")
        partitions = args.partitions or 4 * spark.sparkContext.defaultParallelism
        spark.conf.set("spark.sql.shuffle.partitions", str(partitions))
        stats = job(spark)
    except BaseException:
        if not _signals:
            raise
        stopped = True
    else:
        stopped = False
    finally:
        try:
            spark.stop()
        except Exception as e:  # noqa: BLE001
            # A signal that interrupted a call into the JVM leaves the gateway mid-answer;
            # the JVM ends with this process anyway.
            log(f"Spark did not stop cleanly: {e}")
    if stopped:
        print(
            f"textreuse.spark: stopped by signal {_signals[0]}; the new outputs were removed "
            f"and {args.out} is as it was",
            file=sys.stderr,
        )
        return 128 + _signals[0]
    if args.command == "reuse":
        log(
            f"{stats['candidate_pairs']} candidate pairs, {stats['pairs_with_reuse']} with "
            f"reuse, {stats['cases']} passages in {time.monotonic() - started:.1f}s; outputs "
            f"in {args.out}"
        )
    else:
        log(
            f"{stats['clusters']} clusters of {stats['clustered_sentences']} sentences in "
            f"{time.monotonic() - started:.1f}s; outputs in {args.out}"
        )
    if getattr(args, "report", False):
        from textreuse import report

        done = report(args.out)
        log(f"report written to {done['path']} ({done['bytes'] // 1024} KiB)")
    if stats["input_problems"]:
        # The exit status of `textreuse` after skipped inputs.
        print(
            f"textreuse.spark: {stats['input_problems']} input problem(s) were skipped; the "
            "results cover everything else",
            file=sys.stderr,
        )
        return 3
    return 0

if __name__ == "__main__":
    sys.exit(main())
