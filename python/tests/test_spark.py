"""The Spark backend against `textreuse dedup` on the bundled samples, in local[2]."""

from __future__ import annotations

import json
import random

import pytest

from spark_support import assert_same_outputs, java_available, run_cli, sentences, session

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
    assert 0 < stats["duplicates"] == stats["clustered_sentences"] - stats["clusters"]
    # The same page in the 2013 and the 2016 dump: two members with their own provenance.
    versions = 0
    for line in (tmp_path / "clusters.jsonl").read_text(encoding="utf-8").splitlines():
        by_doc = {}
        for m in json.loads(line)["members"]:
            by_doc.setdefault(m["doc"], []).append(m)
        for members in by_doc.values():
            if len({m["source"] for m in members}) == 2:
                assert len({(m["revision"], m["timestamp"]) for m in members}) == 2
                versions += 1
    assert versions > 100


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


def string_id_corpus(path):
    """JSON Lines documents with string ids ("a-1" style, and "12", which must stay a string
    next to the integer id 12), non-ASCII text (character offsets differ from byte offsets) and
    a blank line (records count lines). Planted: one sentence in four documents (identical), one
    in three with a word added in one (copyedit), and a template sentence in seven variants
    (those that cluster have an exact Jaccard below the --verify threshold)."""
    shared = (
        "The old watermill on the river Aare was built in 1820 by the Brügger family and "
        "still grinds grain for the village bakery."
    )
    edited = (
        "Die Brücke über den Fluss wurde im Jahr 1865 aus Sandstein gebaut und trägt bis heute "
        "die Straße nach Zürich."
    )
    longer = edited.replace("aus Sandstein", "aus hellem Sandstein")
    filler = [
        f"Sentence number {i} of this corpus says something nobody else says, though it says it "
        f"in the words of a template ({'é' * i})."
        for i in range(7)
    ]
    docs = [
        ("a-1", "Mühle", f"Çà et là. {shared} {filler[0]}"),
        ("a-2", "Mill", f"{filler[1]} {shared}"),
        ("12", "Zwölf (string)", f"{edited} {filler[2]} {shared}"),
        (12, "Twelve (number)", f"{filler[3]} {edited}"),
        ("b-10", "Brücke", f"Ünïcödé first. {longer} {filler[4]}"),
        (7, "Seven", f"{filler[5]} {filler[6]}"),
        ("a-1 copy", "Mühle", f"Çà et là. {shared} {filler[0]}"),
    ]
    lines = [json.dumps({"id": i, "title": t, "text": x}, ensure_ascii=False) for i, t, x in docs]
    path.write_text("\n".join(lines[:3]) + "\n\n" + "\n".join(lines[3:]) + "\n", encoding="utf-8")


@pytest.mark.parametrize(
    "flags",
    [[], ["--keep", "longest", "--verify"]],
    ids=["default", "longest-verified"],
)
def test_string_ids_give_the_same_outputs_as_the_cli(spark, tmp_path, flags):
    from textreuse.spark import DedupParams, run_dedup

    corpus = tmp_path / "corpus.jsonl"
    string_id_corpus(corpus)
    records, counts = sentences(tmp_path, str(corpus))
    assert any(json.loads(r).get("doc_is_string") for r in records.read_text().splitlines())
    run_cli("dedup", "-q", *flags, "--out", str(tmp_path / "cli"), str(corpus))
    params = DedupParams(keep="longest", verify=True) if flags else DedupParams()
    stats = run_dedup(spark, [str(records)], str(tmp_path / "spark"), params, input_stats=[str(counts)])
    assert_same_outputs(tmp_path / "cli", tmp_path / "spark")
    clusters = [json.loads(x) for x in (tmp_path / "spark" / "clusters.jsonl").read_text().splitlines()]
    docs = [[m["doc"] for m in c["members"]] for c in clusters]
    # Integer ids first, then strings by bytes; "12" and 12 are two documents.
    assert ["12", "a-1", "a-1 copy", "a-2"] in docs
    assert [12, "12", "b-10"] in docs
    assert stats["distinct_articles"] == 7 and stats["verified"] == bool(flags)
    # The summaries (equal to the CLI's, above): the filler sentences are one template across
    # the documents, so all seven articles make one chain; the copies of a-1 repeat texts.
    chains = stats["article_chains"]
    assert chains["chains"] == 1 and chains["largest"][0]["articles"] == 7, chains
    assert stats["distinct_clustered_texts"] < stats["clustered_sentences"]
    duplicates = (tmp_path / "spark" / "duplicates.jsonl").read_text().splitlines()
    assert len(duplicates) == stats["duplicates"] > 0
    if flags:
        # Only the identical sentence's copies are verified duplicates.
        assert {json.loads(x)["cluster"] for x in duplicates} == {1}
        assert stats["duplicates"] < stats["clustered_sentences"] - stats["clusters"]


