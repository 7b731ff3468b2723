"""The Spark random projection over word embeddings (`method="rp-embed"`) against `textreuse
dedup --method rp-embed` on the bundled samples, in local[2]."""

from __future__ import annotations

import hashlib
import json
import re
import struct

import pytest

from spark_support import (
    RUN_ONLY, SKIPPED_INPUTS, assert_same_outputs, java_available, run_cli, session,
)

pytestmark = pytest.mark.skipif(not java_available(), reason="Spark needs Java (java not found)")


@pytest.fixture(scope="module")
def spark():
    s = session("local[2]")
    yield s
    s.stop()


def assert_same_projection(cli, spark_dir) -> dict:
    """The Spark run's outputs are the CLI's (files byte for byte, stats.json but for how the
    run went, training time included). Returns the Spark run's stats."""
    stats = assert_same_outputs(cli, spark_dir, run_only=RUN_ONLY | {"projection"})
    a = json.loads((cli / "stats.json").read_text())["projection"]
    b = dict(stats["projection"])
    assert list(a) == list(b)
    a.pop("training_seconds"), b.pop("training_seconds")
    assert a == b
    return stats


def made_up_vectors(sentences, path, binary: bool) -> int:
    """Vectors for the lowercase letter words of the sample sentences (unstemmed, as published
    files are), made up from their hashes: word2vec text, or word2vec binary. Returns how many
    words."""
    words = set()
    with open(sentences, encoding="utf-8") as f:
        for line in f:
            words.update(w.lower() for w in re.findall(r"[^\W\d_]+", json.loads(line)["text"]))
    dim = 16
    with open(path, "wb") as f:
        f.write(f"{len(words)} {dim}\n".encode())
        for w in sorted(words):
            h = hashlib.sha256(w.encode()).digest()
            v = [(b - 128) / 128 for b in h[:dim]]
            if binary:
                f.write(w.encode() + b" " + struct.pack(f"<{dim}f", *v) + b"\n")
            else:
                f.write((w + "".join(f" {x}" for x in v) + "\n").encode())
    return len(words)


@pytest.fixture(scope="module")
def trained(samples, tmp_path_factory):
    """`textreuse dedup --method rp-embed` on the bundled samples: vectors trained on them with
    the defaults."""
    d = tmp_path_factory.mktemp("rp-trained")
    run_cli("dedup", "-q", "--method", "rp-embed", "--out", str(d / "cli"), status=SKIPPED_INPUTS)
    return d / "cli"


def test_trained_vectors_give_the_cli_outputs(spark, samples, trained, tmp_path):
    """The default method: skip-gram vectors trained on the kept units (on the driver, the
    units in id order), signatures and the window search in the tasks: the CLI's files byte
    for byte."""
    from textreuse.spark import DedupParams, run_dedup

    _, sentences, counts = samples
    params = DedupParams(method="rp-embed")
    stats = run_dedup(spark, [str(sentences)], str(tmp_path), params, input_stats=[str(counts)])
    stats = assert_same_projection(trained, tmp_path)
    p = stats["projection"]
    assert stats["method"] == "rp-embed" and p["vectors"] == "trained"
    assert (p["dim"], p["bits"], p["permutations"], p["window"], p["max_hamming"]) == (
        100, 100, 10, 10, 5,
    )
    assert p["training_seconds"] > 0
    assert stats["clusters"] > 100 and stats["candidate_pairs"] > stats["clusters"]
    assert stats["sentences_kept"] == stats["band_key_records"] > 20000


def test_dumps_read_in_the_tasks_give_the_cli_outputs(spark, trained, tmp_path):
    """Documents mode: the tasks read the bundled dumps themselves (one per file, the damaged
    spots skipped and counted) under provisional ids, which keep the CLI's order, so the
    trained vectors and every output are the CLI's."""
    from spark_support import REPO

    from textreuse.spark import DedupParams, run_dedup

    dumps = [
        str((REPO / "data" / f).resolve())
        for f in ("enwiki-part-201.xml.bz2", "enwiki-sample-206.xml.bz2")
    ]
    params = DedupParams(documents=True, method="rp-embed")
    stats = run_dedup(spark, dumps, str(tmp_path), params)
    assert_same_projection(trained, tmp_path)
    assert stats["input_problems"] == 6 and stats["documents"] == 207


