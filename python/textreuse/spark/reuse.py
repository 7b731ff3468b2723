"""The stages of ``textreuse reuse`` (tf-idf candidates) as Spark DataFrame operations.

Input: what ``textreuse reuse`` reads (Wikipedia dumps, JSON Lines documents, WARC/WET, plain
text; gzip, zstd or bzip2 compressed or not; not Parquet), files or directories. One task per
input file reads it in Rust as the CLI does (:class:`textreuse.kernels.ReuseFileReader`);
documents are numbered in input order (the files in the order given, directories walked as the
CLI walks them, documents in file order), as the CLI numbers them, because ties between equal
scores break by document number.

Stages (:func:`run_reuse`), each per-record step a Rust kernel of :mod:`textreuse.kernels`:

1. document frequencies: ``mapInArrow`` distinct terms per document, ``groupBy(term)``;
2. chunk vectors: each document joined with its terms' frequencies, ``mapInArrow`` the pruned
   tf-idf vectors of its chunks; terms in more than ``max_postings`` chunks dropped;
3. scoring: the vectors joined with themselves on the term (the inverted index of the CLI, as a
   join), other documents only (with ``against``, corpus chunks against the other side's),
   ``repartition`` by query chunk, ``mapInArrow`` the nominations (sums in term order, ties by
   document number: the CLI's arithmetic);
4. candidate pairs: nominations counted per document pair;
5. alignment: each pair joined with both texts, ``mapInArrow`` aligned, classified and
   formatted; the driver writes ``reuse.jsonl``, ``pairs.tsv``, ``documents.tsv``,
   ``stats.json`` and ``corpus.json`` (the corpus view, fed pair by pair to the library's
   own ``CorpusView``) in the CLI's order (pairs by document numbers).

The outputs are byte for byte the CLI's, except ``stats.json``'s ``seconds`` and
``index_blocks`` (0: the join is the index).
"""

from __future__ import annotations

import dataclasses
import json
import os
import time
from typing import Iterable, Iterator, Sequence

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from .. import _native, kernels
from .dedup import _write_files, output_set

_DEFAULTS = _native.DEFAULTS


@dataclasses.dataclass(frozen=True)
class ReuseParams:
    """The parameters of ``textreuse reuse`` with tf-idf candidates (same names and
    defaults)."""

    terms: int = _DEFAULTS["reuse_terms"]
    top_docs: int = _DEFAULTS["reuse_top_docs"]
    max_postings: int = _DEFAULTS["reuse_max_postings"]
    min_score: float = _DEFAULTS["reuse_min_score"]
    min_words: int = _DEFAULTS["reuse_min_words"]
    #: Passages shorter than this many bytes on either side are dropped (``--min-length``).
    min_length: int = _DEFAULTS["reuse_min_length"]
    #: The texts' language for alignment (``--lang``): an ISO 639-1 code, or "auto".
    lang: str = "en"
    #: Where alignment finds no passage, look again from the sentence pairs sharing a word
    #: n-gram of this size (``--fallback-ngram``; None: off).
    fallback_ngram: int | None = _DEFAULTS["reuse_fallback_ngram"]
    #: Match English words with their WordNet synonyms (``--synonyms``).
    synonyms: bool = _DEFAULTS["synonyms"]
    #: How passages are classed (``--classes``): "default", "rules", "learned" (the fitted
    #: model), or "thesis" for the thesis's heuristics H1 and H2 (cases neither covers are
    #: "unclassified").
    classes: str = "default"
    #: Also write the passages' texts into ``reuse.jsonl`` (``--passage-texts``).
    passage_texts: bool = False
    #: Stop after the candidates: ``pairs.tsv`` lists them all, nothing is aligned.
    candidates_only: bool = False

    def job_args(self) -> dict:
        return dict(
            terms=self.terms, top_docs=self.top_docs, max_postings=self.max_postings,
            min_score=self.min_score, min_words=self.min_words, min_length=self.min_length,
            lang=self.lang, fallback_ngram=self.fallback_ngram, synonyms=self.synonyms,
            classes=self.classes, passage_texts=self.passage_texts,
        )


