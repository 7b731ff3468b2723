"""The dedup pipeline of ``textreuse dedup`` on Apache Spark (and the reuse job of
``textreuse reuse``: :mod:`textreuse.spark.reuse`, :func:`run_reuse`).

Spark supplies the cluster manager, the spilling sort-based shuffle, task retry and stage
re-execution; the Rust kernels of :mod:`textreuse.kernels` do the per-record work inside
``mapInArrow``. Only the DataFrame API is used (no RDDs), so the job also runs over Spark
Connect.

Input: sentence records as ``textreuse sentences --min-shingles 0 --max-shingles 0`` writes them
(JSON Lines, or Parquet with the same columns; see :data:`~textreuse.spark.dedup.SENTENCE_SCHEMA`
and :func:`~textreuse.spark.dedup.sentence_frame`). ``id`` is ``seq << 32 | idx``, the id
``textreuse dedup`` gives the sentence, so both produce the same cluster ids; ``doc`` (with
``doc_is_string``), ``source``, ``record``, ``revision``, ``timestamp`` and the character
offsets ``start``/``end`` are what a member of ``clusters.jsonl`` shows.

Stages (see :func:`run_dedup`):

1. filter the sentences by shingle count (as the CLI does);
2. ``mapInArrow`` band keys (:func:`textreuse.kernels.band_key_records`; its uint64 keys are
   stored in a LongType column as the same 64 bits, ``keys.view(pa.int64())``: Spark has no
   unsigned type, and the keys are only grouped on);
3. ``groupBy(key)``: buckets, sorted and de-duplicated ids;
4. star pairs (never capped), or with ``max_edit`` all pairs of each bucket's first
   ``max_bucket`` ids (the ids left out counted in ``bucket_ids_left_out``), ``distinct``;
5. connected components: union-find on the driver when the pairs fit
   (``driver_pairs_limit``), otherwise large-star/small-star rounds in DataFrames;
6. join back to text; 7. ``mapInArrow`` edit-distance filter (optional, re-clustering);
8. ``mapInArrow`` classification, scoring (representative by ``keep``, similarities with the
   run's signer, exact Jaccard with ``verify``) and formatting
   (:func:`textreuse.kernels.cluster_lines`, the same Rust functions ``textreuse dedup`` uses),
   then the driver writes ``clusters.jsonl`` and ``duplicates.jsonl`` (ordered by cluster id),
   ``stats.json`` and ``article-pairs.tsv``.

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