@pytest.mark.parametrize(
    "binary, flags",
    [(False, []), (True, ["--no-center", "--projection-bits", "130"])],
    ids=["word2vec-text", "word2vec-binary-uncentered-130-bits"],
)
def test_given_vectors_give_the_cli_outputs(spark, samples, tmp_path, binary, flags):
    """A vector file read once on the driver: the vocabulary counted by Spark over many read
    tasks (each word's first sighting deciding its place, so the center is the CLI's), the
    window search over 13 sorted partitions."""
    from textreuse.spark import DedupParams, run_dedup

    _, sentences, counts = samples
    vectors = tmp_path / ("vectors.bin" if binary else "vectors.txt")
    assert made_up_vectors(sentences, vectors, binary) > 10000
    run_cli(
        "dedup", "-q", "--method", "rp-embed", "--no-stem", "--vectors", str(vectors), *flags,
        "--out", str(tmp_path / "cli"), status=SKIPPED_INPUTS,
    )
    params = DedupParams(
        method="rp-embed", vectors=str(vectors), stem=False, center="--no-center" not in flags,
        projection_bits=130 if flags else DedupParams().projection_bits, split_bytes=1 << 20,
    )
    before = spark.conf.get("spark.sql.shuffle.partitions")
    spark.conf.set("spark.sql.shuffle.partitions", "13")
    try:
        run_dedup(spark, [str(sentences)], str(tmp_path / "spark"), params, input_stats=[str(counts)])
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", before)
    stats = assert_same_projection(tmp_path / "cli", tmp_path / "spark")
    p = stats["projection"]
    assert (p["vectors"], p["dim"], p["stemmed"], p["training_seconds"]) == ("file", 16, False, 0)
    assert p["words_with_vector"] > 10000 and stats["clusters"] > 100


def test_seed_changes_the_clusters(spark, samples, tmp_path):
    """`seed` reaches the hyperplanes and the permutations (and the training): another seed
    gives other clusters, still the CLI's for that seed."""
    from textreuse.spark import DedupParams, run_dedup

    _, sentences, counts = samples
    vectors = tmp_path / "vectors.txt"
    made_up_vectors(sentences, vectors, binary=False)
    outs = {}
    for seed in (DedupParams().seed, 7):
        out = tmp_path / f"spark-{seed}"
        params = DedupParams(method="rp-embed", vectors=str(vectors), stem=False, seed=seed)
        stats = run_dedup(spark, [str(sentences)], str(out), params, input_stats=[str(counts)])
        assert stats["projection"]["seed"] == stats["seed"] == seed
        outs[seed] = (out / "clusters.jsonl").read_bytes()
    assert outs[7] != outs[DedupParams().seed], "another seed, other clusters"
    run_cli(
        "dedup", "-q", "--method", "rp-embed", "--no-stem", "--vectors", str(vectors),
        "--seed", "7", "--out", str(tmp_path / "cli"), status=SKIPPED_INPUTS,
    )
    assert_same_projection(tmp_path / "cli", tmp_path / "spark-7")


def random_corpus(tmp_path):
    """60 documents of 10 sentences of random words from 400, and made-up vectors for the
    words (12 dimensions): JSON Lines documents, their sentence records and counts, and the
    vector file."""
    import random

    from spark_support import sentences

    rng = random.Random(11)
    vocabulary = [
        "".join(rng.choice("abcdefghijklmnopqrstuvwxyz") for _ in range(rng.randint(4, 9)))
        for _ in range(400)
    ]
    corpus = tmp_path / "corpus.jsonl"
    with open(corpus, "w", encoding="utf-8") as f:
        for d in range(60):
            text = " ".join(
                " ".join(rng.choice(vocabulary) for _ in range(16)).capitalize() + "."
                for _ in range(10)
            )
            f.write(json.dumps({"id": d, "title": f"doc {d}", "text": text}) + "\n")
    vectors = tmp_path / "vectors.txt"
    with open(vectors, "w") as f:
        f.write(f"{len(set(vocabulary))} 12\n")
        for w in sorted(set(vocabulary)):
            f.write(w + "".join(f" {rng.uniform(-1, 1):.6f}" for _ in range(12)) + "\n")
    records, counts = sentences(tmp_path, str(corpus))
    return corpus, records, counts, vectors


def test_windows_across_partitions_give_the_cli_pairs(spark, tmp_path):
    """A loose threshold (45 of 100 bits) makes about every other window comparison a pair, so
    a comparison lost where a sorted partition ends would change the pair count: with 16
    partitions and 13 read tasks, the pairs (and every output) are still the CLI's."""
    from textreuse.spark import DedupParams, run_dedup

    corpus, records, counts, vectors = random_corpus(tmp_path)
    flags = ["--no-stem", "--vectors", str(vectors), "--max-hamming", "45"]
    run_cli("dedup", "-q", "--method", "rp-embed", *flags, "--out", str(tmp_path / "cli"), str(corpus))
    params = DedupParams(
        method="rp-embed", vectors=str(vectors), stem=False, max_hamming=45, split_bytes=1 << 14,
    )
    before = spark.conf.get("spark.sql.shuffle.partitions")
    spark.conf.set("spark.sql.shuffle.partitions", "16")
    try:
        run_dedup(spark, [str(records)], str(tmp_path / "spark"), params, input_stats=[str(counts)])
    finally:
        spark.conf.set("spark.sql.shuffle.partitions", before)
    stats = assert_same_projection(tmp_path / "cli", tmp_path / "spark")
    # 600 distinct signatures, 10 permutations, windows of 10: up to 60,000 comparisons.
    assert stats["sentences_kept"] == 600 and stats["candidate_pairs"] > 10000