# One job per Python worker process and parameter set.
_JOBS: dict = {}


def _job(args: dict) -> kernels.ReuseJob:
    key = tuple(sorted(args.items()))
    job = _JOBS.get(key)
    if job is None:
        job = _JOBS[key] = kernels.ReuseJob(**args)
    return job


#: The rows of the read tasks: a file's documents (``k`` numbers them from 0 in file order),
#: then a row of its counts (``k`` null): documents, input problems, the first problems'
#: messages.
_READ = (
    "f int, k long, id string, title string, text string, source string, record long, "
    "revision long, timestamp string, url string, documents long, problems long, "
    "messages array<string>"
)


def _read(files: Sequence[tuple[str, int]]):
    """The read task of input file ``f``, ``files[f]`` being its path and the number of input
    files before it on its side."""

    def rows(f: int, docs: pa.RecordBatch, documents=None, problems=None, messages=None):
        n = docs.num_rows
        return pa.RecordBatch.from_arrays(
            [
                pa.repeat(pa.scalar(f, pa.int32()), n), *docs.columns,
                pa.array([documents] * n, pa.int64()), pa.array([problems] * n, pa.int64()),
                pa.array([messages] * n, pa.list_(pa.string())),
            ],
            names=["f", *docs.schema.names, "documents", "problems", "messages"],
        )

    def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            for f in batch.column("id").to_pylist():
                path, before = files[f]
                reader = kernels.ReuseFileReader(path, before)
                for docs in reader:
                    yield rows(f, docs)
                no_document = pa.RecordBatch.from_pylist([{}], schema=reader.SCHEMA)
                yield rows(f, no_document, reader.documents, reader.problems, reader.messages)

    return run


@dataclasses.dataclass(frozen=True)
class Documents:
    """The documents of a run (see :func:`read_documents`)."""

    #: ``(n, id, title, text, source, record, revision, timestamp, url)``: the document number and
    #: the document with its provenance, as the CLI prints it.
    frame: DataFrame
    #: The corpus's documents (numbered from 0) and the other side's (numbered after them).
    corpus: int
    against: int
    #: Input problems skipped (bad lines, damaged parts of dumps, unreadable files).
    problems: int
    #: The read tasks' rows, cached: ``frame`` is computed from them.
    rows: DataFrame

    def unpersist(self) -> None:
        self.rows.unpersist()


def read_documents(
    spark: SparkSession,
    corpus: Sequence[str],
    against: Sequence[str] = (),
    log=lambda msg: None,
) -> Documents:
    """The documents of the input files ``corpus`` and ``against`` (files, as
    :func:`textreuse._native.input_files` lists them), read by one task per file as the CLI
    reads them and numbered as it numbers them: the corpus's documents from 0 in input order,
    then the other side's. Input problems are skipped and counted; the first ten are logged as
    the CLI logs them (``skipped: ...``). The tasks' rows stay cached until
    :meth:`Documents.unpersist`."""
    # A plain-text document's id is its file's position among the inputs of its side, as the
    # CLI reads each side with its own reader.
    files = [(p, i) for i, p in enumerate(corpus)] + [(p, i) for i, p in enumerate(against)]
    rows = (
        spark.range(0, len(files), numPartitions=max(len(files), 1))
        .mapInArrow(_read(files), _READ)
        .persist()
    )
    counts = {
        r["f"]: r
        for r in rows.where(F.col("k").isNull())
        .select("f", "documents", "problems", "messages")
        .collect()
    }
    bases, n = [], 0
    for f in range(len(files)):
        bases.append((f, n))
        n += counts[f]["documents"]
    n_corpus = sum(counts[f]["documents"] for f in range(len(corpus)))
    messages = [m for f in range(len(files)) for m in counts[f]["messages"]]
    for m in messages[:10]:
        log(m)
    frame = (
        rows.where(F.col("k").isNotNull())
        .join(F.broadcast(spark.createDataFrame(bases, "f int, base long")), "f")
        .select(
            (F.col("base") + F.col("k")).alias("n"),
            "id", "title", "text", "source", "record", "revision", "timestamp", "url",
        )
    )
    return Documents(
        frame=frame, corpus=n_corpus, against=n - n_corpus,
        problems=sum(c["problems"] for c in counts.values()), rows=rows,
    )


