"""The Spark backend against `textreuse dedup` on the bundled samples, in local[2]."""

from __future__ import annotations

import random

import pytest

from spark_support import assert_same_outputs, java_available, session

pytestmark = pytest.mark.skipif(not java_available(), reason="Spark needs Java (java not found)")

@pytest.fixture(scope="module")
def spark():
    s = session("local[2]")
    yield s
    s.stop()


def test_same_clusters_as_the_cli(spark, samples, tmp_path):
    from textreuse.spark import DedupParams, run_dedup

    d, sentences, counts = samples
    stats = run_dedup(spark, [str(sentences)], str(tmp_path), DedupParams(), input_stats=[str(counts)])
    assert_same_outputs(d / "cli", tmp_path)
    assert stats["clusters"] > 1000
    assert sum(stats["types"].values()) == stats["clusters"]


def test_dataframe_components_give_the_same_clusters(spark, samples, tmp_path):
    from textreuse.spark import DedupParams, run_dedup

    d, sentences, counts = samples
    # driver_pairs_limit=0 forces large-star/small-star in DataFrames.
    run_dedup(spark, [str(sentences)], str(tmp_path), DedupParams(driver_pairs_limit=0),
        input_stats=[str(counts)],
    )
    assert_same_outputs(d / "cli", tmp_path)


def test_edit_filter_matches_the_cli(spark, samples, tmp_path):
    from textreuse.spark import DedupParams, run_dedup

    d, sentences, counts = samples
    stats = run_dedup(spark, [str(sentences)], str(tmp_path), DedupParams(max_edit=0.25),
        input_stats=[str(counts)],
    )
    assert_same_outputs(d / "cli-edit", tmp_path)
    assert stats["pairs_after_edit_filter"] <= stats["candidate_pairs"]


def test_large_star_small_star_equals_union_find(spark):
    from textreuse.spark.components import in_dataframes, on_driver

    rng = random.Random(7)
    for nodes, edges in [(40, 25), (200, 180), (500, 300)]:
        pairs = sorted(
            {tuple(sorted(rng.sample(range(1, nodes + 1), 2))) for _ in range(edges)}
        )
        # A long path too: the worst case for label propagation.
        pairs += [(1000 + i, 1001 + i) for i in range(30)]
        df = spark.createDataFrame(pairs, "a long, b long")
        expected = sorted(map(tuple, on_driver(spark, df).collect()))
        got = sorted(map(tuple, in_dataframes(spark, df).collect()))
        assert got == expected
        # Cluster ids are smallest members: every cluster id labels itself.
        labels = dict(expected)
        assert all(labels[c] == c for c in labels.values())


def test_command_line_errors(tmp_path):
    # Parameter errors are reported before Spark starts (the end-to-end run of the entry point
    # is in test_spark_cluster.py, against a standalone cluster).
    from textreuse.spark.__main__ import main

    assert main(["dedup", "x.jsonl", "--bits", "0", "--out", str(tmp_path)]) == 2
    with pytest.raises(SystemExit):
        main(["dedup"])
