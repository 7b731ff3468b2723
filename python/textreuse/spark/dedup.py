"""The stages of ``textreuse dedup`` as Spark DataFrame operations (see the package docs)."""

from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import json
import os
import shutil
import tempfile
import time
from typing import Iterable, Iterator, Sequence

import numpy as np
import pyarrow as pa
from pyspark.sql import Column, DataFrame, SparkSession
from pyspark.sql import functions as F
from pyspark.sql import types as T

from .. import _native, kernels
from .components import connected_components

#: The sentence records as ``textreuse sentences`` writes them (JSON Lines; Parquet files hold
#: the same columns). ``doc`` is read as a string: Spark's JSON reader gives the digits of an
#: integer id and the text of a string id, and ``doc_is_string``, which the extractor writes
#: (true) only for string ids, tells ``12`` from ``"12"``. ``start``/``end`` are character
#: offsets. ``source``, ``record``, ``revision``, ``timestamp`` and ``url`` are null where the
#: document has none.
SENTENCE_SCHEMA = T.StructType(
    [
        T.StructField("id", T.LongType()),
        T.StructField("doc", T.StringType()),
        T.StructField("doc_is_string", T.BooleanType()),
        T.StructField("source", T.StringType()),
        T.StructField("record", T.LongType()),
        T.StructField("revision", T.LongType()),
        T.StructField("timestamp", T.StringType()),
        T.StructField("url", T.StringType()),
        T.StructField("title", T.StringType()),
        T.StructField("start", T.LongType()),
        T.StructField("end", T.LongType()),
        T.StructField("shingles", T.LongType()),
        T.StructField("text", T.StringType()),
    ]
)

#: The columns the pipeline works on (:func:`sentence_frame`): the document id split into
#: ``doc_int`` (integer ids) and ``doc_str`` (string ids), exactly one of them not null.
COLUMNS = (
    "id", "doc_int", "doc_str", "title", "shingles", "text",
    "source", "record", "revision", "timestamp", "url", "start", "end",
)

#: The representative rules of ``textreuse dedup --keep``.
KEEP_RULES = ("first", "earliest", "longest")

#: The cluster types, in the order `textreuse dedup` counts them.
CLUSTER_TYPES = ("identical", "template", "copyedit", "factual_drift", "reference", "other")


#: The defaults of ``textreuse dedup``, read from the Rust libraries that define them.
_DEFAULTS = _native.DEFAULTS


#: The units ``textreuse dedup --unit`` compares.
UNITS = ("sentence", "paragraph", "document")

#: How candidates are found (``textreuse dedup --method``; the CLI's ``simhash`` has no Spark
#: job).
METHODS = ("minhash", "rp-embed")


@dataclasses.dataclass(frozen=True)
class DedupParams:
    """The parameters of ``textreuse dedup`` (same names and defaults), plus Spark's own.

    ``None`` stands for the default of ``textreuse dedup``, which depends on the unit and the
    threshold: :meth:`resolved` fills it in with the library's rule (the CLI's, byte for byte)."""

    #: What is compared: ``"sentence"``, ``"paragraph"`` (non-blank lines) or ``"document"``;
    #: other units than sentences need ``documents=True`` (sentence records hold sentences).
    unit: str = "sentence"
    #: The Jaccard similarity that counts as a duplicate: without ``rows``/``bands``, the
    #: cheapest scheme (or ``scheme``), K and M that find 99% of pairs at it (``--threshold``);
    #: with ``verify``, members below it leave ``duplicates.jsonl``.
    threshold: float | None = None
    shingle: int = _DEFAULTS["shingle"]
    #: The unit's (75 for sentences, 20 for paragraphs and documents) when ``None``.
    min_shingles: int | None = None
    #: The unit's (600 for sentences, no bound otherwise) when ``None``; 0: no upper bound.
    max_shingles: int | None = None
    hashes: int | None = None
    bits: int = _DEFAULTS["bits"]
    rows: int | None = None
    bands: int | None = None
    seed: int = _DEFAULTS["seed"]
    #: ``"drawn"``, ``"disjoint"`` or ``"oph"``; ``None``: the unit's (drawn for sentences, oph
    #: otherwise), or with a threshold the cheapest.
    scheme: str | None = None
    #: With ``threshold``: what the planned signer must reach (``--recall --below
    #: --candidate-rate``).
    recall: float = 0.99
    below: float | None = None
    candidate_rate: float = 0.01
    max_bucket: int = _DEFAULTS["max_bucket"]
    max_edit: float | None = None
    max_article_pairs: int = _DEFAULTS["max_article_pairs"]
    #: Which member of a cluster is kept, the others listed in ``duplicates.jsonl``:
    #: ``"first"`` (first seen in input order), ``"earliest"`` (revision timestamp) or
    #: ``"longest"``, as ``textreuse dedup --keep``.
    keep: str = "first"
    #: Compute each member's exact Jaccard similarity to the kept one and leave members below
    #: ``threshold`` (else ``(1/M)^(1/K)``) out of ``duplicates.jsonl`` (``textreuse dedup
    #: --verify``).
    verify: bool = False
    #: Connected components run on the driver (Rust union-find) when there are at most this
    #: many distinct pairs, otherwise as large-star/small-star rounds in DataFrames.
    driver_pairs_limit: int = 50_000_000
    #: The bytes of a sentence-record file each read task takes (uncompressed files are split
    #: into ranges of about this size; a compressed file is one task).
    split_bytes: int = 64 << 20
    #: The sort budget of the shuffle in each partition's task (beyond it, it spills to disk).
    task_work_mem: int = 256 << 20
    #: Where the tasks of stage 8 write their part of the outputs, for the driver to join: a
    #: directory the executors and the driver share (default: inside ``out_dir``'s staging
    #: directory, which in local mode they do).
    chunks_dir: str | None = None
    #: The inputs are documents (Wikipedia dumps, JSON Lines documents, WARC/WET, plain text;
    #: compressed or not; directories walked), read one task per file as ``textreuse dedup``
    #: reads them, instead of the sentence records of ``textreuse sentences``.
    documents: bool = False
    #: How candidates are found: ``"minhash"`` (band keys) or ``"rp-embed"`` (Meng and Zheng's
    #: random projection of mean word vectors onto ``projection_bits`` hyperplanes, pairs within
    #: ``max_hamming`` bits found by the sliding window over ``permutations`` bit orders; see
    #: docs/embeddings.md). ``seed`` seeds its training, hyperplanes and permutations.
    method: str = "minhash"
    #: rp-embed: a word-vector file (word2vec text or binary, GloVe, fastText ``.vec``), read
    #: once on the driver (only the run's words' vectors go to the tasks); ``None``: skip-gram vectors trained on the kept units,
    #: on the driver (``dim``, ``epochs``).
    vectors: str | None = None
    #: rp-embed: the format of ``vectors``; ``"auto"`` tells them apart by the first bytes.
    vectors_format: str = "auto"
    #: rp-embed: whether words are stemmed (``--no-stem`` turns it off).
    stem: bool = _DEFAULTS["stem"]
    #: rp-embed: whether the kept units' mean word vector is subtracted first (``--no-center``).
    center: bool = _DEFAULTS["center"]
    #: rp-embed: the signature width D.
    projection_bits: int = _DEFAULTS["projection_bits"]
    #: rp-embed: the bit permutations Q of the window search.
    permutations: int = _DEFAULTS["permutations"]
    #: rp-embed: each signature is compared with the next B in every permuted order.
    window: int = _DEFAULTS["window"]
    #: rp-embed: the largest Hamming distance of a pair (``None``: the method's default).
    max_hamming: int | None = None
    #: rp-embed without ``vectors``: the dimension of the trained vectors.
    dim: int = _DEFAULTS["dim"]
    #: rp-embed without ``vectors``: training passes over the kept units.
    epochs: int = _DEFAULTS["epochs"]

    def resolved(self) -> "DedupParams":
        """These parameters with every default filled in (the unit's filter, the signer's
        scheme, N, K and M, planned for ``threshold`` where asked), as ``textreuse dedup``
        fills them in. Resolved parameters resolve to themselves (a threshold is not planned
        again). Raises ValueError naming the parameter to change."""
        if self.unit not in UNITS:
            raise ValueError(f"unit must be one of {', '.join(UNITS)}, got {self.unit!r}")
        if self.unit != "sentence" and not self.documents:
            raise ValueError(
                f"unit {self.unit!r} needs documents=True (--documents): sentence records hold "
                "sentences"
            )
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {', '.join(METHODS)}, got {self.method!r}")
        signer, lo, hi = _native.dedup_settings(
            self.unit, self.threshold, self.shingle, self.min_shingles, self.max_shingles,
            self.scheme, self.hashes, self.rows, self.bands, self.bits, self.seed,
            self.recall, self.below, self.candidate_rate,
        )
        projection = {}
        if self.method == "rp-embed":
            settings = _native.projection_settings(
                self.stem, self.center, self.projection_bits, self.permutations, self.window,
                self.max_hamming, self.seed, self.dim, self.epochs, self.vectors_format,
            )
            projection = dict(max_hamming=settings["max_hamming"])
            if self.vectors is not None and not os.path.isfile(self.vectors):
                raise ValueError(f"vectors: no such file: {self.vectors}")
        return dataclasses.replace(
            self, min_shingles=lo, max_shingles=hi, hashes=signer.hashes, rows=signer.rows,
            bands=signer.bands, scheme=signer.scheme, **projection,
        )

    def projection_args(self) -> dict:
        """The :class:`textreuse._native.Projection` arguments of resolved parameters."""
        return dict(
            stem=self.stem, center=self.center, bits=self.projection_bits,
            permutations=self.permutations, window=self.window, max_hamming=self.max_hamming,
            seed=self.seed, dim=self.dim, epochs=self.epochs, vectors=self.vectors,
            vectors_format=self.vectors_format,
        )

    def signer_args(self) -> dict:
        """The :class:`textreuse.Signer` arguments of resolved parameters."""
        return dict(
            hashes=self.hashes,
            bits=self.bits,
            rows=self.rows,
            bands=self.bands,
            seed=self.seed,
            scheme=self.scheme,
        )


