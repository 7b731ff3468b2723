"""The Python API: parameters and errors, and agreement with the `textreuse` command line."""

from __future__ import annotations

import json
import pickle
import random
import re

import numpy as np
import pytest
from conftest import TESTDATA, as_lists

import textreuse
from textreuse import Signer

SENTENCE = "The old mill on the river was built in 1820 by the Smith family and grinds grain to this day."


# --- Signer: parameters and errors -------------------------------------------------------------


def test_signer_defaults_are_the_pipelines():
    s = Signer()
    assert (s.hashes, s.bits, s.rows, s.bands, s.seed, s.scheme) == (20, 60, 10, 10, 1123456, "drawn")
    d = Signer(scheme="disjoint", rows=5, bands=4)
    assert d.hashes == 20  # K * M when hashes is not given
    assert Signer(scheme="disjoint").hashes == 100
    assert [sorted(d.band(m)) for m in range(4)] == [list(range(5 * m, 5 * m + 5)) for m in range(4)]
    for m in range(s.bands):
        band = s.band(m)
        assert len(band) == len(set(band)) == s.rows and all(0 <= f < s.hashes for f in band)
    with pytest.raises(IndexError, match="band 10 does not exist"):
        s.band(10)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"rows": 0}, "rows (K) must be at least 1"),
        ({"bands": 0}, "bands (M) must be at least 1"),
        ({"rows": 30}, "rows (K = 30) cannot exceed the number of hash functions (N = 20)"),
        ({"scheme": "disjoint", "hashes": 20}, "disjoint and oph bands need hashes = rows * bands"),
        ({"hashes": 129}, "at most 128 hash functions"),
        ({"bands": 21}, "at most 20 bands"),
        ({"bits": 0}, "bits"),
        ({"bits": 65}, "bits"),
        ({"bits": -1}, "bits must be between 1 and 64"),
        ({"rows": -1}, "rows must not be negative"),
        ({"hashes": -3}, "hashes must not be negative"),
        ({"seed": -1}, "seed must be in 0..2**64"),
        ({"seed": 2**64}, "seed must be in 0..2**64"),
        ({"scheme": "random"}, 'scheme must be "drawn", "disjoint" or "oph"'),
    ],
)
def test_bad_signer_parameters_raise_value_error(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        Signer(**kwargs)


def test_signer_pickles_compares_and_prints():
    s = Signer(hashes=24, rows=6, bands=12, seed=2**64 - 1, bits=50)
    t = pickle.loads(pickle.dumps(s))
    assert t == s and hash(t) == hash(s) and t is not s
    assert np.array_equal(t.sign(SENTENCE), s.sign(SENTENCE))
    assert s != Signer() and s != "Signer"
    assert repr(Signer()) == "Signer(hashes=20, bits=60, rows=10, bands=10, seed=1123456, scheme='drawn')"
    assert eval(repr(s), {"Signer": Signer}) == s
    assert textreuse.__version__ == "0.1.0"


# --- Signer: signing ---------------------------------------------------------------------------


def test_sign_text_is_sign_of_its_normalized_shingles():
    s = Signer()
    sig = s.sign(SENTENCE)
    # Signatures are numpy uint64 arrays (writable, like datasketch's MinHash.hashvalues).
    assert isinstance(sig, np.ndarray) and sig.dtype == np.uint64 and sig.shape == (20,)
    assert sig.flags.writeable and all(0 <= v < 2**60 for v in sig.tolist())
    same = lambda a, b: np.array_equal(a, b)  # noqa: E731
    assert same(sig, s.sign(textreuse.shingles(SENTENCE)))
    # Normalization: case and whitespace runs do not matter; a set ignores order and repeats.
    assert same(s.sign("  " + SENTENCE.upper().replace(" ", " \n\t ")), sig)
    assert same(s.sign(reversed(textreuse.shingles(SENTENCE) * 2)), sig)
    # Negative ints stand for the same 64 bits (fingerprints stored as int64).
    fps = textreuse.shingles(SENTENCE)
    assert same(s.sign([f - 2**64 if f >= 2**63 else f for f in fps]), sig)
    assert not same(s.sign(SENTENCE, shingle=5), sig)
    assert same(s.sign(SENTENCE, shingle=5), s.sign(textreuse.shingles(SENTENCE, 5)))


def test_sign_errors():
    s = Signer()
    with pytest.raises(ValueError, match="shorter than one shingle"):
        s.sign("too short")
    with pytest.raises(ValueError, match="empty set"):
        s.sign([])
    with pytest.raises(TypeError, match="shingle 1 is not an int"):
        s.sign([1, "two"])
    with pytest.raises(TypeError):
        s.sign([2**64])
    with pytest.raises(TypeError, match="str or an iterable"):
        s.sign(3.5)
    with pytest.raises(ValueError, match="at least 1 character"):
        s.sign(SENTENCE, shingle=0)


def test_sign_batch_matches_sign():
    s = Signer()
    rng = random.Random(5)
    words = ["mill", "river", "Smith", "grain", "café", "naïve", "1820", "the", "and", "ünïcödé"]
    texts = [" ".join(rng.choice(words) for _ in range(rng.randrange(0, 30))) for _ in range(300)]
    texts += [None, "", "short"]
    expected = as_lists(
        [None if t is None or len(" ".join(t.lower().split())) < 12 else s.sign(t) for t in texts]
    )
    batch = s.sign_batch(texts)
    assert all(x is None or (x.dtype == np.uint64 and x.shape == (20,)) for x in batch)
    assert as_lists(batch) == expected
    assert as_lists(s.sign_batch(tuple(texts))) == expected
    assert as_lists(s.sign_batch(t for t in texts)) == expected
    assert s.sign_batch([]) == []
    assert as_lists(s.sign_batch(texts, shingle=7)[:5]) == as_lists(
        [None if t is None or len(" ".join(t.lower().split())) < 7 else s.sign(t, shingle=7) for t in texts[:5]]
    )
    with pytest.raises(TypeError, match=r"texts\[1\] is a int, not a str"):
        s.sign_batch(["a", 1])
    with pytest.raises(TypeError, match="use sign"):
        s.sign_batch(SENTENCE)


def test_band_keys_and_estimates():
    s = Signer()
    a = s.sign(SENTENCE)
    b = s.sign(SENTENCE.replace("The old", "An old"))
    keys = s.band_keys(a)
    assert len(keys) == 10 and all(0 <= k < 2**64 for k in keys)
    assert len(set(keys)) == 10  # the band index is mixed in
    # A band's key is shared exactly when the band's minhashes agree.
    kb = s.band_keys(b)
    for m in range(10):
        agree = all(a[f] == b[f] for f in s.band(m))
        assert (keys[m] == kb[m]) == agree
    assert s.jaccard(a, a) == 1.0
    assert s.jaccard(a, b) == sum(x == y for x, y in zip(a, b)) / 20
    # Signatures may also be lists of ints, or non-contiguous uint64 views.
    assert s.band_keys(a.tolist()) == keys and s.jaccard(a.tolist(), b) == s.jaccard(a, b)
    assert s.band_keys(np.stack([a, b])[:, :][0]) == keys
    assert s.band_keys(np.stack([a, a], axis=1)[:, 1]) == keys
    with pytest.raises(ValueError, match="has 19 minhashes, this signer makes 20"):
        s.band_keys(a[:19])
    with pytest.raises(ValueError, match="sig_b has 3 minhashes"):
        s.jaccard(a, [1, 2, 3])
    with pytest.raises(TypeError, match="not an int in 0..2\\*\\*64"):
        s.band_keys([-1] * 20)


def test_s_curves():
    s = Signer()
    assert s.collision_probability(0.0) == 0.0
    assert s.collision_probability(1.0) == pytest.approx(1.0, abs=1e-12)
    grid = [i / 100 for i in range(101)]
    exact = [s.collision_probability(x) for x in grid]
    assert all(a <= b + 1e-12 for a, b in zip(exact, exact[1:]))
    # Drawn bands share functions: the exact curve is far below the independent formula.
    assert 0.75 < s.collision_probability(0.9) < 0.85
    assert s.independent_approximation(0.9) == pytest.approx(1 - (1 - 0.9**10) ** 10)
    assert all(s.collision_probability(x) <= s.independent_approximation(x) + 1e-12 for x in grid)
    d = Signer(scheme="disjoint", rows=4, bands=8)
    for x in grid:
        assert d.collision_probability(x) == pytest.approx(1 - (1 - x**4) ** 8, abs=1e-12)
    for bad in (-0.1, 1.5, float("nan")):
        with pytest.raises(ValueError, match="must be in"):
            s.collision_probability(bad)


def test_curves_match_the_cli(cli):
    (out,) = cli("tune", "--rows", "7", "--bands", "9", "--hashes", "24", "--json")
    s = Signer(hashes=24, rows=7, bands=9)
    for p in out["curve"]:
        assert s.collision_probability(p["s"]) == p["exact"]
        assert s.independent_approximation(p["s"]) == p["independent"]


def test_signatures_estimate_jaccard():
    """Over many pairs the estimate is unbiased: mean error within 4 standard errors."""
    s = Signer(scheme="disjoint", rows=10, bands=10)  # 100 functions
    rng = random.Random(11)
    errors = []
    for _ in range(200):
        words = [str(rng.randrange(10**6)) for _ in range(40)]
        other = [w if rng.random() < 0.7 else str(rng.randrange(10**6)) for w in words]
        a, b = " ".join(words), " ".join(other)
        exact = textreuse.jaccard(a, b)
        errors.append(s.jaccard(s.sign(a), s.sign(b)) - exact)
    mean = sum(errors) / len(errors)
    sd = (sum((e - mean) ** 2 for e in errors) / (len(errors) - 1)) ** 0.5
    assert abs(mean) < 4 * sd / len(errors) ** 0.5


# --- module functions ----------------------------------------------------------------------------


def test_sentences_are_byte_spans():
    text = "Zürich is a city. It has 400,000 people, e.g. bankers! Ça va? Dr. Smith agreed."
    spans = textreuse.sentences(text)
    assert [t for _, _, t in spans] == [
        "Zürich is a city.",
        "It has 400,000 people, e.g. bankers!",
        "Ça va?",
        "Dr. Smith agreed.",
    ]
    raw = text.encode()
    for start, end, sentence in spans:
        assert raw[start:end].decode() == sentence
    chars = textreuse.char_offsets(text, [x for s, e, _ in spans for x in (s, e)])
    for (_, _, sentence), (s, e) in zip(spans, zip(chars[::2], chars[1::2])):
        assert text[s:e] == sentence
    assert textreuse.char_offsets("ü", [0, 1, 2, 99]) == [0, 1, 1, 1]
    assert textreuse.sentences("") == []


def test_sentences_match_the_cli(cli):
    fixture = str(TESTDATA / "shingle/docs.jsonl")
    records = cli("sentences", "--min-shingles", "0", fixture)
    docs = {d["id"]: d["text"] for d in map(json.loads, open(fixture, encoding="utf-8"))}
    by_doc: dict[int, list] = {}
    for r in records:
        by_doc.setdefault(r["doc"], []).append((r["start"], r["end"], r["text"]))
    expected = {}
    for doc, text in docs.items():
        spans = textreuse.sentences(text)
        # The command writes character offsets, sentences() gives byte offsets.
        chars = textreuse.char_offsets(text, [x for s, e, _ in spans for x in (s, e)])
        expected[doc] = [(s, e, t) for (s, e), (_, _, t) in zip(zip(chars[::2], chars[1::2]), spans)]
    assert by_doc == expected


def test_shingles_and_counts():
    fps = textreuse.shingles(SENTENCE)
    assert len(fps) == len(SENTENCE) - 11
    assert textreuse.shingles(SENTENCE.upper()) == fps
    assert textreuse.shingles(SENTENCE.upper(), normalize=False) != fps
    assert textreuse.shingles(SENTENCE.lower(), normalize=False) == fps
    assert textreuse.shingles("abcdefghijk") == []
    assert len(textreuse.shingles("naïve café", length=5)) == 6
    assert textreuse.shingle_count("naïve", 5) == 1
    assert textreuse.shingle_count("Two  Spaces here", 12) == 5  # as written, not normalized
    assert textreuse.shingle_count("short") == 0
    for f in (textreuse.shingles, textreuse.shingle_count):
        with pytest.raises(ValueError, match="at least 1 character"):
            f(SENTENCE, 0)


def test_exact_jaccard():
    a, b = SENTENCE, SENTENCE.replace("grain", "wheat")
    sa, sb = set(textreuse.shingles(a)), set(textreuse.shingles(b))
    assert textreuse.jaccard(a, b) == len(sa & sb) / len(sa | sb)
    assert textreuse.jaccard(a, a.upper()) == 1.0
    assert textreuse.jaccard(a, "short") == 0.0
    assert textreuse.jaccard("", "") == 0.0
    assert textreuse.jaccard("abcdef", "abcdeg", length=3) == 3 / 5


def test_simhash_matches_the_cli(cli):
    fixture = str(TESTDATA / "shingle/docs.jsonl")
    sentences = {(r["doc"], r["idx"]): r["text"] for r in cli("sentences", fixture)}
    fingerprints = cli("simhash", fixture)
    assert len(fingerprints) == len(sentences) > 0
    for r in fingerprints:
        assert textreuse.simhash(sentences[r["doc"], r["idx"]]) == int(r["fingerprint"], 16)
    assert textreuse.simhash("short") is None
    assert textreuse.simhash(SENTENCE) == textreuse.simhash(SENTENCE.upper())


def test_paragraph_simhash_matches_the_cli(cli, tmp_path):
    # Paragraphs (non-blank lines) and whole documents get the weighted paragraph fingerprint.
    texts = [
        "The river rises in the northern hills. It flows south through three market towns.\n"
        "Fishing was the main trade of the valley for centuries. Mills came much later on.",
        "Nothing here is long. Short.",
    ]
    path = tmp_path / "docs.jsonl"
    path.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in enumerate(texts)))
    for unit in ("paragraph", "document"):
        got = cli("simhash", str(path), "--unit", unit, "--min-shingles", "0")
        units = [
            (i, k, u.strip())
            for i, t in enumerate(texts)
            for k, u in enumerate(t.split("\n") if unit == "paragraph" else [t])
        ]
        expected = [
            (i, k, textreuse.paragraph_simhash(u))
            for i, k, u in units
            if textreuse.paragraph_simhash(u) is not None
        ]
        assert [(r["doc"], r["idx"], int(r["fingerprint"], 16)) for r in got] == expected
        assert len(expected) >= 1
    assert textreuse.paragraph_simhash("Too short.") is None


