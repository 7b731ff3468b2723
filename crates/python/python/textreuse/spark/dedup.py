"""The stages of ``textreuse dedup`` as Spark DataFrame operations (see the package docs)."""

from __future__ import annotations

import contextlib
import dataclasses
import json
import os
import time
from typing import Iterable, Iterator, Sequence

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
#: offsets. ``source``, ``record``, ``revision`` and ``timestamp`` are null where the document
#: has none.
SENTENCE_SCHEMA = T.StructType(
    [
        T.StructField("id", T.LongType()),
        T.StructField("doc", T.StringType()),
        T.StructField("doc_is_string", T.BooleanType()),
        T.StructField("source", T.StringType()),
        T.StructField("record", T.LongType()),
        T.StructField("revision", T.LongType()),
        T.StructField("timestamp", T.StringType()),
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
    "source", "record", "revision", "timestamp", "start", "end",
)

#: The columns of a cluster member (the kernel's input besides ``cluster``).
_MEMBER_COLUMNS = tuple(c for c in COLUMNS if c != "shingles")

#: The representative rules of ``textreuse dedup --keep``.
KEEP_RULES = ("first", "earliest", "longest")

#: The cluster types, in the order `textreuse dedup` counts them.
CLUSTER_TYPES = ("identical", "template", "copyedit", "factual_drift", "reference", "other")


#: The defaults of ``textreuse dedup``, read from the Rust libraries that define them.
_DEFAULTS = _native.DEFAULTS


@dataclasses.dataclass(frozen=True)
class DedupParams:
    """The parameters of ``textreuse dedup`` (same names and defaults), plus Spark's own."""

    shingle: int = _DEFAULTS["shingle"]
    min_shingles: int = _DEFAULTS["min_shingles"]
    max_shingles: int = _DEFAULTS["max_shingles"]
    hashes: int = _DEFAULTS["hashes"]
    bits: int = _DEFAULTS["bits"]
    rows: int = _DEFAULTS["rows"]
    bands: int = _DEFAULTS["bands"]
    seed: int = _DEFAULTS["seed"]
    scheme: str = "drawn"
    max_bucket: int = _DEFAULTS["max_bucket"]
    max_edit: float | None = None
    max_article_pairs: int = _DEFAULTS["max_article_pairs"]
    #: Which member of a cluster is kept, the others listed in ``duplicates.jsonl``:
    #: ``"first"`` (first seen in input order), ``"earliest"`` (revision timestamp) or
    #: ``"longest"``, as ``textreuse dedup --keep``.
    keep: str = "first"
    #: Compute each member's exact Jaccard similarity to the kept one and leave members below
    #: ``(1/M)^(1/K)`` out of ``duplicates.jsonl`` (``textreuse dedup --verify``).
    verify: bool = False
    #: Connected components run on the driver (Rust union-find) when there are at most this
    #: many distinct pairs, otherwise as large-star/small-star rounds in DataFrames.
    driver_pairs_limit: int = 50_000_000

    def signer_args(self) -> dict:
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


def _band_keys(signer_args: dict, shingle: int):
    """The (key, id) records of stage 2. Spark has no unsigned 64-bit type, so the uint64 band
    keys of the kernel become the LongType column ``key`` here, and only here, by reinterpreting
    their 64 bits as int64 (a zero-copy view: keys of 2**63 and above read as negative). Keys
    are only grouped, compared for equality and counted, never ordered or written out, so the
    job's results stay byte-identical to ``textreuse dedup``'s."""

    def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        signer = _signer(signer_args)
        for batch in batches:
            rows, keys = kernels.band_key_records(signer, batch.column("text"), shingle)
            ids = batch.column("id").take(rows)
            yield pa.RecordBatch.from_arrays([keys.view(pa.int64()), ids], names=["key", "id"])

    return run


def _edit_keep(max_edit: float):
    def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        for batch in batches:
            keep = kernels.edit_keep(batch.column("text_a"), batch.column("text_b"), max_edit)
            yield batch.select(["a", "b"]).filter(keep)

    return run


def _cluster_lines(signer_args: dict, shingle: int, keep: str, verify: bool):
    """Formats the clusters of a partition whose rows are sorted by cluster. A cluster may
    straddle two Arrow batches: the rows of the last cluster of a batch wait for the next."""
    columns = ["cluster", *_MEMBER_COLUMNS]

    def lines(table: pa.Table) -> pa.RecordBatch:
        col = {c: table.column(c).combine_chunks() for c in columns}
        cluster, kind, size, line, duplicates = kernels.cluster_lines(
            col["cluster"], col["id"], col["doc_int"], col["title"], col["text"],
            doc_str=col["doc_str"], source=col["source"], record=col["record"],
            revision=col["revision"], timestamp=col["timestamp"], start=col["start"],
            end=col["end"], signer=_signer(signer_args), shingle=shingle, keep=keep,
            verify=verify,
        )
        return pa.RecordBatch.from_arrays(
            [cluster, kind, size, line, duplicates],
            names=["cluster", "type", "size", "line", "duplicates"],
        )

    def run(batches: Iterable[pa.RecordBatch]) -> Iterator[pa.RecordBatch]:
        pending = None
        for batch in batches:
            table = pa.Table.from_batches([batch.select(columns)])
            if pending is not None:
                table = pa.concat_tables([pending, table])
            if table.num_rows == 0:
                continue
            cluster = table.column("cluster")
            last = cluster[table.num_rows - 1]
            # Rows are sorted by cluster, so the last cluster's rows are the tail.
            tail = table.num_rows
            while tail > 0 and cluster[tail - 1] == last:
                tail -= 1
            pending = table.slice(tail)
            if tail > 0:
                yield lines(table.slice(0, tail))
        if pending is not None and pending.num_rows:
            yield lines(pending)

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


def read_sentences(spark: SparkSession, paths: Sequence[str]) -> DataFrame:
    """Sentence records from JSON Lines or Parquet files (by extension; a directory is
    Parquet), in the pipeline's columns (:func:`sentence_frame`)."""
    parquet = [p for p in paths if p.endswith(".parquet") or os.path.isdir(p)]
    jsonl = [p for p in paths if p not in parquet]
    frames = []
    if jsonl:
        frames.append(sentence_frame(spark.read.schema(SENTENCE_SCHEMA).json(jsonl)))
    if parquet:
        frames.append(sentence_frame(spark.read.parquet(*parquet)))
    df = frames[0]
    for other in frames[1:]:
        df = df.unionByName(other)
    return df


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


def _tsv(s: str) -> str:
    return s.replace("\t", " ").replace("\n", " ").replace("\r", " ")


def run_dedup(
    spark: SparkSession,
    inputs: Sequence[str] | DataFrame,
    out_dir: str,
    params: DedupParams = DedupParams(),
    log=lambda msg: None,
    input_stats: Sequence[str] = (),
) -> dict:
    """Runs the pipeline over sentence records and writes ``clusters.jsonl``,
    ``duplicates.jsonl``, ``stats.json`` and ``article-pairs.tsv`` into ``out_dir``, as
    ``textreuse dedup`` does. Returns the stats.

    ``inputs`` is a list of paths (JSON Lines or Parquet) or a DataFrame with the columns of
    :data:`SENTENCE_SCHEMA` (see :func:`sentence_frame`). ``input_stats`` are the files
    ``textreuse sentences --stats FILE`` wrote while extracting them: with them, ``documents``,
    ``sentences`` and ``input_problems`` are the extractor's counts (documents without any
    sentence included), otherwise they are counted from the records (documents with at least
    one sentence).

    ``out_dir`` is checked before any work and its files are replaced as one at the end
    (:func:`output_set`): a failed or interrupted run leaves the previous result.
    """
    if params.max_bucket < 2:
        raise ValueError("max_bucket must be at least 2")
    if params.keep not in KEEP_RULES:
        raise ValueError(f"keep must be one of {', '.join(KEEP_RULES)}, got {params.keep!r}")
    with output_set(out_dir, _native.DEDUP_OUTPUTS) as staging:
        return _dedup(spark, inputs, staging, params, log, input_stats)


def _dedup(spark, inputs, out_dir, params, log, input_stats) -> dict:
    """:func:`run_dedup` writing into ``out_dir`` directly."""
    signer = _signer(params.signer_args())
    if isinstance(inputs, DataFrame):
        sentences = sentence_frame(inputs)
    else:
        sentences = read_sentences(spark, list(inputs))
    seconds = dict(
        sentences_and_signatures=0.0, shuffle_and_clusters=0.0, edit_filter=0.0,
        text_classify_write=0.0,
    )
    # The fields of the CLI's stats.json, in its order.
    stats: dict = dict(
        unit="sentence", method="minhash", scheme=signer.scheme, hashes=signer.hashes,
        rows=signer.rows, bands=signer.bands, seed=signer.seed, min_shingles=params.min_shingles,
        threshold=None, verified=params.verify, keep=params.keep,
    )

    # Stages 1-2.
    started = time.monotonic()
    max_shingles = params.max_shingles if params.max_shingles > 0 else (1 << 62)
    totals = sentences.agg(
        F.count(F.lit(1)).alias("sentences"),
        F.countDistinct(F.shiftright("id", 32)).alias("documents"),
    ).first()
    kept = (
        sentences.where(F.col("shingles").between(params.min_shingles, max_shingles))
        .select(*_MEMBER_COLUMNS)
        .persist()
    )
    records = kept.select("id", "text").mapInArrow(
        _band_keys(params.signer_args(), params.shingle), "key long, id long"
    ).persist()
    stats["documents"] = totals["documents"]
    stats["sentences"] = totals["sentences"]
    band_key_records = records.count()
    stats["sentences_kept"] = band_key_records // params.bands
    stats["input_problems"] = 0
    if input_stats:
        extracted = [json.loads(open(p, encoding="utf-8").read()) for p in input_stats]
        for key in ("documents", "sentences", "input_problems"):
            stats[key] = sum(e[key] for e in extracted)
        if stats["sentences"] != totals["sentences"]:
            raise ValueError(
                f"the input stats count {stats['sentences']} sentences but the inputs hold "
                f"{totals['sentences']}: were they extracted with a shingle filter? Use "
                "`textreuse sentences --min-shingles 0 --max-shingles 0`"
            )
    stats["band_key_records"] = band_key_records
    seconds["sentences_and_signatures"] = time.monotonic() - started
    log(
        f"stages 1-2: {stats['documents']} documents, {stats['sentences']} sentences, "
        f"{stats['sentences_kept']} kept, {band_key_records} band-key records "
        f"in {seconds['sentences_and_signatures']:.1f}s"
    )

    # Stages 3-4: buckets of sorted distinct ids; star pairs (never capped), or all pairs of the
    # first max_bucket ids with the edit filter (the ids left out counted); distinct.
    started = time.monotonic()
    all_pairs = params.max_edit is not None
    cap = params.max_bucket if all_pairs else None
    buckets = records.groupBy("key").agg(F.array_sort(F.collect_set("id")).alias("ids"))
    buckets = buckets.select(
        F.size("ids").alias("n"),
        (F.slice("ids", 1, cap) if cap is not None else F.col("ids")).alias("ids"),
    ).persist()
    over = F.col("n") > cap if cap is not None else F.lit(False)
    bucket_counts = buckets.agg(
        F.count(F.lit(1)).alias("buckets"),
        F.sum(F.when(over, 1).otherwise(0)).alias("capped"),
        F.sum(F.when(over, F.col("n") - F.lit(cap or 0)).otherwise(0)).alias("left_out"),
    ).first()
    stats["buckets"] = bucket_counts["buckets"]
    stats["buckets_capped"] = bucket_counts["capped"] or 0
    stats["bucket_ids_left_out"] = bucket_counts["left_out"] or 0
    if not all_pairs:
        pairs = buckets.where(F.col("n") > 1).select(
            F.col("ids")[0].alias("a"), F.explode(F.expr("slice(ids, 2, size(ids))")).alias("b")
        )
    else:
        pairs = (
            buckets.where(F.col("n") > 1)
            .select("ids", F.posexplode("ids").alias("i", "a"))
            .select("a", F.explode(F.slice("ids", F.col("i") + 2, params.max_bucket)).alias("b"))
        )
    pairs = pairs.distinct().persist()
    stats["candidate_pairs"] = pairs.count()
    stats["pairs_after_edit_filter"] = stats["candidate_pairs"]
    stats["bytes_spilled"] = 0
    records.unpersist()
    buckets.unpersist()

    # Stage 7 (before clustering: only the pairs that pass are unioned).
    if params.max_edit is not None:
        seconds["shuffle_and_clusters"] = time.monotonic() - started
        started = time.monotonic()
        texts = kept.select("id", "text")
        joined = pairs.join(
            texts.select(F.col("id").alias("a"), F.col("text").alias("text_a")), "a"
        ).join(texts.select(F.col("id").alias("b"), F.col("text").alias("text_b")), "b")
        filtered = joined.select("a", "b", "text_a", "text_b").mapInArrow(
            _edit_keep(params.max_edit), "a long, b long"
        ).persist()
        stats["pairs_after_edit_filter"] = filtered.count()
        pairs.unpersist()
        pairs = filtered
        seconds["edit_filter"] = time.monotonic() - started
        log(
            f"stage 7: {stats['pairs_after_edit_filter']} of {stats['candidate_pairs']} pairs "
            f"within edit distance {params.max_edit} in {seconds['edit_filter']:.1f}s"
        )
        started = time.monotonic()

    # Stage 5.
    assignment = connected_components(
        spark, pairs, params.driver_pairs_limit, stats["pairs_after_edit_filter"]
    ).persist()
    assignment.count()
    pairs.unpersist()
    seconds["shuffle_and_clusters"] += time.monotonic() - started
    log(
        f"stages 3-5: {stats['buckets']} buckets ({stats['buckets_capped']} capped, "
        f"{stats['bucket_ids_left_out']} ids left out), "
        f"{stats['candidate_pairs']} candidate pairs in {seconds['shuffle_and_clusters']:.1f}s"
    )

    # Stages 6 and 8, outputs.
    started = time.monotonic()
    members = assignment.join(kept, "id").persist()
    clusters = (
        members.repartition("cluster")
        .sortWithinPartitions("cluster", "id")
        .mapInArrow(
            _cluster_lines(params.signer_args(), params.shingle, params.keep, params.verify),
            "cluster long, type string, size long, line string, duplicates string",
        )
        .persist()
    )
    os.makedirs(out_dir, exist_ok=True)
    duplicates = 0

    def write_clusters(clusters_file, duplicates_file):
        nonlocal duplicates
        rows = clusters.orderBy("cluster").select("line", "duplicates").toLocalIterator()
        for row in rows:
            clusters_file.write(row["line"])
            clusters_file.write("\n")
            duplicates_file.write(row["duplicates"])
            duplicates += row["duplicates"].count("\n")

    _write_files(
        [os.path.join(out_dir, "clusters.jsonl"), os.path.join(out_dir, "duplicates.jsonl")],
        write_clusters,
    )

    summary = clusters.agg(
        F.count(F.lit(1)).alias("clusters"), F.sum("size").alias("clustered")
    ).first()
    stats["clusters"] = summary["clusters"]
    stats["clustered_sentences"] = summary["clustered"] or 0
    stats["duplicates"] = duplicates
    stats["distinct_articles"] = members.select("doc_int", "doc_str").distinct().count()
    histogram = {r["size"]: r["count"] for r in clusters.groupBy("size").count().collect()}
    stats["cluster_size_histogram"] = {str(k): histogram[k] for k in sorted(histogram)}
    types = {t: 0 for t in CLUSTER_TYPES}
    for r in clusters.groupBy("type").count().collect():
        types[r["type"]] = r["count"]
    stats["types"] = {t: types[t] for t in sorted(types)}

    # article-pairs.tsv: article pairs ranked by shared clusters (clusters of at most 200
    # articles count), titles as the first member of each article in output order shows them.
    # Documents compare as the CLI's ids do: integers first (by value), then strings (by bytes).
    keyed = members.withColumn(
        "doc",
        F.struct(
            F.col("doc_str").isNotNull().alias("is_string"), F.col("doc_int"), F.col("doc_str")
        ),
    )
    cluster_docs = keyed.select("cluster", "doc").distinct()
    small = (
        cluster_docs.groupBy("cluster").count().where(F.col("count") <= 200).select("cluster")
    )
    docs = cluster_docs.join(small, "cluster")
    ranked = (
        docs.alias("x")
        .join(docs.alias("y"), "cluster")
        .where(F.col("x.doc") < F.col("y.doc"))
        .groupBy(F.col("x.doc").alias("a"), F.col("y.doc").alias("b"))
        .count()
        .orderBy(F.desc("count"), "a", "b")
        .limit(params.max_article_pairs)
        .collect()
    )
    titles = {
        r["doc"]: r["title"]
        for r in keyed.groupBy("doc")
        .agg(
            F.min_by(
                "title", F.struct("cluster", F.col("id").bitwiseAND(0xFFFFFFFF), "id")
            ).alias("title")
        )
        .collect()
    }

    def shown(doc) -> str:
        return doc["doc_str"] if doc["is_string"] else str(doc["doc_int"])

    def write_pairs(f):
        f.write("shared_clusters\tdoc_a\ttitle_a\tdoc_b\ttitle_b\n")
        for r in ranked:
            a, b = r["a"], r["b"]
            f.write(
                f"{r['count']}\t{shown(a)}\t{_tsv(titles[a])}\t{shown(b)}\t{_tsv(titles[b])}\n"
            )

    _write_files([os.path.join(out_dir, "article-pairs.tsv")], write_pairs)
    members.unpersist()
    clusters.unpersist()
    kept.unpersist()
    assignment.unpersist()
    seconds["text_classify_write"] = time.monotonic() - started
    stats["seconds"] = seconds

    def write_stats(f):
        json.dump(stats, f, indent=2, ensure_ascii=False)
        f.write("\n")

    _write_files([os.path.join(out_dir, "stats.json")], write_stats)
    return stats