# One signer per Python worker process and parameter set (building one draws the hash family).
_SIGNERS: dict = {}


def _signer(args: dict):
    key = tuple(sorted(args.items()))
    signer = _SIGNERS.get(key)
    if signer is None:
        from .. import Signer

        signer = _SIGNERS[key] = Signer(**args)
    return signer


def _edit_keep(max_edit: float):
    def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            keep = kernels.edit_keep(batch.column("text_a"), batch.column("text_b"), max_edit)
            yield batch.select(["a", "b"]).filter(keep)

    return run


def sentence_frame(df: DataFrame) -> DataFrame:
    """The sentence records of ``df`` in the pipeline's columns (:data:`COLUMNS`).

    ``df`` has the columns of :data:`SENTENCE_SCHEMA` (``doc_is_string``, ``source``,
    ``record``, ``revision`` and ``timestamp`` may be missing), or is already in the pipeline's
    columns. An integer ``doc`` column holds integer ids. A string ``doc`` column holds string
    ids, except that with a ``doc_is_string`` column the rows where it is not true hold integer
    ids written in digits (as Spark reads ``textreuse sentences`` output); Spark needs those to
    fit a signed 64-bit integer (the job fails otherwise).
    """
    cols = set(df.columns)
    if "doc" not in cols and {"doc_int", "doc_str"} <= cols:
        return df.select(*COLUMNS)
    missing = {"id", "doc", "title", "shingles", "text", "start", "end"} - cols
    if missing:
        raise ValueError(
            f"the sentence records have no column {', '.join(sorted(missing))}: write them "
            "with `textreuse sentences --min-shingles 0 --max-shingles 0`"
        )
    doc_type = df.schema["doc"].dataType
    doc = F.col("doc")
    if isinstance(doc_type, T.StringType):
        if "doc_is_string" in cols:
            is_string = F.coalesce(F.col("doc_is_string"), F.lit(False))
        else:
            is_string = F.lit(True)
        digits = F.expr("try_cast(doc AS BIGINT)")
        not_an_integer = F.raise_error(
            F.concat(
                F.lit("sentence records: doc "), doc,
                F.lit(" is not a 64-bit integer and doc_is_string is not true"),
            )
        )
        doc_int = F.when(~is_string, F.when(digits.isNull(), not_an_integer).otherwise(digits))
        doc_str = F.when(is_string, doc)
    elif isinstance(doc_type, T.IntegralType):
        doc_int, doc_str = doc.cast("long"), F.lit(None).cast("string")
    else:
        raise TypeError(f"the doc column must hold integers or strings, not {doc_type.simpleString()}")

    def column(name: str) -> Column:
        kind = SENTENCE_SCHEMA[name].dataType
        return (F.col(name) if name in cols else F.lit(None)).cast(kind).alias(name)

    picked = {"doc_int": doc_int.cast("long").alias("doc_int"), "doc_str": doc_str.alias("doc_str")}
    return df.select(*[picked[c] if c in picked else column(c) for c in COLUMNS])


def _write_files(paths: Sequence[str], write) -> None:
    """Calls ``write`` with one open text file per path (UTF-8, ``\\n`` line ends). The paths
    are in an :class:`OutputSet`'s private directory: the files appear in the output
    directory together, when the set is committed."""
    with contextlib.ExitStack() as stack:
        files = [
            stack.enter_context(open(path, "w", encoding="utf-8", newline="\n"))
            for path in paths
        ]
        write(*files)


@contextlib.contextmanager
def output_set(out_dir: str, names: Sequence[str]):
    """An :class:`textreuse._native.OutputSet` for ``out_dir``: yields the directory to write
    into; the files replace ``out_dir``'s as one when the block ends without an exception,
    and are removed otherwise (signals included, with the handlers of ``python -m
    textreuse.spark``)."""
    outputs = _native.OutputSet(out_dir, list(names))
    try:
        yield str(outputs.dir)
        outputs.commit()
    finally:
        outputs.abort()


def run_dedup(
    spark: SparkSession,
    inputs: Sequence[str] | DataFrame,
    out_dir: str,
    params: DedupParams = DedupParams(),
    log=lambda msg: None,
    input_stats: Sequence[str] = (),
) -> dict:
    """Runs the pipeline over sentence records and writes ``clusters.jsonl``,
    ``duplicates.jsonl``, ``contradictions.jsonl``, ``stats.json`` and ``article-pairs.tsv``
    into ``out_dir``, as ``textreuse dedup`` does. Returns the stats.

    ``inputs`` is a list of paths (JSON Lines or Parquet) or a DataFrame with the columns of
    :data:`SENTENCE_SCHEMA` (see :func:`sentence_frame`). ``input_stats`` are the files
    ``textreuse sentences --stats FILE`` wrote while extracting them: with them, ``documents``,
    ``sentences`` and ``input_problems`` are the extractor's counts (documents without any
    sentence included), otherwise they are counted from the records (documents with at least
    one sentence).

    ``out_dir`` is checked before any work and its files are replaced as one at the end
    (:func:`output_set`): a failed or interrupted run leaves the previous result.
    """
    params = params.resolved()
    if params.max_bucket < 2:
        raise ValueError("max_bucket must be at least 2")
    if params.keep not in KEEP_RULES:
        raise ValueError(f"keep must be one of {', '.join(KEEP_RULES)}, got {params.keep!r}")
    # The word vectors of rp-embed are read (once, on the driver) before anything else.
    projection = (
        _native.Projection(**params.projection_args()) if params.method == "rp-embed" else None
    )
    with output_set(out_dir, _native.DEDUP_OUTPUTS) as staging:
        return _dedup(spark, inputs, staging, params, log, input_stats, projection)


#: The rows of stages 1-4 (see :class:`_Files` and :func:`_bucket_pairs`): ``part`` routes a
#: row to its shuffle partition; ``kind`` says what ``blob`` holds: packed little-endian
#: ``(band key, id)`` records (0, ``n`` of them), a read task's counts (1: ``n`` sentences, the
#: blob its distinct document positions as u32), a partition's distinct pairs (2, ``n`` pairs)
#: or its bucket counts (3: records, buckets, capped, left out as u64), or a document file's
#: counts (4: ``n`` the file's index, the blob JSON, see :class:`_Documents`).
_BLOB_SCHEMA = "part long, kind int, n long, blob binary"
_KEYS, _READ, _PAIRS, _BUCKETS, _DOCS = 0, 1, 2, 3, 4