def test_align_finds_the_copied_passage():
    source = (
        "Volcanoes form where magma reaches the surface. Most volcanoes lie along the "
        "boundaries of tectonic plates. The Pacific ring of fire holds many active volcanoes. "
        "Eruptions can be explosive or effusive depending on the viscosity of the magma."
    )
    suspicious = (
        "Mein Aufsatz über Gärten und Tomaten beginnt hier mit ganz anderen Wörtern. "
        "Most volcanoes lie along the boundaries of tectonic plates. The Pacific ring of fire "
        "holds many active volcanoes. Eruptions can be explosive or effusive depending on the "
        "viscosity of the magma."
    )
    (d,) = textreuse.align(source, suspicious, min_length=50)
    assert suspicious[d["suspicious_offset"] :][: d["suspicious_length"]] == d["suspicious_text"]
    assert source[d["source_offset"] :][: d["source_length"]] == d["source_text"]
    assert d["suspicious_text"].startswith("Most volcanoes") and d["source_text"].endswith("magma.")
    assert 0.5 < d["score"] <= 1.0
    assert textreuse.align(source, suspicious) == [d]  # 193 characters, above the default 150
    assert textreuse.align(source, suspicious, min_length=200) == []
    assert textreuse.align("", "") == []


def test_align_matches_synonyms_unless_off():
    source = (
        "Visitors could purchase tickets at a cheaper price before the journey would begin. "
        "Every customer who wanted help found a large car outside the hotel. The guides would "
        "build a fire and tell stories about wealthy families."
    )
    suspicious = (
        "Some opening words about gardens and tomatoes come first here. Visitors could buy "
        "passes at a cheaper cost before the travel would start. Every client who desired aid "
        "found a big automobile outside the inn. The guides would construct a blaze and recount "
        "tales about affluent households. Then the essay returns to gardening."
    )
    (d,) = textreuse.align(source, suspicious)
    assert d["suspicious_text"].startswith("Visitors could buy passes")
    assert textreuse.align(source, suspicious, synonyms=True) == [d]
    assert textreuse.align(source, suspicious, synonyms=False) == []


