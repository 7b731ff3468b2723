"""The Spark reuse job against `textreuse reuse`, in local[2]: the bundled samples as JSON Lines
and as dumps, compressed JSON Lines with plain text, a WARC file against a directory."""

from __future__ import annotations

import gzip
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from spark_support import (
    REPO, SKIPPED_INPUTS, assert_same_outputs, java_available, run_cli, session, textreuse_bin,
)

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
    names = ("reuse.jsonl", "pairs.tsv", "documents.tsv", "corpus.json")
    return assert_same_outputs(cli, spark, names, RUN_ONLY)


def test_reuse_within_the_samples_equals_the_cli(spark, documents, tmp_path):
    from textreuse.spark import ReuseParams, run_reuse

    first, second = documents
    cli_reuse(tmp_path / "cli", str(first), str(second), status=SKIPPED_INPUTS)
    stats = run_reuse(spark, [str(first), str(second)], str(tmp_path / "spark"), ReuseParams())
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
    params = ReuseParams(min_score=0.2, top_docs=3, lang="auto", fallback_ngram=4, synonyms=False)
    cli_reuse(
        tmp_path / "cli", str(second), "--against", str(first), "--min-score", "0.2",
        "--top-docs", "3", "--lang", "auto", "--fallback-ngram", "4", "--synonyms", "off",
        status=SKIPPED_INPUTS,
    )
    run_reuse(spark, [str(second)], str(tmp_path / "spark"), params, against=[str(first)])
    stats = assert_same_reuse(tmp_path / "cli", tmp_path / "spark")
    assert stats["against_documents"] > 0 and stats["cases"] > 0
    assert stats["lang"] == "auto" and stats["fallback_ngram"] == 4 and stats["synonyms"] is False


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


DUMPS = [str(REPO / "data" / n) for n in ("enwiki-sample-206.xml.bz2", "enwiki-part-201.xml.bz2")]
CHECK = REPO / "testdata" / "check"


def test_reuse_reads_the_dumps_as_the_cli(spark, tmp_path):
    from textreuse.spark import ReuseParams, run_reuse

    # Fewer candidates than the defaults: the reading is what is tested.
    cli_reuse(tmp_path / "cli", *DUMPS, "--min-score", "0.2", "--top-docs", "3",
              status=SKIPPED_INPUTS)
    stats = run_reuse(spark, DUMPS, str(tmp_path / "spark"), ReuseParams(min_score=0.2, top_docs=3))
    same = assert_same_reuse(tmp_path / "cli", tmp_path / "spark")
    # The 2013 dump is damaged on purpose: the damage is skipped, the rest read.
    assert stats["input_problems"] >= 1
    assert same["documents"] > 200 and same["cases"] > 0
    # The dumps' provenance: the file, the revision and its timestamp.
    line = json.loads((tmp_path / "spark" / "reuse.jsonl").read_text().splitlines()[0])
    assert line["suspicious"]["source"] in DUMPS and "record" not in line["suspicious"]
    assert line["suspicious"]["revision"] > 0 and line["suspicious"]["timestamp"]


def test_reuse_reads_warc_against_a_directory(spark, tmp_path):
    from textreuse.spark import ReuseParams, run_reuse

    warc = str(REPO / "testdata" / "warc" / "pages.warc.gz")
    cli_reuse(tmp_path / "cli", warc, "--against", str(CHECK / "corpus"), "--min-length", "100")
    stats = run_reuse(spark, [warc], str(tmp_path / "spark"), ReuseParams(min_length=100),
                      against=[str(CHECK / "corpus")])
    same = assert_same_reuse(tmp_path / "cli", tmp_path / "spark")
    assert stats["input_problems"] == 0
    assert (same["documents"], same["against_documents"]) == (2, 3) and same["cases"] > 0
    # Plain-text ids are the files' positions on their side: b-bees.txt is the second file.
    pairs = (tmp_path / "spark" / "pairs.tsv").read_text().splitlines()[1:]
    assert any(row.split("\t")[2:4] == ["2", "b-bees"] for row in pairs), pairs


def test_reuse_command_line_reads_gzip_json_lines_and_text(tmp_path):
    """Compressed JSON Lines with a bad line and a plain-text file, given together: the same
    outputs and skipped line as the CLI's, and its exit status 3."""
    docs = tmp_path / "corpus.jsonl.gz"
    with gzip.open(docs, "wt", encoding="utf-8") as f:
        for i, path in enumerate(sorted((CHECK / "corpus").iterdir())):
            f.write(json.dumps(dict(id=f"c{i}", title=path.stem, text=path.read_text())) + "\n")
            if i == 0:
                f.write('{"title": "no id"}\n')
    inputs = [str(docs), str(CHECK / "suspicious.txt")]

    cli = subprocess.run(
        [textreuse_bin(), "reuse", *inputs, "--min-length", "100", "--out", str(tmp_path / "cli")],
        stderr=subprocess.PIPE, text=True,
    )
    assert cli.returncode == SKIPPED_INPUTS, cli.stderr
    spark = subprocess.run(
        [sys.executable, "-m", "textreuse.spark", "reuse", *inputs, "--min-length", "100",
         "--out", str(tmp_path / "spark"), "--master", "local[2]",
         "--conf", "spark.ui.enabled=false", "--conf", "spark.driver.host=127.0.0.1",
         "--conf", "spark.driver.bindAddress=127.0.0.1"],
        stderr=subprocess.PIPE, text=True, env=dict(os.environ, PYSPARK_PYTHON=sys.executable),
    )
    assert spark.returncode == SKIPPED_INPUTS, spark.stderr[-4000:]
    stats = assert_same_reuse(tmp_path / "cli", tmp_path / "spark")
    assert stats["documents"] == 4 and stats["cases"] > 0

    def skipped(stderr: str, prefix: str) -> list[str]:
        return [l.removeprefix(prefix) for l in stderr.splitlines() if l.startswith(prefix + "skipped: ")]

    assert skipped(spark.stderr, "textreuse.spark: ") == skipped(cli.stderr, "textreuse: ")
    assert len(skipped(cli.stderr, "textreuse: ")) == 1