#: The clustered sentences of stage 6: output range (as its partition tag), cluster, id and
#: the sentence record as ``textreuse sentences`` wrote it.
_MEMBER_SCHEMA = "part long, cluster long, id long, line string"

#: The formatted clusters of stage 8, one row per output range: the files its task wrote (the
#: range's ``clusters.jsonl`` and ``duplicates.jsonl`` lines), its counts and its clusters'
#: articles (see :func:`_format_range`).
_RANGE_SCHEMA = (
    "range int, clusters_path string, duplicates_path string, summary string, articles string, "
    "contradictions string"
)


#: The rows of the random projection's stage 1 (see :func:`_words_batch`): a kept unit's id and
#: its cleaned words (separated by single spaces), or a read task's counts (``id`` null:
#: ``sentences`` read, ``seqs`` the distinct document positions as u32; for a file of
#: documents ``counts``, as :class:`_Documents` reads them).
_WORDS_SCHEMA = "id long, words string, sentences long, seqs binary, counts string"


def _words_batch(
    ids: bytes, offsets: bytes, data: bytes, sentences: int, seqs: bytes, counts: str | None = None
) -> pa.RecordBatch:
    """The rows of a read task of the random projection: its kept units, then its counts."""
    n = len(ids) // 8
    return pa.RecordBatch.from_arrays(
        [
            pa.concat_arrays(
                [pa.array(np.frombuffer(ids, dtype="<u8").view(np.int64)), pa.nulls(1, pa.int64())]
            ),
            pa.concat_arrays([kernels._strings(offsets, data), pa.nulls(1, pa.string())]),
            pa.array([None] * n + [sentences], pa.int64()),
            pa.array([None] * n + [seqs], pa.binary()),
            pa.array([None] * n + [counts], pa.string()),
        ],
        names=["id", "words", "sentences", "seqs", "counts"],
    )


def _blob_batch(parts, kinds, ns, blobs) -> pa.RecordBatch:
    return pa.RecordBatch.from_arrays(
        [
            pa.array(parts, pa.int64()), pa.array(kinds, pa.int32()),
            pa.array(ns, pa.int64()), pa.array(blobs, pa.binary()),
        ],
        names=["part", "kind", "n", "blob"],
    )


def _keys_batch(tags: list[int], task: int, blobs, sentences: int, seqs: bytes) -> pa.RecordBatch:
    """The rows of a read task: its key blobs, each tagged for its partition, and its counts."""
    return _blob_batch(
        [tags[p] for p, _, _ in blobs] + [tags[task % len(tags)]],
        [_KEYS] * len(blobs) + [_READ],
        [n for _, n, _ in blobs] + [sentences],
        [b for _, _, b in blobs] + [seqs],
    )


def partition_tags(spark: SparkSession, partitions: int) -> list[int]:
    """For each shuffle partition ``p``, a value ``v`` that ``repartition(partitions, col)``
    sends to partition ``p`` (Spark hash-partitions by ``pmod(hash(col), partitions)``, which
    SQL's ``hash`` computes too): records tagged ``v`` meet in partition ``p``, so the kernels,
    not the hash, decide what each partition holds (a key range, an output range). A partition
    without such a value below ``64 * partitions`` (vanishingly unlikely) gets ``p`` itself,
    which only unbalances the partitions."""
    found: dict[int, int] = {}
    for row in spark.range(0, 64 * partitions).select(
        "id", F.expr(f"pmod(hash(id), {partitions})").alias("p")
    ).collect():
        found.setdefault(row["p"], row["id"])
    return [found.get(p, p) for p in range(partitions)]


class _Files:
    """Sentence-record files read by the tasks themselves (JSON Lines, plain or compressed):
    byte ranges of about ``split_bytes`` of each uncompressed file, one task per compressed
    file. Spark only schedules the tasks and moves what they return."""

    def __init__(self, spark: SparkSession, paths: Sequence[str], split_bytes: int):
        self.spark = spark
        self.tasks = _native.sentence_tasks([str(p) for p in paths], split_bytes)

    def _frame(self) -> DataFrame:
        n = max(len(self.tasks), 1)
        return self.spark.range(0, len(self.tasks), numPartitions=n)

    def keys(self, params: DedupParams, tags: list[int]) -> DataFrame:
        tasks, args, shingle = self.tasks, params.signer_args(), params.shingle
        lo, hi = params.min_shingles, params.max_shingles if params.max_shingles > 0 else 1 << 62

        def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            signer = _signer(args)
            for batch in batches:
                for task in batch.column("id").to_pylist():
                    path, start, end = tasks[task]
                    yield _keys_batch(
                        tags, task,
                        *_native.sentence_keys(
                            signer, shingle, lo, hi, len(tags), path=path, start=start, end=end
                        ),
                    )

        return self._frame().mapInArrow(run, _BLOB_SCHEMA)

    def words(self, params: DedupParams) -> DataFrame:
        tasks, stem = self.tasks, params.stem
        lo, hi = params.min_shingles, params.max_shingles if params.max_shingles > 0 else 1 << 62

        def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            for batch in batches:
                for task in batch.column("id").to_pylist():
                    path, start, end = tasks[task]
                    yield _words_batch(
                        *_native.record_words(stem, lo, hi, path=path, start=start, end=end)
                    )

        return self._frame().mapInArrow(run, _WORDS_SCHEMA)

    def members(self, assignment: "_Assignment") -> DataFrame:
        tasks, a = self.tasks, assignment

        def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            for batch in batches:
                for task in batch.column("id").to_pylist():
                    path, start, end = tasks[task]
                    yield a.member_batch(*_native.member_lines(
                        a.ids, a.clusters, a.bounds, path=path, start=start, end=end
                    ))

        return self._frame().mapInArrow(run, _MEMBER_SCHEMA)


class _Documents:
    """Documents (Wikipedia dumps, JSON Lines documents, WARC/WET, plain text; compressed or
    not), one read task per input file, each reading, cleaning and splitting its file as ``textreuse
    dedup`` does (in parallel inside the task) under provisional sentence ids, and writing its
    kept sentences as sentence records to ``work`` for stage 6; once every file's document count
    is known, the ids become ``textreuse dedup``'s (``seq << 32 | idx``, ``seq`` counting the
    documents of all files in order)."""

    def __init__(self, spark: SparkSession, paths: Sequence[str], work: str, split_bytes: int):
        self.spark, self.work, self.split_bytes = spark, work, split_bytes
        self.files = _native.input_files([str(p) for p in paths])
        self.records: list[str] = []
        self.bases = b""

    def keys(self, params: DedupParams, tags: list[int]) -> DataFrame:
        files, work, args, shingle = self.files, self.work, params.signer_args(), params.shingle
        unit = params.unit
        lo, hi = params.min_shingles, params.max_shingles if params.max_shingles > 0 else (1 << 64) - 1

        def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            import uuid

            signer = _signer(args)
            for batch in batches:
                for f in batch.column("id").to_pylist():
                    records = os.path.join(work, f"{f:06d}-{uuid.uuid4().hex}.jsonl")
                    blobs, documents, sentences, problems, messages = _native.document_keys(
                        signer, shingle, lo, hi, len(tags), files[f], f, records, unit
                    )
                    counts = dict(
                        documents=documents, sentences=sentences, problems=problems,
                        messages=messages, records=records,
                    )
                    yield _blob_batch(
                        [tags[p] for p, _, _ in blobs] + [tags[f % len(tags)]],
                        [_KEYS] * len(blobs) + [_DOCS],
                        [n for _, n, _ in blobs] + [f],
                        [b for _, _, b in blobs] + [json.dumps(counts).encode()],
                    )

        n = max(len(files), 1)
        return self.spark.range(0, len(files), numPartitions=n).mapInArrow(run, _BLOB_SCHEMA)

    def words(self, params: DedupParams) -> DataFrame:
        files, work, stem, shingle, unit = self.files, self.work, params.stem, params.shingle, params.unit
        lo, hi = params.min_shingles, params.max_shingles if params.max_shingles > 0 else (1 << 64) - 1

        def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            import uuid

            for batch in batches:
                for f in batch.column("id").to_pylist():
                    records = os.path.join(work, f"{f:06d}-{uuid.uuid4().hex}.jsonl")
                    ids, offsets, data, documents, sentences, problems, messages = (
                        _native.document_words(stem, shingle, lo, hi, files[f], f, records, unit)
                    )
                    counts = dict(
                        file=f, documents=documents, sentences=sentences, problems=problems,
                        messages=messages, records=records,
                    )
                    yield _words_batch(ids, offsets, data, sentences, b"", json.dumps(counts))

        n = max(len(files), 1)
        return self.spark.range(0, len(files), numPartitions=n).mapInArrow(run, _WORDS_SCHEMA)

    def read(self, files: dict[int, dict]) -> dict:
        """Takes the files' counts (by file index): the records to read again, the id bases;
        returns the totals."""
        counts = [files[f] for f in range(len(self.files))]
        self.records = [c["records"] for c in counts]
        bases = np.concatenate([[0], np.cumsum([c["documents"] for c in counts])[:-1]])
        self.bases = bases.astype("<u8").tobytes()
        return dict(
            documents=sum(c["documents"] for c in counts),
            sentences=sum(c["sentences"] for c in counts),
            input_problems=sum(c["problems"] for c in counts),
            messages=[m for c in counts for m in c["messages"]],
        )

    def members(self, assignment: "_Assignment") -> DataFrame:
        tasks = _native.sentence_tasks(self.records, self.split_bytes)
        a, bases = assignment, self.bases

        def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            for batch in batches:
                for task in batch.column("id").to_pylist():
                    path, start, end = tasks[task]
                    yield a.member_batch(*_native.member_lines(
                        a.ids, a.clusters, a.bounds, path=path, start=start, end=end, bases=bases
                    ))

        n = max(len(tasks), 1)
        return self.spark.range(0, len(tasks), numPartitions=n).mapInArrow(run, _MEMBER_SCHEMA)