def _terms(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
    for batch in batches:
        rows, keys = kernels.reuse_document_terms(batch.column("text"))
        yield pa.RecordBatch.from_arrays(
            [batch.column("n").take(rows), keys.view(pa.int64())], names=["n", "term"]
        )


def _vectors(job_args: dict, documents: int):
    def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        job = _job(job_args)
        for batch in batches:
            rows, chunks, terms, weights = kernels.reuse_chunk_vectors(
                job, batch.column("text"), batch.column("terms"), documents
            )
            n = batch.column("n").take(rows)
            chunk = pa.compute.add(
                pa.compute.shift_left(n, 32), chunks.cast(pa.int64())
            )
            yield pa.RecordBatch.from_arrays(
                [n, chunk, terms.view(pa.int64()), weights], names=["n", "chunk", "term", "w"]
            )

    return run


def _grouped(key: str, batches: Iterable[pa.RecordBatch]) -> Iterator[pa.Table]:
    """The rows of a partition sorted by ``key`` as tables of whole groups: a group may
    straddle two batches, so the last group of a batch waits for the next."""
    pending = None
    for batch in batches:
        table = pa.Table.from_batches([batch])
        if pending is not None:
            table = pa.concat_tables([pending, table])
        if table.num_rows == 0:
            continue
        column = table.column(key)
        last = column[table.num_rows - 1]
        tail = table.num_rows
        while tail > 0 and column[tail - 1] == last:
            tail -= 1
        pending = table.slice(tail)
        if tail > 0:
            yield table.slice(0, tail).combine_chunks()
    if pending is not None and pending.num_rows:
        yield pending.combine_chunks()


def _picks(job_args: dict):
    def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        job = _job(job_args)
        for t in _grouped("query", batches):
            q, d, scored = kernels.reuse_pick_documents(
                job, t.column("query"), t.column("chunk"), t.column("doc"), t.column("term"),
                t.column("wq"), t.column("w"),
            )
            # The count of scored chunk pairs rides along as a row of its own (query -1).
            yield pa.RecordBatch.from_arrays(
                [
                    pa.concat_arrays([q, pa.array([-1], pa.int64())]),
                    pa.concat_arrays([d, pa.array([-1], pa.int64())]),
                    pa.array([0] * len(q) + [scored], pa.int64()),
                ],
                names=["query", "doc", "scored"],
            )

    return run


_SIDE = ("n", "id", "title", "text", "source", "record", "revision", "timestamp", "url")
#: What documents.tsv needs of each side, passed through the alignment.
_PASSED = ("n", "id", "title", "source")

_ALIGNED = (
    "a long, b long, susp_n long, susp_id string, susp_title string, susp_source string, "
    "src_n long, src_id string, src_title string, src_source string, lines string, pair_row string, cases long, content long, structure long, spurious long, "
    "susp_chars long, src_chars long, susp_starts array<long>, susp_ends array<long>, "
    "src_starts array<long>, src_ends array<long>, kinds array<int>, words array<long>, "
    "j2 array<double>, j10 array<double>"
)


def _align(job_args: dict, align: bool):
    def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        job = _job(job_args)
        for batch in batches:
            out = kernels.reuse_align(job, batch, align)
            passed = ["a", "b"] + [p + c for p in ("susp_", "src_") for c in _PASSED]
            yield pa.RecordBatch.from_arrays(
                [*(batch.column(c) for c in passed), *out.values()],
                names=[*passed, *out.keys()],
            )

    return run


def run_reuse(
    spark: SparkSession,
    corpus: Sequence[str],
    out_dir: str,
    params: ReuseParams = ReuseParams(),
    against: Sequence[str] = (),
    log=lambda msg: None,
) -> dict:
    """Runs ``textreuse reuse`` with tf-idf candidates over the input files (or directories)
    ``corpus``, or between them and ``against``, and writes ``reuse.jsonl``, ``pairs.tsv``,
    ``documents.tsv``, ``stats.json`` and ``corpus.json`` into ``out_dir`` as the CLI does. The inputs are
    what the CLI reads but Parquet (see :func:`read_documents`). Returns the stats;
    ``stats["input_problems"]`` counts the input problems skipped (bad lines, damaged parts
    of dumps, unreadable files).

    ``out_dir`` is checked before any work and its files are replaced as one at the end
    (:func:`textreuse.spark.dedup.output_set`): a failed or interrupted run leaves the
    previous result."""
    job_args = params.job_args()
    job = _job(job_args)  # parameter errors before any work
    with output_set(out_dir, _native.REUSE_OUTPUTS) as staging:
        return _reuse(spark, corpus, staging, params, against, log, job_args, job)


def _reuse(spark, corpus, out_dir, params, against, log, job_args, job) -> dict:
    """:func:`run_reuse` writing into ``out_dir`` directly."""
    corpus_files = _native.input_files([str(p) for p in corpus])
    against_files = _native.input_files([str(p) for p in against])
    started = time.monotonic()
    read = read_documents(spark, corpus_files, against_files, log)
    docs, n_corpus, n_against = read.frame, read.corpus, read.against
    total = n_corpus + n_against
    stats = json.loads(job.stats_template(n_corpus, n_against))
    log(
        f"{n_corpus} documents"
        + (f" against {n_against}" if against_files else "")
        + "; tf-idf candidates, then alignment"
    )

    # Stages 1 and 2.
    # Read twice (the frequencies, then each document's): computed once.
    terms = docs.select("n", "text").mapInArrow(_terms, "n long, term long").persist()
    df = terms.groupBy("term").agg(F.count(F.lit(1)).alias("df")).persist()
    stats["distinct_terms"] = df.count()
    with_df = (
        terms.join(df, "term")
        .groupBy("n")
        .agg(F.collect_list(F.struct("term", "df")).alias("terms"))
    )
    vectors = (
        docs.select("n", "text")
        .join(with_df, "n", "left")
        .mapInArrow(_vectors(job_args, total), "n long, chunk long, term long, w float")
        .persist()
    )
    counts = vectors.agg(
        F.count(F.lit(1)).alias("records"), F.countDistinct("chunk").alias("chunks")
    ).first()
    terms.unpersist()  # the vectors are computed and cached
    stats["chunks"] = counts["chunks"]
    stats["term_records"] = counts["records"]
    postings = vectors.groupBy("term").count().persist()
    stats["terms_over_cap"] = postings.where(F.col("count") > params.max_postings).count()
    searchable = vectors.join(
        postings.where(F.col("count") <= params.max_postings).select("term"), "term"
    )
    chunk_seconds = time.monotonic() - started

    # Stages 3 and 4.
    started = time.monotonic()
    queries = searchable.select(
        F.col("chunk").alias("query"), F.col("n").alias("qn"), "term", F.col("w").alias("wq")
    )
    index = searchable.select("chunk", F.col("n").alias("doc"), "term", "w")
    if against_files:
        queries = queries.where(F.col("qn") < n_corpus)
        index = index.where(F.col("doc") >= n_corpus)
    products = queries.join(index, "term").where(F.col("qn") != F.col("doc"))
    picks = (
        products.repartition("query")
        .sortWithinPartitions("query")
        .mapInArrow(_picks(job_args), "query long, doc long, scored long")
        .persist()
    )
    stats["chunk_pairs"] = picks.agg(F.sum("scored")).first()[0] or 0
    own = F.shiftright(F.col("query"), 32)
    pairs = (
        picks.where(F.col("query") >= 0)
        .select(F.least(own, F.col("doc")).alias("a"), F.greatest(own, F.col("doc")).alias("b"))
        .groupBy("a", "b")
        .agg(F.count(F.lit(1)).alias("support"))
        .persist()
    )
    stats["candidate_pairs"] = pairs.count()
    vectors.unpersist()
    postings.unpersist()
    df.unpersist()
    candidate_seconds = time.monotonic() - started
    log(
        f"{stats['chunks']} chunks, {stats['candidate_pairs']} candidate pairs "
        f"({stats['candidate_pairs'] / max(n_corpus, 1):.1f} per document) in "
        f"{chunk_seconds + candidate_seconds:.1f} s"
    )

    # Stage 5: within one corpus the later document reuses the earlier; against another, the
    # corpus's document is the suspicious one.
    started = time.monotonic()
    susp, src = ("a", "b") if against_files else ("b", "a")
    side = lambda prefix: docs.select(*[F.col(c).alias(prefix + c) for c in _SIDE])  # noqa: E731
    joined = (
        pairs.join(side("susp_"), F.col(susp) == F.col("susp_n"))
        .join(side("src_"), F.col(src) == F.col("src_n"))
        .select("a", "b", "support", *[p + c for p in ("susp_", "src_") for c in _SIDE])
    )
    aligned = joined.mapInArrow(_align(job_args, not params.candidates_only), _ALIGNED).persist()
    os.makedirs(out_dir, exist_ok=True)
    documents = _native.ReuseDocuments()
    view = _native.ReuseCorpusView()
    totals = dict(
        pairs_with_reuse=0, cases=0, content_cases=0, structure_cases=0, unclassified_cases=0,
        spurious_cases=0,
    )

    def write(cases_file, pairs_file):
        pairs_file.write(_native.REUSE_PAIRS_HEADER + "\n")
        for r in aligned.orderBy("a", "b").toLocalIterator():
            cases_file.write(r["lines"])
            pairs_file.write(r["pair_row"])
            view.add(
                (r["susp_n"], r["susp_id"], r["susp_title"]),
                (r["src_n"], r["src_id"], r["src_title"]),
                r["susp_starts"], r["susp_ends"], r["src_starts"], r["src_ends"],
                r["kinds"], r["words"], r["j2"], r["j10"],
            )
            if r["cases"]:
                totals["pairs_with_reuse"] += 1
                totals["cases"] += r["cases"]
                totals["content_cases"] += r["content"]
                totals["structure_cases"] += r["structure"]
                totals["spurious_cases"] += r["spurious"]
                totals["unclassified_cases"] += (
                    r["cases"] - r["content"] - r["structure"] - r["spurious"]
                )
                for p in ("susp_", "src_"):
                    documents.add(
                        r[p + "n"], r[p + "id"], r[p + "title"] or "", r[p + "source"],
                        r[p + "chars"], r["cases"], r[p + "starts"], r[p + "ends"],
                    )

    _write_files(
        [os.path.join(out_dir, "reuse.jsonl"), os.path.join(out_dir, "pairs.tsv")], write
    )
    documents.write(os.path.join(out_dir, "documents.tsv"))
    stats.update(totals)
    stats["seconds"] = dict(
        chunk_and_sign=chunk_seconds,
        candidates=candidate_seconds,
        align_and_write=time.monotonic() - started,
    )
    aligned.unpersist()
    pairs.unpersist()
    picks.unpersist()
    read.unpersist()

    def write_stats(f):
        json.dump(stats, f, indent=2, ensure_ascii=False)
        f.write("\n")

    _write_files([os.path.join(out_dir, "stats.json")], write_stats)
    view.write(os.path.join(out_dir, "corpus.json"), total)
    stats["input_problems"] = read.problems
    return stats
