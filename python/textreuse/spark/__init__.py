"""The dedup pipeline of ``textreuse dedup`` on Apache Spark (and the reuse job of
``textreuse reuse``: :mod:`textreuse.spark.reuse`, :func:`run_reuse`).

Spark supplies the cluster manager, the spilling sort-based shuffle, task retry and stage
re-execution; the Rust kernels do all per-record work inside ``mapInArrow``, and Spark only
schedules tasks and moves compact binary records between them. Only the DataFrame API is used
(no RDDs), so the job also runs over Spark Connect.

Input: documents with ``DedupParams(documents=True)`` (Wikipedia dumps, JSON Lines documents,
plain text; compressed or not), one read task per file, read, cleaned and split as ``textreuse
dedup`` does; or sentence records as ``textreuse sentences --min-shingles 0 --max-shingles 0`` writes them
(JSON Lines files, plain or compressed, which the tasks read themselves; or Parquet with the same
columns, or a DataFrame; see :data:`~textreuse.spark.dedup.SENTENCE_SCHEMA` and
:func:`~textreuse.spark.dedup.sentence_frame`). ``id`` is ``seq << 32 | idx``, the id
``textreuse dedup`` gives the sentence, so both produce the same cluster ids; ``doc`` (with
``doc_is_string``), ``source``, ``record``, ``revision``, ``timestamp`` and the character
offsets ``start``/``end`` are what a member of ``clusters.jsonl`` shows.

Stages (see :func:`run_dedup` and ``docs/spark.md``):

1-2. each task reads an input file of documents (splitting it into sentences and writing their
   records for stage 6), or a byte range of a record file (a whole compressed file), filters by
   shingle count, signs, and returns its ``(band key, id)`` records packed in one blob per
   shuffle partition (the partition of a key's range);
3-4. ``repartition`` moves the blobs; each partition runs the library's shuffle (sort,
   buckets, star pairs, or with ``max_edit`` all pairs of each bucket's first ``max_bucket``
   ids, de-duplicated) and returns its pairs as blobs;
5. the driver de-duplicates the pairs and runs the union-find (large-star/small-star rounds in
   DataFrames beyond ``driver_pairs_limit`` pairs); 7. with ``max_edit``, the edit-distance
   filter on the pairs joined with their texts, then union-find again;
6. each task reads its range again and returns the records of clustered sentences, tagged with
   their output range (a range of cluster ids);
8. per output range (sorted by cluster and id), the library's clusters are built, scored and
   formatted (the same Rust functions ``textreuse dedup`` uses) and written to files in
   parallel; the driver joins the files in range order into ``clusters.jsonl`` and
   ``duplicates.jsonl``, ranks ``article-pairs.tsv`` with the library's ranking, and writes
   ``stats.json``.

With ``DedupParams(method="rp-embed")`` stages 1-5 are Meng and Zheng's random projection over
word embeddings instead: the tasks clean the kept units into words; the
driver reads the word vectors (``vectors``) or trains them on the kept units in id order, and
broadcasts the signer of the run's vocabulary; the tasks sign the units; equal signatures are
grouped, and the window search runs over a global sort per bit permutation, each partition
with the rows that follow it. Stages 5-8 are then MinHash's, and the outputs the CLI's.

Example::

    from pyspark.sql import SparkSession
    from textreuse.spark import DedupParams, run_dedup

    spark = SparkSession.builder.master("local[2]").getOrCreate()
    stats = run_dedup(spark, ["sentences.jsonl"], "textreuse-out", DedupParams())
"""

from .dedup import DedupParams, run_dedup
from .components import connected_components
from .reuse import ReuseParams, run_reuse

__all__ = ["DedupParams", "ReuseParams", "run_dedup", "run_reuse", "connected_components"]