class _Text:
    """Sentence-record files on storage the Rust reader cannot open (``s3a://``, ``hdfs://``):
    Spark reads them as lines (``spark.read.text``, which splits and decompresses), and the
    kernels parse the lines as the file reader's tasks do."""

    def __init__(self, spark: SparkSession, paths: Sequence[str]):
        self.lines = spark.read.option("lineSep", "\n").text(list(paths))

    def keys(self, params: DedupParams, tags: list[int]) -> DataFrame:
        args, shingle = params.signer_args(), params.shingle
        lo, hi = params.min_shingles, params.max_shingles if params.max_shingles > 0 else 1 << 62

        def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            signer = _signer(args)
            for i, batch in enumerate(batches):
                lines, large = kernels._string_parts(batch.column("value"), "value")
                yield _keys_batch(
                    tags, i,
                    *_native.sentence_keys(
                        signer, shingle, lo, hi, len(tags), lines=lines, large=large
                    ),
                )

        return self.lines.mapInArrow(run, _BLOB_SCHEMA)

    def words(self, params: DedupParams) -> DataFrame:
        stem = params.stem
        lo, hi = params.min_shingles, params.max_shingles if params.max_shingles > 0 else 1 << 62

        def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            for batch in batches:
                lines, large = kernels._string_parts(batch.column("value"), "value")
                yield _words_batch(
                    *_native.record_words(stem, lo, hi, lines=lines, large=large)
                )

        return self.lines.mapInArrow(run, _WORDS_SCHEMA)

    def members(self, assignment: "_Assignment") -> DataFrame:
        a = assignment

        def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            for batch in batches:
                lines, large = kernels._string_parts(batch.column("value"), "value")
                yield a.member_batch(*_native.member_lines(
                    a.ids, a.clusters, a.bounds, lines=lines, large=large
                ))

        return self.lines.mapInArrow(run, _MEMBER_SCHEMA)


class _Frame:
    """Sentence records in a DataFrame (Parquet files, or a DataFrame given): Spark's columnar
    readers hand the columns to the kernels as Arrow batches."""

    def __init__(self, df: DataFrame):
        self.df = sentence_frame(df)

    def keys(self, params: DedupParams, tags: list[int]) -> DataFrame:
        args, shingle, bands = params.signer_args(), params.shingle, params.bands
        lo, hi = params.min_shingles, params.max_shingles if params.max_shingles > 0 else 1 << 62
        parts = len(tags)
        tag_of = np.array(tags, dtype=np.int64)

        def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            signer = _signer(args)
            for batch in batches:
                ids = batch.column("id").to_numpy(zero_copy_only=False).astype(np.uint64)
                shingles = batch.column("shingles").fill_null(-1).to_numpy()
                keep = (shingles >= lo) & (shingles <= hi)
                text = batch.column("text").filter(pa.array(keep))
                rows, keys = kernels.band_key_records(signer, text, shingle)
                kept_ids = ids[keep][rows.to_numpy()]
                keys = keys.to_numpy()
                part = ((keys >> np.uint64(32)) * np.uint64(parts)) >> np.uint64(32)
                order = np.argsort(part, kind="stable")
                part, records = part[order], np.empty((len(keys), 2), dtype="<u8")
                records[:, 0], records[:, 1] = keys[order], kept_ids[order]
                cuts = np.flatnonzero(np.diff(part)) + 1
                starts = np.concatenate([[0], cuts]).astype(np.int64)
                ends = np.concatenate([cuts, [len(part)]]).astype(np.int64)
                used = [(int(part[s]), s, e) for s, e in zip(starts, ends) if e > s]
                seqs = np.unique((ids >> np.uint64(32)).astype("<u4"))
                yield _blob_batch(
                    [int(tag_of[p]) for p, _, _ in used] + [tags[0]],
                    [_KEYS] * len(used) + [_READ],
                    [e - s for _, s, e in used] + [len(ids)],
                    [records[s:e].tobytes() for _, s, e in used] + [seqs.tobytes()],
                )

        return self.df.select("id", "text", "shingles").mapInArrow(run, _BLOB_SCHEMA)

    def words(self, params: DedupParams) -> DataFrame:
        stem = params.stem
        lo, hi = params.min_shingles, params.max_shingles if params.max_shingles > 0 else 1 << 62

        def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            for batch in batches:
                ids = batch.column("id").to_numpy(zero_copy_only=False).astype(np.uint64)
                shingles = batch.column("shingles").fill_null(-1).to_numpy()
                keep = (shingles >= lo) & (shingles <= hi)
                text = batch.column("text").filter(pa.array(keep)).cast(pa.large_string())
                parts, large = kernels._string_parts(text, "text")
                offsets, data = _native.unit_words(stem, parts, large)
                seqs = np.unique((ids >> np.uint64(32)).astype("<u4"))
                yield _words_batch(
                    ids[keep].astype("<u8").tobytes(), offsets, data, len(ids), seqs.tobytes()
                )

        return self.df.select("id", "text", "shingles").mapInArrow(run, _WORDS_SCHEMA)

    def members(self, assignment: "_Assignment") -> DataFrame:
        spark = self.df.sparkSession
        a = assignment
        ids = np.frombuffer(a.ids, dtype="<u8").astype(np.int64)
        clusters = np.frombuffer(a.clusters, dtype="<u8").astype(np.int64)
        assigned = spark.createDataFrame(pa.table({"id": ids, "cluster": clusters}))
        doc_is_string = F.col("doc_str").isNotNull()
        record = F.to_json(F.struct(
            "id",
            F.coalesce("doc_str", F.col("doc_int").cast("string")).alias("doc"),
            doc_is_string.alias("doc_is_string"),
            "source", "record", "revision", "timestamp", "url", "title",
            F.col("id").bitwiseAND(0xFFFFFFFF).alias("idx"),
            "start", "end", F.lit(0).alias("shingles"), "text",
        ))
        joined = self.df.join(F.broadcast(assigned), "id").select(
            "cluster", "id", record.alias("line")
        )

        def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
            for batch in batches:
                yield a.tagged(batch)

        return joined.mapInArrow(run, _MEMBER_SCHEMA)


