"""Connected components of a pair DataFrame: union-find on the driver when the pairs fit,
otherwise large-star/small-star rounds (Kiveris et al., "Connected Components in MapReduce and
Beyond", SoCC 2014) in DataFrames.

Both return a DataFrame ``(id long, cluster long)`` with one row per node that appears in a
pair, ``cluster`` being the smallest id of the node's component, so the two give identical
results (the tests check it).
"""

from __future__ import annotations

import pyarrow as pa
from pyspark.sql import DataFrame, SparkSession
from pyspark.sql import functions as F

from .. import kernels

SCHEMA = "id long, cluster long"


def on_driver(spark: SparkSession, pairs: DataFrame) -> DataFrame:
    """Collects ``pairs (a, b)`` to the driver as Arrow and unions them with the Rust
    union-find (:func:`textreuse.kernels.connected_components`)."""
    table = pairs.select("a", "b").toArrow()
    a = table.column("a").combine_chunks() if table.num_rows else pa.array([], pa.int64())
    b = table.column("b").combine_chunks() if table.num_rows else pa.array([], pa.int64())
    ids, clusters = kernels.connected_components(a, b)
    result = pa.table({"id": ids, "cluster": clusters})
    return spark.createDataFrame(result.to_pandas(), SCHEMA)


def _large_star(edges: DataFrame) -> DataFrame:
    # Every edge both ways; each node u links its larger neighbours to min(u, neighbours).
    sym = edges.unionByName(edges.select(F.col("v").alias("u"), F.col("u").alias("v")))
    mins = sym.groupBy("u").agg(F.min("v").alias("m"))
    return (
        sym.join(mins, "u")
        .where(F.col("v") > F.col("u"))
        .select(F.col("v").alias("u"), F.least("u", "m").alias("v"))
        .distinct()
    )


def _small_star(edges: DataFrame) -> DataFrame:
    # Every edge pointing down (u > v); each node u links itself and its smaller neighbours to
    # the smallest of them.
    down = edges.select(F.greatest("u", "v").alias("u"), F.least("u", "v").alias("v")).where(
        F.col("u") != F.col("v")
    )
    mins = down.groupBy("u").agg(F.min("v").alias("m"))
    linked = down.join(mins, "u").select(F.col("v").alias("u"), F.col("m").alias("v"))
    return (
        linked.unionByName(mins.select("u", F.col("m").alias("v")))
        .where(F.col("u") != F.col("v"))
        .distinct()
    )


def _cut(spark: SparkSession, df: DataFrame) -> DataFrame:
    # A reliable checkpoint (survives lost executors) when a checkpoint directory is set,
    # otherwise a local one (cached on the executors: a lost executor fails the job).
    if spark.sparkContext.getCheckpointDir():
        return df.checkpoint()
    return df.localCheckpoint()


def in_dataframes(spark: SparkSession, pairs: DataFrame, max_rounds: int = 64) -> DataFrame:
    """Large-star/small-star rounds until the edge set stops changing; then every edge is
    ``(node, smallest node of its component)``. Each round is checkpointed so the plan does not
    grow with the number of rounds: set ``spark.sparkContext.setCheckpointDir`` (on a cluster,
    to shared storage) for checkpoints that survive a lost executor."""
    edges = _cut(spark, pairs.select(F.col("a").alias("u"), F.col("b").alias("v")).distinct())
    for _ in range(max_rounds):
        new = _cut(spark, _small_star(_large_star(edges)))
        changed = new.exceptAll(edges).limit(1).count() + edges.exceptAll(new).limit(1).count()
        edges = new
        if changed == 0:
            break
    else:
        raise RuntimeError(
            f"connected components did not converge in {max_rounds} rounds; "
            "raise max_rounds or use the driver union-find"
        )
    roots = edges.select(F.col("v").alias("id")).distinct().select("id", F.col("id").alias("cluster"))
    return edges.select(F.col("u").alias("id"), F.col("v").alias("cluster")).unionByName(roots)


def connected_components(
    spark: SparkSession, pairs: DataFrame, driver_pairs_limit: int, pair_count: int | None = None
) -> DataFrame:
    """Union-find on the driver when ``pair_count <= driver_pairs_limit``, otherwise
    large-star/small-star in DataFrames."""
    if pair_count is None:
        pair_count = pairs.count()
    if pair_count <= driver_pairs_limit:
        return on_driver(spark, pairs)
    return in_dataframes(spark, pairs)