def test_align_in_other_languages():
    paragraphs = (TESTDATA / "lang" / "bg.txt").read_text().split("\n\n")
    source = paragraphs[0] + "\n\n" + paragraphs[1]
    suspicious = paragraphs[2] + "\n\n" + paragraphs[0] + "\n\n" + paragraphs[3]
    for lang in ("bg", "auto"):
        (d,) = textreuse.align(source, suspicious, lang=lang)
        assert d["suspicious_text"] == paragraphs[0].strip()
    with pytest.raises(ValueError, match=r"unknown language .*, or auto"):
        textreuse.align(source, suspicious, lang="xx")


def test_plan_matches_the_cli(cli):
    best = textreuse.plan(0.8)
    (out,) = cli("tune", "--threshold", "0.8", "--json")
    assert (best["scheme"], best["hashes"], best["rows"], best["bands"]) == tuple(
        out["params"][k] for k in ("scheme", "hashes", "rows", "bands")
    )
    assert best["recall"] >= 0.99 and best["candidate_rate"] <= 0.01
    signer = textreuse.Signer(**{k: best[k] for k in ("scheme", "hashes", "rows", "bands")})
    assert signer.scheme == best["scheme"] and signer.hashes == best["hashes"]
    with pytest.raises(ValueError, match="relax the target"):
        textreuse.plan(0.8, schemes=["drawn"])