@dataclasses.dataclass
class _Assignment:
    """Stage 5's result on the driver: every clustered id with its cluster (little-endian
    u64, sorted by id), and the output ranges: ``bounds`` are the first cluster ids of the
    ranges (about equal numbers of members each), ``tags`` their partition tags."""

    ids: bytes
    clusters: bytes
    bounds: bytes
    tags: list[int]

    @staticmethod
    def of(ids: bytes, clusters: bytes, tags: list[int]) -> "_Assignment":
        c = np.sort(np.frombuffer(clusters, dtype="<u8"))
        if len(c):
            # Range r starts at the cluster holding its share of the members.
            at = (np.arange(len(tags)) * len(c)) // len(tags)
            bounds = np.unique(c[at])
        else:
            bounds = np.zeros(1, dtype="<u8")
        bounds[0] = 0
        return _Assignment(ids, clusters, bounds.astype("<u8").tobytes(), tags)

    def _tags(self, ranges: np.ndarray) -> pa.Array:
        return pa.array(np.asarray(self.tags, dtype=np.int64)[ranges])

    def member_batch(self, ranges, clusters, ids, offsets, data) -> pa.RecordBatch:
        n = len(ids) // 8
        lines = pa.Array.from_buffers(
            pa.large_string(), n, [None, pa.py_buffer(offsets), pa.py_buffer(data)]
        )
        return pa.RecordBatch.from_arrays(
            [
                self._tags(np.frombuffer(ranges, dtype="<u4")),
                pa.array(np.frombuffer(clusters, dtype="<u8").view(np.int64)),
                pa.array(np.frombuffer(ids, dtype="<u8").view(np.int64)),
                lines.cast(pa.string()),
            ],
            names=["part", "cluster", "id", "line"],
        )

    def tagged(self, batch: pa.RecordBatch) -> pa.RecordBatch:
        cluster = batch.column("cluster").to_numpy(zero_copy_only=False).astype(np.uint64)
        bounds = np.frombuffer(self.bounds, dtype="<u8")
        ranges = np.searchsorted(bounds, cluster, side="right") - 1
        return pa.RecordBatch.from_arrays(
            [self._tags(ranges), batch.column("cluster"), batch.column("id"), batch.column("line")],
            names=["part", "cluster", "id", "line"],
        )


def _sources(spark: SparkSession, inputs, params: DedupParams, work: str) -> list:
    """Where the records come from: documents (``params.documents``) read by one task per
    file; Parquet files and directories (and a DataFrame) through Spark's columnar reader,
    URIs (``scheme://``) as lines Spark reads, and every other path read by the tasks
    themselves."""
    if params.documents:
        if isinstance(inputs, DataFrame):
            raise ValueError("documents are read from files; a DataFrame holds sentence records")
        return [_Documents(spark, inputs, work, params.split_bytes)]
    if isinstance(inputs, DataFrame):
        return [_Frame(inputs)]
    paths = [str(p) for p in inputs]
    parquet = [p for p in paths if p.endswith(".parquet") or os.path.isdir(p)]
    remote = [p for p in paths if p not in parquet and "://" in p]
    files = [p for p in paths if p not in parquet and p not in remote]
    sources: list = []
    if files:
        sources.append(_Files(spark, files, params.split_bytes))
    if remote:
        sources.append(_Text(spark, remote))
    if parquet:
        sources.append(_Frame(spark.read.parquet(*parquet)))
    return sources