def test_the_command_line_takes_the_clis_flags(tmp_path):
    """`python -m textreuse.spark dedup --method rp-embed` with the CLI's flags (another width,
    window, threshold and seed, unstemmed, uncentered) writes the CLI's outputs."""
    import os
    import subprocess
    import sys

    corpus, records, counts, vectors = random_corpus(tmp_path)
    flags = [
        "--method", "rp-embed", "--vectors", str(vectors), "--vectors-format", "word2vec",
        "--no-stem", "--no-center", "--projection-bits", "72", "--permutations", "4",
        "--window", "6", "--max-hamming", "30", "--seed", "99",
    ]
    run_cli("dedup", "-q", *flags, "--out", str(tmp_path / "cli"), str(corpus))
    done = subprocess.run(
        [sys.executable, "-m", "textreuse.spark", "dedup", str(records), "--input-stats",
         str(counts), *flags, "--out", str(tmp_path / "spark"), "--master", "local[2]",
         "--conf", "spark.ui.enabled=false", "-q"],
        capture_output=True, text=True, env=dict(os.environ, PYSPARK_PYTHON=sys.executable),
    )
    assert done.returncode == 0, done.stderr[-4000:]
    stats = assert_same_projection(tmp_path / "cli", tmp_path / "spark")
    p = stats["projection"]
    assert (p["bits"], p["permutations"], p["window"], p["max_hamming"], p["seed"]) == (
        72, 4, 6, 30, 99,
    )
    assert (p["stemmed"], p["centered"], stats["clusters"] > 0) == (False, False, True)


def test_edit_filter_on_projection_pairs_gives_the_cli_outputs(spark, samples, tmp_path):
    from textreuse.spark import DedupParams, run_dedup

    _, sentences, counts = samples
    vectors = tmp_path / "vectors.txt"
    made_up_vectors(sentences, vectors, binary=False)
    run_cli(
        "dedup", "-q", "--method", "rp-embed", "--no-stem", "--vectors", str(vectors),
        "--max-edit", "0.25", "--out", str(tmp_path / "cli"), status=SKIPPED_INPUTS,
    )
    params = DedupParams(method="rp-embed", vectors=str(vectors), stem=False, max_edit=0.25)
    run_dedup(spark, [str(sentences)], str(tmp_path / "spark"), params, input_stats=[str(counts)])
    stats = assert_same_projection(tmp_path / "cli", tmp_path / "spark")
    assert 0 < stats["pairs_after_edit_filter"] < stats["candidate_pairs"]


def test_bad_parameters_are_named_before_any_work(spark, tmp_path):
    from textreuse.spark import DedupParams, run_dedup
    from textreuse.spark.__main__ import main

    rp = dict(method="rp-embed")
    for fields, match in [
        (dict(projection_bits=0), "projection_bits"),
        (dict(projection_bits=5000), "projection_bits"),
        (dict(permutations=0), "permutations"),
        (dict(window=0), "window"),
        (dict(max_hamming=101), "max_hamming"),
        (dict(dim=0), "dim"),
        (dict(epochs=0), "epochs"),
        (dict(vectors_format="xml"), "vectors_format"),
        (dict(vectors=str(tmp_path / "missing.vec")), "vectors: no such file"),
    ]:
        with pytest.raises(ValueError, match=match):
            DedupParams(**rp, **fields).resolved()
    with pytest.raises(ValueError, match="method must be one of minhash, rp-embed"):
        DedupParams(method="simhash").resolved()
    # Completed as the CLI completes them.
    assert DedupParams(**rp).resolved().max_hamming == 5
    # A malformed vector file: named with its line, before any output.
    bad = tmp_path / "bad.vec"
    bad.write_text("2 3\nriver 0.5 -1 2\nmill 1 two 3\n")
    out = tmp_path / "out"
    with pytest.raises(ValueError, match=r"bad.vec as word2vec.*line 3"):
        run_dedup(spark, ["x.jsonl"], str(out), DedupParams(**rp, vectors=str(bad)))
    assert not out.exists()
    # The command line: exit status 2, before Spark starts.
    assert main(["dedup", "x.jsonl", "--method", "rp-embed", "--projection-bits", "0"]) == 2
    assert main(["dedup", "x.jsonl", "--method", "rp-embed", "--epochs", "0"]) == 2