def test_oph_gives_the_same_outputs_as_the_cli(spark, tmp_path):
    # One-permutation hashing: the CLI's preset and Spark's (the same kernels) agree byte for byte.
    from textreuse import _native
    from textreuse.spark import DedupParams, run_dedup

    corpus = tmp_path / "corpus.jsonl"
    string_id_corpus(corpus)
    records, counts = sentences(tmp_path, str(corpus))
    run_cli("dedup", "-q", "--scheme", "oph", "--out", str(tmp_path / "cli"), str(corpus))
    k, m = _native.DEFAULTS["oph_rows"], _native.DEFAULTS["oph_bands"]
    params = DedupParams(scheme="oph", hashes=k * m, rows=k, bands=m)
    stats = run_dedup(spark, [str(records)], str(tmp_path / "spark"), params, input_stats=[str(counts)])
    assert_same_outputs(tmp_path / "cli", tmp_path / "spark")
    assert (stats["scheme"], stats["hashes"], stats["bands"]) == ("oph", k * m, m)
    assert stats["clusters"] > 0
    # The Spark outputs make a report like the CLI's (its S-curve is OPH's).
    import textreuse

    done = textreuse.report(tmp_path / "spark")
    assert done["clusters"] == stats["clusters"]
    assert "S-curve: oph scheme" in (tmp_path / "spark" / "report.html").read_text()


def test_parquet_records_give_the_same_outputs(spark, tmp_path):
    """The records as Parquet (here converted by Spark, which reads the mixed `doc` as a string
    column beside `doc_is_string`) give the same outputs."""
    from textreuse.spark import DedupParams, run_dedup

    corpus = tmp_path / "corpus.jsonl"
    string_id_corpus(corpus)
    records, counts = sentences(tmp_path, str(corpus))
    parquet = tmp_path / "sentences.parquet"
    spark.read.json(str(records)).write.parquet(str(parquet))
    run_cli("dedup", "-q", "--out", str(tmp_path / "cli"), str(corpus))
    run_dedup(spark, [str(parquet)], str(tmp_path / "spark"), DedupParams(), input_stats=[str(counts)])
    assert_same_outputs(tmp_path / "cli", tmp_path / "spark")


