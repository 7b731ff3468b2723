"""The Spark reuse job against `textreuse reuse` on the bundled samples, in local[2]."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from spark_support import REPO, assert_same_outputs, SKIPPED_INPUTS, java_available, run_cli, session

pytestmark = pytest.mark.skipif(not java_available(), reason="Spark needs Java (java not found)")

#: stats.json fields that describe how a run went, not what it found.
RUN_ONLY = {"seconds", "index_blocks"}


@pytest.fixture(scope="module")
def spark():
    s = session("local[2]")
    yield s
    s.stop()


@pytest.fixture(scope="module")
def documents(tmp_path_factory) -> tuple[Path, Path]:
    """The bundled samples as two JSON Lines files (`textreuse extract`), the first with a blank
    line and a line that is not a document, which both sides must skip alike."""
    d = tmp_path_factory.mktemp("reuse-docs")
    extracted = d / "all.jsonl"
    with open(extracted, "wb") as f:
        dumps = [str(REPO / "data" / n) for n in ("enwiki-sample-206.xml.bz2", "enwiki-part-201.xml.bz2")]
        run_cli("extract", "-q", *dumps, stdout=f, status=SKIPPED_INPUTS)
    lines = extracted.read_text(encoding="utf-8").splitlines(keepends=True)
    assert len(lines) > 200
    half = len(lines) // 2
    first, second = d / "first.jsonl", d / "second.jsonl"
    first.write_text(
        "".join(lines[:10]) + "\n" + '{"title": "no id"}\n' + "".join(lines[10:half]),
        encoding="utf-8",
    )
    second.write_text("".join(lines[half:]), encoding="utf-8")
    return first, second


def cli_reuse(out: Path, *args: str, status: int = 0) -> None:
    run_cli("reuse", "-q", "--out", str(out), *args, status=status)


def assert_same_reuse(cli: Path, spark: Path) -> dict:
    """The Spark run's outputs are the CLI's. Returns the stats."""
    names = ("reuse.jsonl", "pairs.tsv", "documents.tsv")
    return assert_same_outputs(cli, spark, names, RUN_ONLY)


def test_reuse_within_the_samples_equals_the_cli(spark, documents, tmp_path):
    from textreuse.spark import ReuseParams, run_reuse

    first, second = documents
    cli_reuse(tmp_path / "cli", str(first), str(second), status=SKIPPED_INPUTS)
    # Small splits: several partitions per file, whose documents must be numbered in order.
    spark.conf.set("spark.sql.files.maxPartitionBytes", str(1 << 20))
    try:
        stats = run_reuse(spark, [str(first), str(second)], str(tmp_path / "spark"), ReuseParams())
    finally:
        spark.conf.unset("spark.sql.files.maxPartitionBytes")
    same = assert_same_reuse(tmp_path / "cli", tmp_path / "spark")
    assert stats["input_problems"] == 1
    assert same["cases"] > 100 and same["candidate_pairs"] > 1000
    # Provenance: the file and line of each document.
    line = json.loads((tmp_path / "spark" / "reuse.jsonl").read_text().splitlines()[0])
    assert line["suspicious"]["source"] in (str(first), str(second))
    assert line["suspicious"]["record"] >= 1


def test_reuse_against_another_corpus_equals_the_cli(spark, documents, tmp_path):
    from textreuse.spark import ReuseParams, run_reuse

    first, second = documents
    params = ReuseParams(min_score=0.2, top_docs=3, lang="auto")
    cli_reuse(
        tmp_path / "cli", str(second), "--against", str(first), "--min-score", "0.2",
        "--top-docs", "3", "--lang", "auto", status=SKIPPED_INPUTS,
    )
    run_reuse(spark, [str(second)], str(tmp_path / "spark"), params, against=[str(first)])
    stats = assert_same_reuse(tmp_path / "cli", tmp_path / "spark")
    assert stats["against_documents"] > 0 and stats["cases"] > 0
    assert stats["lang"] == "auto"


def test_candidates_only_lists_the_cli_candidates(spark, documents, tmp_path):
    from textreuse.spark import ReuseParams, run_reuse

    first, _ = documents
    cli_reuse(tmp_path / "cli", str(first), "--candidates-only", "--terms", "10",
              status=SKIPPED_INPUTS)
    stats = run_reuse(spark, [str(first)], str(tmp_path / "spark"),
                      ReuseParams(candidates_only=True, terms=10))
    assert_same_reuse(tmp_path / "cli", tmp_path / "spark")
    assert stats["cases"] == 0 and stats["candidate_pairs"] > 0


def test_reuse_command_line(documents, tmp_path):
    import subprocess
    import sys

    first, _ = documents
    done = subprocess.run(
        [sys.executable, "-m", "textreuse.spark", "reuse", str(first), "--out",
         str(tmp_path / "out"), "--master", "local[1]", "--min-score", "2"],
        capture_output=True, text=True,
    )
    assert done.returncode == 2 and "min_score" in done.stderr