def _bucket_pairs(params: DedupParams):
    """Stages 3-4 in a shuffle partition: its band-key records through the library's shuffle
    (star pairs, or with the edit filter the pairs of each bucket's first ``max_bucket`` ids);
    the read counts pass through."""
    all_pairs, max_bucket, budget = params.max_edit is not None, params.max_bucket, params.task_work_mem

    def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        buckets = _native.BucketPairs(max_bucket, all_pairs, budget)
        for batch in batches:
            kinds = batch.column("kind").to_pylist()
            blobs = batch.column("blob")
            passed = [i for i, k in enumerate(kinds) if k != _KEYS]
            for i, k in enumerate(kinds):
                if k == _KEYS:
                    buckets.push(blobs[i].as_buffer())
            if passed:
                yield batch.take(pa.array(passed, pa.int64()))
        pairs, counts = buckets.finish()
        step = 1 << 22  # 4 MiB rows
        chunks = [pairs[i : i + step] for i in range(0, len(pairs), step)]
        yield _blob_batch(
            [0] * (len(chunks) + 1),
            [_PAIRS] * len(chunks) + [_BUCKETS],
            [len(c) // 16 for c in chunks] + [0],
            chunks + [np.array(counts, dtype="<u8").tobytes()],
        )

    return run


def _pairs_frame(spark: SparkSession, pairs: bytes) -> DataFrame:
    p = np.frombuffer(pairs, dtype="<u8").reshape(-1, 2).astype(np.int64)
    return spark.createDataFrame(pa.table({"a": p[:, 0], "b": p[:, 1]}))


def _add_summary(total: dict, s: dict) -> None:
    """Adds the counts ``s`` of some clusters to ``total``."""
    for key in ("clusters", "clustered", "duplicates", "distinct_texts", "article_pair_links"):
        total[key] = total.get(key, 0) + s[key]
    for key in ("sizes", "types", "article_pair_links_above"):
        into = total.setdefault(key, {})
        for k, v in s[key].items():
            into[k] = into.get(k, 0) + v


def _format_range(params: DedupParams, tags: list[int], chunks_dir: str):
    """Stage 8 in an output range (rows sorted by cluster and id): the library's clusters,
    formatted in chunks and written to two files of this task attempt in ``chunks_dir`` (a
    retried task writes new files; the driver joins only the files of the rows it received).
    A cluster may straddle two Arrow batches: the rows of the last cluster of a batch wait for
    the next."""
    args, shingle, keep, verify = params.signer_args(), params.shingle, params.keep, params.verify
    threshold = params.threshold
    range_of = {t: r for r, t in enumerate(tags)}

    def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        import uuid

        signer = _signer(args)
        pending, part, files = None, None, None
        summary: dict = {}
        articles = []
        contradictions = []

        def flush(table: pa.Table):
            cluster = table.column("cluster").combine_chunks()
            parts, large = kernels._string_parts(table.column("line").combine_chunks(), "line")
            for text, duplicates, counts, arts, found in _native.cluster_chunk(
                signer, shingle, keep, verify, threshold,
                kernels._int64_parts(cluster, "cluster"), parts, large,
            ):
                files[0].write(text)
                files[1].write(duplicates)
                _add_summary(summary, json.loads(counts))
                articles.append(arts)
                contradictions.append(found)

        with contextlib.ExitStack() as stack:
            for batch in batches:
                if batch.num_rows == 0:
                    continue
                if files is None:
                    part = batch.column("part")[0].as_py()
                    stem = os.path.join(chunks_dir, f"{range_of[part]:05d}-{uuid.uuid4().hex}")
                    files = [
                        stack.enter_context(open(f"{stem}.{name}", "wb"))
                        for name in ("clusters", "duplicates")
                    ]
                table = pa.Table.from_batches([batch.select(["cluster", "line"])])
                if pending is not None:
                    table = pa.concat_tables([pending, table])
                cluster = table.column("cluster")
                last = cluster[table.num_rows - 1]
                tail = table.num_rows
                while tail > 0 and cluster[tail - 1] == last:
                    tail -= 1
                pending = table.slice(tail)
                if tail > 0:
                    flush(table.slice(0, tail))
            if pending is not None and pending.num_rows:
                flush(pending)
        if files is not None:
            yield pa.RecordBatch.from_arrays(
                [
                    pa.array([range_of[part]], pa.int32()),
                    pa.array([files[0].name]), pa.array([files[1].name]),
                    pa.array([json.dumps(summary)]), pa.array(["".join(articles)]),
                    pa.array(["".join(contradictions)]),
                ],
                names=[
                    "range", "clusters_path", "duplicates_path", "summary", "articles",
                    "contradictions",
                ],
            )

    return run


def _dedup(spark, inputs, out_dir, params, log, input_stats, projection=None) -> dict:
    """:func:`run_dedup` writing into ``out_dir`` directly, with a work directory (the
    documents' sentence records, the output ranges' files) removed at the end."""
    if params.chunks_dir:
        os.makedirs(params.chunks_dir, exist_ok=True)
    work = tempfile.mkdtemp(prefix=".textreuse-work-", dir=params.chunks_dir or out_dir)
    try:
        return _stages(spark, inputs, out_dir, params, log, input_stats, work, projection)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _minhash_pairs(spark, sources, params, tags, partitions, stats, seconds, log, input_stats) -> bytes:
    """Stages 1-5 of MinHash: the distinct candidate pairs (little-endian u64 ``(a, b)``), the
    counts filled into ``stats``."""
    # Stages 1-4, one Spark job: the tasks read, filter and sign their sentences and route each
    # band-key record to the partition of its key; each partition makes its buckets' pairs.
    started = time.monotonic()
    keyed = sources[0].keys(params, tags)
    for other in sources[1:]:
        keyed = keyed.unionByName(other.keys(params, tags))
    buckets = keyed.repartition(partitions, "part").mapInArrow(_bucket_pairs(params), _BLOB_SCHEMA)
    rows = buckets.toArrow()
    kinds = rows.column("kind").to_numpy()
    ns = rows.column("n").to_numpy()
    blobs = rows.column("blob").to_pylist()
    pick = lambda kind: [b for b, k in zip(blobs, kinds) if k == kind]  # noqa: E731
    sentences = int(ns[kinds == _READ].sum())
    seqs = [np.frombuffer(b, dtype="<u4") for b in pick(_READ)]
    documents = len(np.unique(np.concatenate(seqs))) if seqs else 0
    counts = np.zeros(4, dtype=np.uint64)
    for b in pick(_BUCKETS):
        counts += np.frombuffer(b, dtype="<u8")
    band_key_records, bucket_count, capped, left_out = (int(x) for x in counts)
    stats["documents"] = documents
    stats["sentences"] = sentences
    stats["sentences_kept"] = band_key_records // params.bands
    stats["input_problems"] = 0
    if params.documents:
        docs = sources[0].read(
            {int(n): json.loads(b) for b, n, k in zip(blobs, ns, kinds) if k == _DOCS}
        )
        _document_counts(stats, docs, log)
    elif input_stats:
        _input_counts(stats, sentences, input_stats)
    stats["band_key_records"] = band_key_records
    seconds["sentences_and_signatures"] = time.monotonic() - started
    log(
        f"stages 1-4: {stats['documents']} documents, {stats['sentences']} sentences, "
        f"{stats['sentences_kept']} kept, {band_key_records} band-key records "
        f"in {seconds['sentences_and_signatures']:.1f}s"
    )

    # Stage 5 on the driver: the distinct pairs.
    started = time.monotonic()
    pair_blobs = pick(_PAIRS)
    if params.documents:
        pair_blobs = [_native.real_ids(b, sources[0].bases) for b in pair_blobs]
    pairs = _native.distinct_pairs(pair_blobs)
    del pair_blobs
    del blobs, rows
    stats["buckets"] = bucket_count
    stats["buckets_capped"] = capped
    stats["bucket_ids_left_out"] = left_out
    stats["candidate_pairs"] = len(pairs) // 16
    stats["pairs_after_edit_filter"] = stats["candidate_pairs"]
    stats["bytes_spilled"] = 0
    seconds["shuffle_and_clusters"] = time.monotonic() - started
    return pairs


def _document_counts(stats: dict, docs: dict, log) -> None:
    """``documents``, ``sentences`` and ``input_problems`` of ``stats`` from the read tasks'
    counts of the input documents (``DedupParams(documents=True)``); their problems logged."""
    for key in ("documents", "sentences", "input_problems"):
        stats[key] = docs[key]
    for message in docs["messages"]:
        log(message)


def _input_counts(stats: dict, sentences: int, input_stats: Sequence[str]) -> None:
    """``documents``, ``sentences`` and ``input_problems`` of ``stats`` from the extractor's
    counts, checked against the ``sentences`` records read."""
    extracted = [json.loads(open(p, encoding="utf-8").read()) for p in input_stats]
    for key in ("documents", "sentences", "input_problems"):
        stats[key] = sum(e[key] for e in extracted)
    if stats["sentences"] != sentences:
        raise ValueError(
            f"the input stats count {stats['sentences']} sentences but the inputs hold "
            f"{sentences}: were they extracted with a shingle filter? Use "
            "`textreuse sentences --min-shingles 0 --max-shingles 0`"
        )


# One unit signer per Python worker process and signer (building one reads the vectors and
# draws the hyperplanes).
_UNIT_SIGNERS: dict = {}


def _sign_units(signer_bytes: bytes, key: str):
    """Stage 2 of the random projection in a task: each unit's mean word vector signed
    (``_native.UnitSigner`` of ``signer_bytes``, whose digest is ``key``); units without a
    known word have no row. The bytes travel with the task's function, which PySpark
    broadcasts when it is larger than 1 MB (``spark.broadcast.UDFCompressionThreshold``), and
    which needs no ``SparkContext`` (Spark Connect)."""

    def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        signer = _UNIT_SIGNERS.get(key)
        if signer is None:
            signer = _UNIT_SIGNERS[key] = _native.UnitSigner(signer_bytes)
        width = signer.signature_bytes
        for batch in batches:
            words, large = kernels._string_parts(batch.column("words"), "words")
            ids, sigs = signer.sign(kernels._int64_parts(batch.column("id"), "id"), words, large)
            yield pa.RecordBatch.from_arrays(
                [pa.array(np.frombuffer(ids, dtype="<u8").view(np.int64)), _fixed_binary(sigs, width)],
                names=["id", "sig"],
            )

    return run


def _fixed_binary(data: bytes, width: int) -> pa.Array:
    """A binary array of the ``width``-byte values ``data`` holds back to back."""
    n = len(data) // width
    offsets = (np.arange(n + 1, dtype=np.int32) * width).tobytes()
    return pa.Array.from_buffers(pa.binary(), n, [None, pa.py_buffer(offsets), pa.py_buffer(data)])


def _fixed_binary_bytes(arr: pa.Array | pa.ChunkedArray, width: int) -> bytes:
    """The values of a binary array of ``width``-byte values, back to back (no nulls)."""
    if isinstance(arr, pa.ChunkedArray):
        arr = arr.combine_chunks()
    if len(arr) == 0:
        return b""
    if arr.null_count:
        raise ValueError("a binary column of signatures or keys holds nulls")
    _, offsets, data = arr.buffers()
    at = np.frombuffer(offsets, dtype=np.int32)[arr.offset : arr.offset + len(arr) + 1]
    if at[-1] - at[0] != len(arr) * width:
        raise ValueError(f"expected {width}-byte values in a binary column")
    return data.to_pybytes()[at[0] : at[-1]]


def _window_keys(args: dict):
    """The window search's sort keys of the distinct signatures: ``Q`` rows each."""

    def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        keys = _native.WindowKeys(**args)
        width = keys.key_bytes
        for batch in batches:
            if batch.num_rows == 0:
                continue
            q, k = keys.keys(_fixed_binary_bytes(batch.column("sig"), width))
            reps = batch.column("rep").to_numpy(zero_copy_only=False)
            yield pa.RecordBatch.from_arrays(
                [
                    pa.array(np.frombuffer(q, dtype="<i4")), _fixed_binary(k, width),
                    pa.array(np.tile(reps, args["permutations"]).astype(np.int64)),
                ],
                names=["q", "key", "rep"],
            )

    return run


def _partition_rows(batches: Iterable[pa.RecordBatch]) -> pa.Table | None:
    """The rows of a sorted partition (``q``, ``key``, ``rep``) as one table, or None."""
    kept = [b for b in batches if b.num_rows]
    return pa.Table.from_batches(kept).combine_chunks() if kept else None


#: The window search's sorted rows: permutation, permuted signature as a sort key, unit id.
_WINDOW_ROWS = "q int, key binary, rep long"


def _window_heads(window: int):
    """Each sorted partition's first ``window`` rows (``last`` false) and its last row
    (``last`` true): what the other partitions need to finish their windows, and the ranges
    the driver checks."""

    def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        rows = _partition_rows(batches)
        if rows is None:
            return
        picked = pa.concat_tables([rows.slice(0, window), rows.slice(rows.num_rows - 1)])
        last = [False] * (picked.num_rows - 1) + [True]
        yield pa.RecordBatch.from_arrays(
            [*(c.combine_chunks() for c in picked.columns), pa.array(last)],
            names=["q", "key", "rep", "last"],
        )

    return run


def _window_pairs(args: dict, heads: tuple):
    """The window pairs of a sorted partition: its rows and, after them, the first rows of the
    partitions that follow (``heads``, see :func:`_heads`)."""

    def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        import bisect

        rows = _partition_rows(batches)
        if rows is None:
            return
        keys = _native.WindowKeys(**args)
        width = keys.key_bytes
        head_keys, head_q, head_key_bytes, head_reps = heads
        n = rows.num_rows
        q = rows.column("q").to_numpy()
        key = _fixed_binary_bytes(rows.column("key"), width)
        last = (int(q[-1]), key[-width:])
        at = bisect.bisect_right(head_keys, last)
        tail = slice(at, at + args["window"])
        pairs = keys.pairs(
            q.astype("<i4").tobytes() + head_q[tail].astype("<i4").tobytes(),
            key + b"".join(head_key_bytes[tail]),
            rows.column("rep").to_numpy().astype("<u8").tobytes()
            + head_reps[tail].astype("<u8").tobytes(),
            n,
        )
        yield pa.RecordBatch.from_arrays([pa.array([pairs], pa.binary())], names=["blob"])

    return run


def _projection_pairs(
    spark, sources, params, projection, partitions, stats, seconds, log, input_stats
) -> bytes:
    """Stages 1-5 of Meng and Zheng's random projection (``method="rp-embed"``), as ``textreuse
    dedup --method rp-embed`` runs them: the distinct candidate pairs (little-endian u64
    ``(a, b)``), the counts filled into ``stats``.

    1. The tasks read, filter and clean their units (``words``); the frame is kept.
    2. The driver gets the word vectors: read from ``params.vectors`` (once, by
       :func:`run_dedup` before anything else: ``projection``), or trained on
       every kept unit's words collected in id order (the CLI's corpus: the one single-machine
       step, holding the corpus as the CLI does, about 4 bytes a word); with given vectors only
       the vocabulary comes to the driver, counted by Spark (each word's first sighting, by unit
       id and position, decides its place, as in the CLI's corpus). It makes the
       :class:`UnitSigner` of the run's vocabulary (the vectors of its words, the center), whose
       bytes go to the tasks with their function (broadcast by PySpark when large).
    3. The tasks sign their units.
    4. Units with equal signatures are grouped: each group's later members pair with its first
       (the smallest id), and the window search runs over the groups' first members, as the
       library does. For each permutation, Spark sorts the permuted signatures globally
       (``repartitionByRange`` on ``(q, key)``); each partition scans its rows with the first
       ``window`` rows of the partitions after it (collected from every partition, shipped
       with the tasks' function). This finds exactly the pairs of the single-machine search.
    5. The pairs come to the driver.
    """
    started = time.monotonic()
    frame = sources[0].words(params)
    for other in sources[1:]:
        frame = frame.unionByName(other.words(params))
    frame = frame.persist()
    try:
        counts = frame.where(F.col("id").isNull()).select("sentences", "seqs", "counts").toArrow()
        units = frame.where(F.col("id").isNotNull()).select("id", "words")
        kept = units.count()
        sentences = int(counts.column("sentences").to_numpy().sum())
        seqs = [np.frombuffer(b, dtype="<u4") for b in counts.column("seqs").to_pylist()]
        stats["documents"] = len(np.unique(np.concatenate(seqs))) if seqs else 0
        stats["sentences"] = sentences
        stats["input_problems"] = 0
        if params.documents:
            # Ids are provisional (file, document, unit) until the files' document counts are
            # known; they are in the same order as the CLI's, so the vocabulary's first-seen
            # order and the training corpus are the CLI's, and the pairs are mapped at the end.
            files = [json.loads(c) for c in counts.column("counts").to_pylist()]
            docs = sources[0].read({c["file"]: c for c in files})
            _document_counts(stats, docs, log)
        elif input_stats:
            _input_counts(stats, sentences, input_stats)
        stats["sentences_kept"] = kept
        stats["band_key_records"] = kept

        if projection.vectors == "trained":
            table = units.toArrow().sort_by("id")
            words = table.column("words").cast(pa.large_string()).combine_chunks()
            del table
            signer, vocabulary, known, dim, training = projection.unit_signer_trained(
                *kernels._string_parts(words, "words")
            )
            del words
        else:
            exploded = units.select("id", F.posexplode(F.split("words", " ")).alias("pos", "word"))
            counted = (
                exploded.where(F.col("word") != "")
                .groupBy("word")
                .agg(F.min(F.struct("id", "pos")).alias("first"), F.count(F.lit(1)).alias("n"))
                .select("word", F.col("first.id").alias("id"), F.col("first.pos").alias("pos"), "n")
                .toArrow()
                .sort_by([("id", "ascending"), ("pos", "ascending")])
            )
            words = counted.column("word").cast(pa.large_string()).combine_chunks()
            signer, vocabulary, known, dim, training = projection.unit_signer_counted(
                *kernels._string_parts(words, "word"),
                kernels._int64_parts(counted.column("n"), "n"),
            )
        log(
            f"random projection: {known} of {vocabulary} words with a vector "
            f"({projection.vectors}), the unit signer is {len(signer) >> 10} KiB"
        )
        key = hashlib.sha256(signer).hexdigest()
        sigs = units.mapInArrow(_sign_units(signer, key), "id long, sig binary").persist()
        signed = sigs.count()  # while the words are cached: the inputs are read once
    finally:
        frame.unpersist()
    try:
        seconds["sentences_and_signatures"] = time.monotonic() - started
        stats["projection"] = dict(
            vectors=projection.vectors, dim=dim, stemmed=params.stem, centered=params.center,
            bits=params.projection_bits, permutations=params.permutations, window=params.window,
            max_hamming=params.max_hamming, seed=params.seed, vocabulary=vocabulary,
            words_with_vector=known, units_without_vector=kept - signed, training_seconds=training,
        )
        log(
            f"stages 1-2: {stats['documents']} documents, {stats['sentences']} sentences, "
            f"{kept} kept, {signed} signed in {seconds['sentences_and_signatures']:.1f}s"
        )

        started = time.monotonic()
        reps = sigs.groupBy("sig").agg(F.min("id").alias("rep"))
        star = (
            sigs.join(reps, "sig").where(F.col("id") != F.col("rep"))
            .select(F.col("rep").alias("a"), F.col("id").alias("b")).toArrow()
        )
        star_pairs = np.empty((star.num_rows, 2), dtype="<u8")
        star_pairs[:, 0] = star.column("a").to_numpy()
        star_pairs[:, 1] = star.column("b").to_numpy()
        blobs = [star_pairs.tobytes()]
        args = dict(
            bits=params.projection_bits, permutations=params.permutations, window=params.window,
            max_hamming=params.max_hamming, seed=params.seed,
        )
        ordered = (
            reps.mapInArrow(_window_keys(args), _WINDOW_ROWS)
            .repartitionByRange(partitions, "q", "key")
            .sortWithinPartitions("q", "key")
            .persist()
        )
        try:
            heads = ordered.mapInArrow(
                _window_heads(params.window), "q int, key binary, rep long, last boolean"
            ).toArrow()
            found = ordered.mapInArrow(_window_pairs(args, _heads(heads)), "blob binary").toArrow()
            blobs += found.column("blob").to_pylist()
        finally:
            ordered.unpersist()
    finally:
        sigs.unpersist()
    if params.documents:
        blobs = [_native.real_ids(b, sources[0].bases) for b in blobs]
    pairs = _native.distinct_pairs(blobs)
    stats["buckets"] = 0
    stats["buckets_capped"] = 0
    stats["bucket_ids_left_out"] = 0
    stats["candidate_pairs"] = len(pairs) // 16
    stats["pairs_after_edit_filter"] = stats["candidate_pairs"]
    stats["bytes_spilled"] = 0
    seconds["shuffle_and_clusters"] = time.monotonic() - started
    return pairs


def _heads(heads: pa.Table) -> tuple:
    """The partitions' first rows, sorted by ``(q, key)`` (keys as unsigned bytes, which is
    Python's order of ``bytes``), for the tasks to find the rows after their own; and a check
    that Spark's range partitions are ranges of that order (each partition's rows all before
    the next one's), without which the windows at the partitions' ends would be wrong."""
    rows = heads.to_pylist()
    parts: list = []
    first = None
    for r in rows:
        k = (r["q"], r["key"])
        if first is None:
            first = k
        if r["last"]:
            parts.append((first, k))
            first = None
    parts.sort()
    for (a_first, a_last), (b_first, _) in zip(parts, parts[1:]):
        if not a_last < b_first:
            raise RuntimeError(
                "Spark's range partitions of the window keys overlap: the sort order of binary "
                "keys is not the unsigned byte order this job needs"
            )
    picked = sorted({(r["q"], r["key"], r["rep"]) for r in rows if not r["last"]})
    return (
        [(q, k) for q, k, _ in picked],
        np.array([q for q, _, _ in picked], dtype=np.int32),
        [k for _, k, _ in picked],
        np.array([rep for _, _, rep in picked], dtype=np.int64),
    )


def _stages(spark, inputs, out_dir, params, log, input_stats, work, projection) -> dict:
    signer = _signer(params.signer_args())
    partitions = int(spark.conf.get("spark.sql.shuffle.partitions"))
    tags = partition_tags(spark, partitions)
    sources = _sources(spark, inputs, params, work)
    seconds = dict(
        sentences_and_signatures=0.0, shuffle_and_clusters=0.0, edit_filter=0.0,
        text_classify_write=0.0,
    )
    # The numbers of stats.json: `_native.dedup_stats_json` fills the dedup library's `Stats`
    # with them (it refuses a missing or unknown field) and writes it as the CLI does.
    stats: dict = dict(
        unit=params.unit, method=params.method, scheme=signer.scheme, hashes=signer.hashes,
        rows=signer.rows, bands=signer.bands, seed=signer.seed, min_shingles=params.min_shingles,
        threshold=params.threshold, verified=params.verify, keep=params.keep,
    )
    if params.method == "rp-embed":
        pairs = _projection_pairs(
            spark, sources, params, projection, partitions, stats, seconds, log, input_stats
        )
    else:
        pairs = _minhash_pairs(spark, sources, params, tags, partitions, stats, seconds, log, input_stats)
    started = time.monotonic()
    if params.max_edit is not None:
        nodes = np.unique(np.frombuffer(pairs, dtype="<u8")).astype("<u8").tobytes()
        texts = _members(sources, _Assignment.of(nodes, nodes, tags)).select(
            "id", F.get_json_object("line", "$.text").alias("text")
        )
        joined = _pairs_frame(spark, pairs).join(
            texts.select(F.col("id").alias("a"), F.col("text").alias("text_a")), "a"
        ).join(texts.select(F.col("id").alias("b"), F.col("text").alias("text_b")), "b")
        kept = joined.select("a", "b", "text_a", "text_b").mapInArrow(
            _edit_keep(params.max_edit), "a long, b long"
        ).toArrow()
        p = np.empty((kept.num_rows, 2), dtype="<u8")
        p[:, 0] = kept.column("a").to_numpy()
        p[:, 1] = kept.column("b").to_numpy()
        pairs = _native.distinct_pairs([p.tobytes()])
        stats["pairs_after_edit_filter"] = len(pairs) // 16
        seconds["edit_filter"] = time.monotonic() - started
        log(
            f"stage 7: {stats['pairs_after_edit_filter']} of {stats['candidate_pairs']} pairs "
            f"within edit distance {params.max_edit} in {seconds['edit_filter']:.1f}s"
        )
        started = time.monotonic()
    if len(pairs) // 16 <= params.driver_pairs_limit:
        ids, clusters = _native.pair_clusters(pairs)
    else:
        table = connected_components(spark, _pairs_frame(spark, pairs), 0).orderBy("id").toArrow()
        ids = table.column("id").to_numpy().astype("<u8").tobytes()
        clusters = table.column("cluster").to_numpy().astype("<u8").tobytes()
    assignment = _Assignment.of(ids, clusters, tags)
    del pairs
    seconds["shuffle_and_clusters"] += time.monotonic() - started
    if params.method == "minhash":
        log(
            f"stages 3-5: {stats['buckets']} buckets ({stats['buckets_capped']} capped, "
            f"{stats['bucket_ids_left_out']} ids left out), "
            f"{stats['candidate_pairs']} candidate pairs in {seconds['shuffle_and_clusters']:.1f}s"
        )
    else:
        log(
            f"stages 3-5: {stats['candidate_pairs']} candidate pairs in "
            f"{seconds['shuffle_and_clusters']:.1f}s"
        )

    # Stages 6 and 8: the tasks read the clustered sentences again, each goes to the partition
    # of its output range, is formatted there, and the chunks are written in parallel; the
    # driver then joins them into the files in order.
    started = time.monotonic()
    chunks_dir = tempfile.mkdtemp(prefix="ranges-", dir=work)
    try:
        ranges = (
            _members(sources, assignment)
            .repartition(partitions, "part")
            .sortWithinPartitions("cluster", "id")
            .mapInArrow(_format_range(params, tags, chunks_dir), _RANGE_SCHEMA)
            .toArrow()
            .sort_by("range")
            .to_pylist()
        )
        summary = _merge_ranges(ranges, out_dir, params.max_article_pairs)
    finally:
        shutil.rmtree(chunks_dir, ignore_errors=True)
    stats["clusters"] = summary.get("clusters", 0)
    stats["clustered_sentences"] = summary.get("clustered", 0)
    stats["duplicates"] = summary.get("duplicates", 0)
    stats["distinct_articles"] = summary["distinct_articles"]
    stats["cluster_size_histogram"] = {int(k): v for k, v in summary.get("sizes", {}).items()}
    stats["types"] = {t: summary.get("types", {}).get(t, 0) for t in CLUSTER_TYPES}
    stats["distinct_clustered_texts"] = summary.get("distinct_texts", 0)
    stats["article_pair_links"] = summary.get("article_pair_links", 0)
    stats["article_pair_links_above"] = {
        int(k): v for k, v in summary.get("article_pair_links_above", {}).items()
    }
    stats["article_chains"] = json.loads(summary["article_chains"])
    seconds["text_classify_write"] = time.monotonic() - started
    stats["seconds"] = seconds
    text = _native.dedup_stats_json(stats)
    _write_files([os.path.join(out_dir, "stats.json")], lambda f: f.write(text))
    return json.loads(text)


def _members(sources: list, assignment: _Assignment) -> DataFrame:
    frame = sources[0].members(assignment)
    for other in sources[1:]:
        frame = frame.unionByName(other.members(assignment))
    return frame


def _append(dst, path: str) -> None:
    """Appends the file at ``path`` to the open binary file ``dst`` (in the kernel where the
    system can)."""
    with open(path, "rb") as src:
        size = os.fstat(src.fileno()).st_size
        dst.flush()
        at = 0
        try:
            while at < size:
                sent = os.sendfile(dst.fileno(), src.fileno(), at, size - at)
                if sent == 0:
                    break
                at += sent
        except OSError:
            src.seek(at)
            shutil.copyfileobj(src, dst, 1 << 20)


def _merge_ranges(ranges: list[dict], out_dir: str, max_article_pairs: int) -> dict:
    """Joins the files of the output ranges, in range order, into ``clusters.jsonl`` and
    ``duplicates.jsonl`` (the CLI's files byte for byte), writes ``article-pairs.tsv`` and
    ``contradictions.jsonl`` (ranked), and sums the counts."""
    summary: dict = {}
    for r in ranges:
        _add_summary(summary, json.loads(r["summary"]))
    for name, column in (("clusters.jsonl", "clusters_path"), ("duplicates.jsonl", "duplicates_path")):
        with open(os.path.join(out_dir, name), "wb") as f:
            for r in ranges:
                _append(f, r[column])
    tsv, summary["distinct_articles"], summary["article_chains"] = _native.article_pairs_tsv(
        [r["articles"] for r in ranges], max_article_pairs
    )
    _write_files([os.path.join(out_dir, "article-pairs.tsv")], lambda f: f.write(tsv))
    ranked = _native.rank_contradictions([r["contradictions"] for r in ranges])
    _write_files([os.path.join(out_dir, "contradictions.jsonl")], lambda f: f.write(ranked))
    return summary