def test_tune_minimizes_weighted_areas():
    # datasketch's objective, for a fixed scheme and number of functions.
    d = textreuse.tune(0.5, hashes=64, scheme="disjoint")
    assert d["rows"] * d["bands"] <= 64
    heavy = textreuse.tune(0.5, hashes=64, scheme="disjoint", false_negative_weight=0.9, false_positive_weight=0.1)
    assert heavy["false_negative"] <= d["false_negative"]
    with pytest.raises(ValueError, match="strictly between 0 and 1"):
        textreuse.tune(1.0)


def test_oph_signer_is_one_hash_per_shingle_into_bins():
    oph = textreuse.Signer(scheme="oph", rows=11, bands=13)
    assert (oph.hashes, oph.scheme) == (143, "oph")
    text = "The old mill on the river was built in 1820 and still grinds grain today."
    sig = oph.sign(text)
    assert sig.dtype.name == "uint64" and len(sig) == 143 and len(oph.band_keys(sig)) == 13
    assert oph == pickle.loads(pickle.dumps(oph)) and oph != textreuse.Signer()
    # Near-copies agree in most bins (the estimate), an unrelated sentence in few.
    near = oph.sign(text.replace("grinds", "mills"))
    far = oph.sign("Bees collect nectar and pollen from flowers and carry it from plant to plant.")
    assert oph.jaccard(sig, near) > 0.6 and oph.jaccard(sig, far) < 0.2