def test_split_compressed_and_uri_records_give_the_same_outputs(spark, samples, tmp_path):
    """The tasks read local record files themselves: an uncompressed file in byte ranges (a
    range's lines are those that start in it), a gzip file whole; a URI is read by Spark as
    lines, which the same kernels parse."""
    import gzip

    from textreuse import _native
    from textreuse.spark import DedupParams, run_dedup

    d, sentences, counts = samples
    lines = sentences.read_bytes().splitlines(keepends=True)
    third = len(lines) // 3
    plain, packed, uri = tmp_path / "a.jsonl", tmp_path / "b.jsonl.gz", tmp_path / "c.jsonl"
    plain.write_bytes(b"".join(lines[:third]))
    packed.write_bytes(gzip.compress(b"".join(lines[third : 2 * third])))
    uri.write_bytes(b"".join(lines[2 * third :]))
    split = 1 << 18
    tasks = _native.sentence_tasks([str(plain), str(packed)], split)
    assert len(tasks) == -(-plain.stat().st_size // split) + 1 > 4
    params = DedupParams(split_bytes=split)
    inputs = [str(plain), str(packed), uri.as_uri()]
    run_dedup(spark, inputs, str(tmp_path / "out"), params, input_stats=[str(counts)])
    assert_same_outputs(d / "cli", tmp_path / "out")


@pytest.mark.parametrize("edit", [None, 0.25], ids=["default", "edit-filter"])
def test_dumps_read_in_the_tasks_give_the_cli_outputs(spark, samples, tmp_path, edit):
    """Documents mode: the tasks read the bundled dumps themselves (one per file; the damaged
    spots skipped and counted), and ids, clusters and counts are those of `textreuse dedup`."""
    from spark_support import REPO

    from textreuse.spark import DedupParams, run_dedup

    d, _, _ = samples
    dumps = [str((REPO / "data" / f).resolve()) for f in ("enwiki-part-201.xml.bz2", "enwiki-sample-206.xml.bz2")]
    params = DedupParams(documents=True, max_edit=edit)
    stats = run_dedup(spark, dumps, str(tmp_path), params)
    assert_same_outputs(d / ("cli" if edit is None else "cli-edit"), tmp_path)
    assert stats["input_problems"] == 6


@pytest.mark.parametrize(
    "unit, threshold, verify",
    [("paragraph", None, False), ("document", None, False), ("paragraph", 0.7, True)],
    ids=["paragraphs", "documents", "paragraphs-threshold-verify"],
)
def test_units_give_the_cli_outputs(spark, tmp_path, unit, threshold, verify):
    """Paragraphs and whole documents of the bundled dumps, with the unit's defaults (filter,
    OPH signer) or a signer planned for a threshold with verification: `textreuse dedup
    --unit`'s files byte for byte."""
    from spark_support import REPO, SKIPPED_INPUTS

    from textreuse.spark import DedupParams, run_dedup

    dumps = [str((REPO / "data" / f).resolve()) for f in ("enwiki-part-201.xml.bz2", "enwiki-sample-206.xml.bz2")]
    flags = ["--unit", unit] + (["--threshold", str(threshold)] if threshold else [])
    flags += ["--verify"] if verify else []
    run_cli("dedup", "-q", "--out", str(tmp_path / "cli"), *flags, *dumps, status=SKIPPED_INPUTS)
    params = DedupParams(documents=True, unit=unit, threshold=threshold, verify=verify)
    run_dedup(spark, dumps, str(tmp_path / "spark"), params)
    stats = assert_same_outputs(tmp_path / "cli", tmp_path / "spark")
    assert stats["unit"] == unit and stats["clusters"] > 0
    assert stats["threshold"] == threshold
    if threshold is None:
        assert (stats["scheme"], stats["rows"], stats["bands"]) == ("oph", 11, 13)


def test_warc_paragraphs_give_the_cli_outputs(spark, tmp_path):
    """Documents mode reads WARC (an HTML response's main content, a WET conversion record)
    beside plain text; the paragraph the page shares with the text file is one cluster."""
    from spark_support import REPO

    from textreuse.spark import DedupParams, run_dedup

    inputs = [str(REPO / "testdata" / "warc" / "pages.warc.gz"), str(REPO / "testdata" / "check" / "corpus" / "b-bees.txt")]
    run_cli("dedup", "-q", "--unit", "paragraph", "--out", str(tmp_path / "cli"), *inputs)
    stats = run_dedup(spark, inputs, str(tmp_path / "spark"), DedupParams(documents=True, unit="paragraph"))
    assert_same_outputs(tmp_path / "cli", tmp_path / "spark")
    assert stats["clusters"] >= 1 and stats["documents"] == 3


def test_unit_parameters_are_checked_before_any_work(spark, tmp_path):
    from textreuse.spark import DedupParams, run_dedup

    with pytest.raises(ValueError, match="needs documents=True"):
        run_dedup(spark, ["missing.jsonl"], str(tmp_path / "a"), DedupParams(unit="paragraph"))
    with pytest.raises(ValueError, match="unit must be one of"):
        run_dedup(spark, ["missing.jsonl"], str(tmp_path / "b"), DedupParams(unit="line", documents=True))
    with pytest.raises(ValueError, match="rows"):
        DedupParams(rows=0).resolved()
    # A threshold plans K and M (as `textreuse dedup --threshold`); explicit -k/-m win.
    planned = DedupParams(threshold=0.9).resolved()
    assert (planned.rows, planned.bands) != (None, None)
    assert DedupParams(threshold=0.9, rows=5, bands=4).resolved().rows == 5
    assert planned.resolved() == planned  # what the command line passes on is not planned again
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()


def test_document_files_give_the_cli_outputs(spark, tmp_path):
    """Documents mode over several files (JSON Lines with string ids and a blank line, a plain
    text file, a gzip file): the second file's ids continue after the first's documents."""
    import gzip

    from textreuse.spark import DedupParams, run_dedup

    corpus = tmp_path / "corpus.jsonl"
    string_id_corpus(corpus)
    lines = corpus.read_text(encoding="utf-8").splitlines(keepends=True)
    first, second = tmp_path / "first.jsonl", tmp_path / "second.jsonl.gz"
    first.write_text("".join(lines[:4]), encoding="utf-8")
    second.write_bytes(gzip.compress("".join(lines[4:]).encode()))
    plain = tmp_path / "mill.txt"
    plain.write_text(json.loads(lines[0])["text"], encoding="utf-8")
    inputs = [str(first), str(plain), str(second)]
    run_cli("dedup", "-q", "--out", str(tmp_path / "cli"), *inputs)
    stats = run_dedup(spark, inputs, str(tmp_path / "spark"), DedupParams(documents=True))
    assert_same_outputs(tmp_path / "cli", tmp_path / "spark")
    assert stats["documents"] == 8 and stats["clusters"] > 0


def test_a_line_that_is_not_a_record_is_an_error(spark, samples, tmp_path):
    from textreuse.spark import DedupParams, run_dedup

    _, sentences, _ = samples
    bad = tmp_path / "bad.jsonl"
    lines = sentences.read_bytes().splitlines(keepends=True)
    bad.write_bytes(b"".join(lines[:100]) + b'{"id": "seven"}\n' + b"".join(lines[100:200]))
    with pytest.raises(Exception, match="not a sentence record"):
        run_dedup(spark, [str(bad)], str(tmp_path / "out"), DedupParams())
    assert not (tmp_path / "out").exists()


def test_sentence_frame_keeps_ids_as_written(spark):
    from pyspark.errors import PySparkException

    from textreuse.spark.dedup import sentence_frame

    def ids(rows, doc_columns):
        schema = f"id long, {doc_columns}, title string, shingles long, text string, start long, end long"
        df = sentence_frame(spark.createDataFrame(rows, schema))
        return [(r["doc_int"], r["doc_str"]) for r in df.orderBy("id").collect()]

    rest = ("t", 80, "x", 0, 1)
    # An integer column: integer ids.
    assert ids([(1, 12, *rest)], "doc long") == [(12, None)]
    # A string column without doc_is_string: string ids, digits or not.
    assert ids([(1, "12", *rest), (2, "a-1", *rest)], "doc string") == [(None, "12"), (None, "a-1")]
    # With doc_is_string (as Spark reads `textreuse sentences` output), it decides.
    flagged = "doc string, doc_is_string boolean"
    assert ids([(1, "12", None, *rest), (2, "12", True, *rest)], flagged) == [(12, None), (None, "12")]
    with pytest.raises(PySparkException, match="doc a-1 is not a 64-bit integer"):
        ids([(1, "a-1", None, *rest)], flagged)
    with pytest.raises(ValueError, match="no column end, start"):
        sentence_frame(spark.createDataFrame([(1, 12, "t", 80, "x")], "id long, doc long, title string, shingles long, text string"))


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


def test_outputs_are_replaced_as_one(spark, samples, tmp_path):
    # A run that fails leaves the previous result whole and nothing beside it; a directory
    # holding other files is refused before any work.
    import glob
    import os

    from textreuse.spark import DedupParams, run_dedup

    d, sentences, counts = samples
    out = tmp_path / "out"
    run_dedup(spark, [str(sentences)], str(out), DedupParams(), input_stats=[str(counts)])
    before = {p.name: p.read_bytes() for p in out.iterdir()}
    assert set(before) == {
        "clusters.jsonl", "duplicates.jsonl", "contradictions.jsonl", "stats.json", "article-pairs.tsv",
    }
    with pytest.raises(Exception):
        run_dedup(spark, [str(tmp_path / "missing.jsonl")], str(out), DedupParams())
    assert {p.name: p.read_bytes() for p in out.iterdir()} == before
    assert glob.glob(str(tmp_path / ".out.*")) == []
    other = tmp_path / "other"
    other.mkdir()
    (other / "notes.txt").write_text("mine")
    with pytest.raises(OSError, match="notes.txt"):
        run_dedup(spark, [str(sentences)], str(other), DedupParams())
    assert os.listdir(other) == ["notes.txt"]


def test_sigterm_leaves_the_previous_result_and_no_temporaries(samples, tmp_path):
    # The command line, terminated while it writes its outputs: exit status 143, the old
    # result untouched, the new directory removed.
    import glob
    import os
    import signal
    import subprocess
    import sys
    import time

    d, sentences, counts = samples
    out = tmp_path / "out"
    out.mkdir()
    (out / "stats.json").write_text("old\n")
    proc = subprocess.Popen(
        [sys.executable, "-m", "textreuse.spark", "dedup", str(sentences), "--out", str(out),
         "--master", "local[2]", "--conf", "spark.ui.enabled=false"],
        stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, PYSPARK_PYTHON=sys.executable),
    )
    deadline = time.monotonic() + 300
    while not glob.glob(str(tmp_path / ".out.textreuse-new-*")):
        assert proc.poll() is None, proc.stderr.read()[-4000:]
        assert time.monotonic() < deadline, "the run never started its outputs"
        time.sleep(0.1)
    time.sleep(2)
    proc.send_signal(signal.SIGTERM)
    _, stderr = proc.communicate(timeout=120)
    assert proc.returncode == 128 + signal.SIGTERM, stderr[-4000:]
    assert os.listdir(out) == ["stats.json"]
    assert (out / "stats.json").read_text() == "old\n"
    assert glob.glob(str(tmp_path / ".out.*")) == []