def test_the_cli_reads_parquet_written_by_pyarrow(textreuse_bin, tmp_path):
    # Parquet as pyarrow writes it (string ids, snappy), read by `textreuse dedup --unit
    # document`: the same duplicates as the same rows in JSON Lines, named by the same ids,
    # and the deduplicated copy is Parquet again without them.
    import subprocess

    import pyarrow as pa
    import pyarrow.parquet as pq

    rng = random.Random(5)
    words = ["".join(rng.choice("abcdefghij") for _ in range(6)) for _ in range(400)]
    rows = []
    for i in range(40):
        text = " ".join(rng.choice(words) for _ in range(60))
        rows.append({"id": f"p-{i}", "text": text})
        if i % 4 == 0:
            # Another case and spacing: the same shingles once normalized, so always found.
            rows.append({"id": f"p-{i}-copy", "text": text.upper().replace(" ", "  ")})
    pq.write_table(pa.Table.from_pylist(rows), tmp_path / "rows.parquet", compression="snappy")
    (tmp_path / "rows.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))

    def duplicates(name: str) -> list[tuple]:
        out = tmp_path / f"out-{name}"
        copy = tmp_path / f"copy-{name}"
        done = subprocess.run(
            [textreuse_bin, "--quiet", "dedup", "--unit", "document", str(tmp_path / name),
             "--out", str(out), "--write-deduplicated", str(copy)],
            capture_output=True, text=True,
        )
        assert done.returncode == 0, done.stderr
        lines = [json.loads(l) for l in (out / "duplicates.jsonl").read_text().splitlines()]
        return [(d["doc"], d["record"], d["duplicate_of"]["doc"]) for d in lines]

    from_parquet = duplicates("rows.parquet")
    assert from_parquet == duplicates("rows.jsonl")
    assert {d for d, _, _ in from_parquet} == {f"p-{i}-copy" for i in range(0, 40, 4)}
    copy = pq.read_table(tmp_path / "copy-rows.parquet" / str(tmp_path / "rows.parquet").lstrip("/"))
    assert copy.column("id").to_pylist() == [r["id"] for r in rows if not r["id"].endswith("copy")]
    assert copy.schema == pq.read_table(tmp_path / "rows.parquet").schema


def test_report_is_the_cli_report(textreuse_bin, tmp_path):
    # textreuse.report writes the page `textreuse report` writes, from the same outputs.
    import subprocess

    out = tmp_path / "out"
    done = subprocess.run([textreuse_bin, "--quiet", "dedup", "--out", str(out)])
    assert done.returncode == 3  # the bundled 2013 sample is damaged on purpose
    summary = textreuse.report(out, samples=2)
    page = (out / "report.html").read_bytes()
    assert summary["path"] == str(out / "report.html") and summary["bytes"] == len(page)
    assert summary["clusters"] == json.loads((out / "stats.json").read_text())["clusters"]
    subprocess.run([textreuse_bin, "--quiet", "report", str(out), "--samples", "2"], check=True)
    assert (out / "report.html").read_bytes() == page
    assert b"<svg" in page and b"<script" not in page
    unlinked = textreuse.report(out, revision_url=None)
    assert b"oldid=" not in (out / "report.html").read_bytes() and unlinked["bytes"] > 0


def test_report_of_a_reuse_run_is_the_cli_report(textreuse_bin, tmp_path):
    # A reuse run's directory gets the reuse report, as from `textreuse report`.
    import subprocess

    out = tmp_path / "reuse-out"
    done = subprocess.run([textreuse_bin, "--quiet", "reuse", "--out", str(out)])
    assert done.returncode == 3  # the bundled 2013 sample is damaged on purpose
    summary = textreuse.report(out, top_pairs=5)
    page = (out / "report.html").read_bytes()
    view = json.loads((out / "corpus.json").read_text())
    assert summary["bytes"] == len(page) and summary["cases"] == view["cases"] > 0
    assert summary["articles"] == view["graph"]["articles"]
    subprocess.run([textreuse_bin, "--quiet", "report", str(out), "--top-pairs", "5"], check=True)
    assert (out / "report.html").read_bytes() == page
    assert b'id="graph"' in page and b"<script" not in page


def test_report_errors_say_what_is_wrong(tmp_path):
    with pytest.raises(FileNotFoundError, match="stats.json: not found"):
        textreuse.report(tmp_path)
    (tmp_path / "stats.json").write_text("{}")
    (tmp_path / "clusters.jsonl").write_text("not json\n")
    with pytest.raises(ValueError, match="line 1"):
        textreuse.report(tmp_path)


def test_check_matches_the_cli(cli):
    """`textreuse.check` gives the records of `textreuse check` (JSON lines), on the bundled
    check corpus, with candidates only, and with the suspicious text given as a string."""
    susp = str(TESTDATA / "check" / "suspicious.txt")
    corpus = str(TESTDATA / "check" / "corpus")
    for flags, kwargs in [
        ((), {}),
        (("--min-length", "100"), {"min_length": 100}),
        (("--candidates-only", "--top", "2"), {"candidates_only": True, "top": 2}),
        (("--excerpt", "20", "--synonyms", "off"), {"excerpt": 20, "synonyms": False}),
    ]:
        expected = cli("check", susp, "--corpus", corpus, *flags)
        assert expected, flags
        assert textreuse.check([susp], corpus, **kwargs) == expected, flags
    text = (TESTDATA / "check" / "suspicious.txt").read_text()
    named = textreuse.check([("essay", text)], corpus, min_length=100)
    assert [dict(r, suspicious=susp) for r in named] == cli(
        "check", susp, "--corpus", corpus, "--min-length", "100"
    )
    with pytest.raises(ValueError, match="corpus or index"):
        textreuse.check([susp])
    with pytest.raises(ValueError, match="at least 1"):
        textreuse.check([susp], corpus, top=0)


def test_classify_types_a_cluster_as_dedup_does():
    import textreuse

    t = textreuse.classify([
        {"title": "Bulgaria", "text": "In 1910 Bulgaria had a population of 7 million people.",
         "revision": 1, "timestamp": "2013-01-01T00:00:00Z"},
        {"title": "History of Bulgaria",
         "text": "In 1910 Bulgaria had a population of 4.5 million people.",
         "revision": 2, "timestamp": "2016-01-01T00:00:00Z", "url": "https://x/?oldid=2"},
    ])
    assert (t["type"], t["rule"], t["rule_type"]) == (
        "factual_drift", "related_articles", "factual_drift")
    assert 0.5 < t["confidence"] <= 1
    assert t["contradiction"]["confidence"] == round(t["confidence"], 3)
    facts = t["contradiction"]["facts"]
    assert [(f["kind"], f["a"], f["b"]) for f in facts] == [("number", "4.5", "7")]
    newest = [s for s in t["contradiction"]["statements"] if s.get("newest")]
    assert [(s["member"], s["url"]) for s in newest] == [(1, "https://x/?oldid=2")]
    same = textreuse.classify([("A", "The Fischer-Tropsch process."), ("B", "the Fischer–Tropsch process")])
    assert (same["type"], same["groups"], same["contradiction"]) == ("identical", [[0, 1]], None)
    assert same["confidence"] == 1
    # A figure changed within one article: the rules' factual drift, the model's template.
    entries = textreuse.classify([("Albedo", "The albedo of the Earth was 0.30 in the survey."),
                                  ("Albedo", "The albedo of the Earth was 0.29 in the survey.")])
    assert (entries["type"], entries["rule_type"], entries["contradiction"]) == (
        "template", "factual_drift", None)
    with pytest.raises(ValueError):
        textreuse.classify([])
