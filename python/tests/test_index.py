"""textreuse.LSHIndex: the persistent LSH index in datasketch's vocabulary."""

from __future__ import annotations

import copy
import gc
import os
import pickle
import random
import re
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

import textreuse
from textreuse import IndexLockedError, LSHIndex, _native

WORDS = [
    "mill", "river", "grain", "bakery", "town", "bridge", "stone", "water", "wheel", "market",
    "harbour", "church", "garden", "orchard", "winter", "summer", "north", "south", "valley",
    "forest", "castle", "school", "station", "railway", "library", "museum", "festival",
    "village", "meadow", "quarry", "brewery", "chapel", "tower", "square", "fountain", "cellar",
]


def sentence(rng: random.Random, n: int = 18) -> str:
    return " ".join(rng.choice(WORDS) for _ in range(n)).capitalize() + "."


def near(rng: random.Random, text: str) -> str:
    """One word replaced: a Jaccard similarity of about 0.8 to `text`."""
    words = text[:-1].split()
    words[rng.randrange(len(words))] = "zeppelin"
    return " ".join(words) + "."


RNG = random.Random(2024)
CORPUS = [sentence(RNG) for _ in range(120)]
# Near-duplicates of every third line, and fresh lines that match nothing.
QUERIES = [near(RNG, CORPUS[i]) for i in range(0, 120, 3)] + [sentence(RNG) for _ in range(20)]


def built(**kwargs) -> LSHIndex:
    index = LSHIndex(**kwargs)
    index.insert_batch(range(len(CORPUS)), CORPUS)
    return index


# --- the datasketch verbs ------------------------------------------------------------------------


def test_insert_query_remove_contains_len():
    index = LSHIndex(threshold=0.5)
    assert index.is_empty() and len(index) == 0
    for i, text in enumerate(CORPUS):
        assert index.insert(i, text) == 1  # one document, one unit
    assert len(index) == len(CORPUS) and not index.is_empty()
    assert 0 in index and 119 in index and 120 not in index and "0" not in index
    # Exact copies are found first; every key once.
    found = index.query(CORPUS[5])
    assert found[0] == 5 and len(found) == len(set(found))
    hits = sum(i in index.query(q) for i, q in zip(range(0, 120, 3), QUERIES))
    assert hits >= 30, "most near-duplicates (Jaccard ~0.8) are found at threshold 0.5"
    # Remove: gone from membership, length and queries; KeyError when absent.
    index.remove(5)
    assert 5 not in index and len(index) == len(CORPUS) - 1 and 5 not in index.query(CORPUS[5])
    with pytest.raises(KeyError) as e:
        index.remove(5)
    assert e.value.args == (5,)
    with pytest.raises(KeyError):
        index.remove("never added")
    # A removed key may be inserted again.
    index.insert(5, CORPUS[5])
    assert index.query(CORPUS[5])[0] == 5


def test_duplicate_keys_are_value_errors_as_in_datasketch():
    index = LSHIndex()
    index.insert("a", CORPUS[0])
    with pytest.raises(ValueError, match='key "a" is already in the index'):
        index.insert("a", CORPUS[1])
    with pytest.raises(ValueError, match="already in the index"):
        index.insert_batch(["b", "a"], CORPUS[1:3])
    with pytest.raises(ValueError, match='keys: "c" appears more than once'):
        index.insert_batch(["c", "c"], CORPUS[1:3])
    assert len(index) == 1 and "b" not in index and "c" not in index  # nothing added


def test_keys_are_ints_and_strs():
    index = LSHIndex()
    index.insert(7, CORPUS[0])
    index.insert("7", CORPUS[0])
    index.insert(-(2**63), CORPUS[1])
    index.insert(2**64 - 1, CORPUS[2])
    index.insert(np.int64(3), CORPUS[3])  # numpy integers are ints
    assert index.query(CORPUS[0]) == [7, "7"]
    assert index.query(CORPUS[2]) == [2**64 - 1] and index.query(CORPUS[3]) == [3]
    with pytest.raises(TypeError, match="keys are int or str, not float"):
        index.insert(1.5, CORPUS[0])
    with pytest.raises(TypeError, match="not bool"):
        index.insert(True, CORPUS[0])
    with pytest.raises(ValueError, match="out of range"):
        index.insert(2**64, CORPUS[0])
    assert 1.5 not in index and None not in index and 2**70 not in index


def test_short_texts_are_recorded_but_not_indexed():
    index = LSHIndex()
    assert index.insert("short", "Too short.") == 0
    assert "short" in index and len(index) == 1 and index.query("Too short.") == []
    index.commit()
    assert index.stats()["entries"] == 0 and index.stats()["documents"] == 1


def test_query_scores_limit_min_jaccard_and_verify():
    index = LSHIndex(threshold=0.5)
    a = CORPUS[0]
    b = near(random.Random(1), a)
    index.insert("a", a)
    index.insert("b", b)
    scores = index.query_scores(a)
    assert [k for k, _ in scores] == ["a", "b"] and scores[0][1] == 1.0 and scores[1][1] < 1.0
    assert index.query(a) == ["a", "b"]
    assert index.query_scores(a, limit=1) == scores[:1]
    assert index.query_scores(a, min_jaccard=0.999) == scores[:1]
    verified = dict(index.query_scores(a, verify=True))
    length = index.params["shingle"]
    assert verified["a"] == 1.0
    assert verified["b"] == pytest.approx(textreuse.jaccard(a, b, length=length))
    with pytest.raises(ValueError, match="verify=True needs a text"):
        index.query_scores(index.signer.sign(a), verify=True)
    no_text = LSHIndex(store_text=False)
    no_text.insert(1, a)
    assert no_text.query(a) == [1]
    with pytest.raises(ValueError, match="stores no texts"):
        no_text.query_scores(a, verify=True)


def test_sentence_units_union_and_rank_per_key():
    index = LSHIndex(unit="sentence", min_shingles=20)
    index.insert("ab", f"{CORPUS[0]} {CORPUS[1]}")
    index.insert("c", CORPUS[2])
    assert index.stats()["entries"] == 3  # uncommitted entries count
    index.commit()
    assert index.stats()["entries"] == 3
    # A query of two units: each key once, though "ab" matches both of them.
    assert index.query(f"{CORPUS[1]} {CORPUS[0]}") == ["ab"]
    # Equal scores (both exact copies): the document added first comes first.
    assert index.query(f"{CORPUS[2]} {CORPUS[0]}") == ["ab", "c"]
    assert index.query_scores(f"{CORPUS[2]} {CORPUS[0]}") == [("ab", 1.0), ("c", 1.0)]


def test_query_top_k_returns_the_nearest_best_first():
    """Planted near-duplicates of one line among the others: the k nearest, in order."""
    index = LSHIndex(threshold=0.5)
    base = CORPUS[0]

    def edited(*positions: int) -> str:
        words = base[:-1].split()
        for p in positions:
            words[p] = f"zeppelin{p}"
        return " ".join(words) + "."

    once, twice, thrice = edited(9), edited(3, 12), edited(1, 7, 15)
    index.insert_batch(["thrice", "base", "once", "twice"], [thrice, base, once, twice])
    index.insert_batch(range(1, 60), CORPUS[1:60])
    length = index.params["shingle"]
    truth = sorted(
        ((key, textreuse.jaccard(base, text, length=length))
         for key, text in [("base", base), ("once", once), ("twice", twice), ("thrice", thrice)]),
        key=lambda kv: -kv[1],
    )
    top = index.query_top_k(base, 3, verify=True)
    assert [k for k, _ in top] == [k for k, _ in truth[:3]] == ["base", "once", "twice"]
    assert [s for _, s in top] == pytest.approx([s for _, s in truth[:3]])
    # Estimated: the same keys first (far more similar than the rest), scores descending.
    estimated = index.query_top_k(base, 4)
    assert {k for k, _ in estimated} == {"base", "once", "twice", "thrice"}
    assert estimated[0] == ("base", 1.0)
    assert [s for _, s in estimated] == sorted((s for _, s in estimated), reverse=True)
    # k bounds the answer and a shorter answer is a prefix of a longer one.
    for k in range(6):
        assert index.query_top_k(base, k, verify=True) == index.query_top_k(base, 6, verify=True)[:k]
    assert index.query_top_k(base, 0) == []
    # Only keys sharing a band key are ranked: not every key comes back for a large k.
    assert 4 <= len(index.query_top_k(base, 1000)) < len(index)
    # A signature works as the text does (a document index: one unit), but cannot verify.
    sig = index.signer.sign(base, shingle=length)
    assert index.query_top_k(sig, 4) == estimated
    with pytest.raises(ValueError, match="verify=True needs a text"):
        index.query_top_k(sig, 3, verify=True)
    with pytest.raises(ValueError, match="k must not be negative"):
        index.query_top_k(base, -1)
    assert LSHIndex().query_top_k(base, 5) == []
    no_text = LSHIndex(store_text=False)
    no_text.insert(1, base)
    assert no_text.query_top_k(base, 1) == [(1, 1.0)]
    with pytest.raises(ValueError, match="stores no texts"):
        no_text.query_top_k(base, 1, verify=True)


def test_query_containment_finds_a_quote_in_a_long_document():
    """Three sentences quoted from a document of twenty: contained in it, though the Jaccard
    similarity of the two texts is small and a document index does not find it."""
    long = " ".join(CORPUS[10:30])
    quote = " ".join(CORPUS[15:18])
    sentences = LSHIndex(unit="sentence")
    documents = LSHIndex(unit="document")
    for index in (sentences, documents):
        index.insert("long", long)
        index.insert_batch(range(40, 60), CORPUS[40:60])
    found = sentences.query_containment(quote, threshold=0.8)
    assert found == [("long", 1.0)]
    # Exact: the share of the quote's shingles in the long document's.
    q = set(textreuse.shingles(quote))
    exact = len(q & set(textreuse.shingles(long))) / len(q)
    verified = sentences.query_containment(quote, threshold=0.8, verify=True)
    assert [k for k, _ in verified] == ["long"] and verified[0][1] == pytest.approx(exact)
    assert exact > 0.95
    # Jaccard similarity misses it: small for the whole texts, and no match in a document index.
    assert textreuse.jaccard(quote, long) < 0.2
    assert "long" not in documents.query(quote)
    assert documents.query_containment(quote, threshold=0.8) == []
    # Half of a query quoted: containment about a half, below a high threshold.
    half = " ".join(CORPUS[20:22] + CORPUS[100:102])
    (key, c), *_ = sentences.query_containment(half, threshold=0.3)
    assert key == "long" and 0.4 < c < 0.6
    assert sentences.query_containment(half) == []  # the default threshold is 0.9
    # A short query inside an indexed sentence key: found with it.
    assert ("45", 1.0) not in sentences.query_containment(CORPUS[45], threshold=1.0)
    assert (45, 1.0) in sentences.query_containment(CORPUS[45], threshold=1.0)


def test_query_containment_arguments():
    index = LSHIndex(unit="sentence")
    assert index.query_containment(CORPUS[0], threshold=0.0) == []  # empty index
    index.insert("a", CORPUS[0])
    for bad in (-0.1, 1.5, float("nan")):
        with pytest.raises(ValueError, match="within 0..=1"):
            index.query_containment(CORPUS[0], threshold=bad)
    with pytest.raises(ValueError, match="verify=True needs a text"):
        index.query_containment(index.signer.sign(CORPUS[0]), verify=True)
    assert index.query_containment(CORPUS[0], threshold=1.0, verify=True) == [("a", 1.0)]


# --- text and signatures -------------------------------------------------------------------------


def test_text_and_signature_paths_agree():
    """A signature from the index's Signer queries (and inserts) as the text does."""
    by_text = built(threshold=0.5)
    by_sig = LSHIndex(threshold=0.5)
    signer, shingle = by_text.signer, by_text.params["shingle"]
    assert signer.hashes == by_text.params["hashes"] and signer.rows == by_text.params["rows"]
    for i, text in enumerate(CORPUS):
        assert by_sig.insert(i, signer.sign(text, shingle=shingle)) == 1
    for q in QUERIES + CORPUS[:10]:
        sig = signer.sign(q, shingle=shingle)
        expected = by_text.query(q)
        assert by_text.query(sig) == expected
        assert by_sig.query(q) == expected and by_sig.query(sig) == expected
        assert by_sig.query(sig.tolist()) == expected
        assert by_sig.query_scores(sig) == by_text.query_scores(q)
    # Any object with hashvalues (datasketch's MinHash) is a signature.
    minhash = type("MinHash", (), {"hashvalues": signer.sign(CORPUS[3], shingle=shingle)})()
    assert by_text.query(minhash)[0] == 3
    n = signer.hashes
    with pytest.raises(ValueError, match=f"a signature of {n - 1} minhashes given to an index of {n}"):
        by_sig.query(signer.sign(CORPUS[0])[: n - 1])
    with pytest.raises(TypeError, match="a signature is a uint64 array"):
        by_sig.insert("x", None)


# --- parameters ----------------------------------------------------------------------------------


def test_defaults_come_from_rust():
    p = LSHIndex().params
    defaults = _native.DEFAULTS
    # Documents default to the OPH preset; sentences to the Weissman preset.
    assert p["unit"] == "document" and p["scheme"] == "oph" and p["store_text"] is True
    assert [p[k] for k in ("rows", "bands", "seed", "shingle", "bits")] == [
        defaults[k] for k in ("oph_rows", "oph_bands", "seed", "shingle", "bits")
    ]
    assert p["hashes"] == p["rows"] * p["bands"]
    s = LSHIndex(unit="sentence").params
    assert s["scheme"] == "drawn"
    assert [s[k] for k in ("hashes", "rows", "bands")] == [defaults[k] for k in ("hashes", "rows", "bands")]


def test_threshold_constructor_uses_the_planner():
    # Documents (at least 20 shingles): the cheapest of all schemes; a scheme limits the choice;
    # num_perm is N of drawn bands and the budget of disjoint ones.
    for threshold, num_perm, scheme in [(0.9, None, None), (0.9, 256, "disjoint"), (0.8, 300, "disjoint"), (0.7, None, "oph")]:
        kwargs = {k: v for k, v in (("num_perm", num_perm), ("scheme", scheme)) if v is not None}
        p = LSHIndex(threshold=threshold, **kwargs).params
        want = {"min_set": 20, "schemes": [scheme] if scheme else None}
        if num_perm:
            want.update(hashes=num_perm, max_hashes=num_perm)
        best = textreuse.plan(threshold, **want)
        assert (p["scheme"], p["hashes"], p["rows"], p["bands"]) == (
            best["scheme"], best["hashes"], best["rows"], best["bands"],
        ), (threshold, scheme)
        assert best["recall"] >= 0.99 and best["candidate_rate"] <= 0.01
        if scheme == "disjoint":
            assert p["hashes"] == p["rows"] * p["bands"] <= num_perm
    assert LSHIndex(threshold=0.9).params["scheme"] == "oph"
    # Explicit rows and bands win over the threshold, as with `textreuse index create`.
    p = LSHIndex(threshold=0.9, rows=4, bands=5, scheme="disjoint").params
    assert (p["rows"], p["bands"], p["hashes"]) == (4, 5, 20)
    p = LSHIndex(unit="sentence", seed=7, shingle=9, min_shingles=30, signature_bytes=8).params
    assert (p["unit"], p["seed"], p["shingle"], p["min_shingles"], p["signature_bytes"]) == (
        "sentence", 7, 9, 30, 8,
    )
    with pytest.raises(ValueError, match="relax the target"):
        LSHIndex(threshold=0.8, scheme="drawn", num_perm=64)


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"unit": "word"}, 'unit must be "document", "sentence", "paragraph" or "chunk"'),
        ({"num_perm": -1}, "num_perm must not be negative"),
        ({"threshold": 1.5}, "threshold"),
        ({"signature_bytes": 3}, "signature bytes must be 1, 2, 4 or 8"),
        ({"scheme": "random"}, "unknown band scheme"),
        ({"rows": 30, "scheme": "drawn"}, "rows"),
        ({"seed": -1}, "seed must be in 0..2**64"),
    ],
)
def test_bad_parameters_are_value_errors(kwargs, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        LSHIndex(**kwargs)


# --- on disk -------------------------------------------------------------------------------------


def test_commit_and_reopen_by_path(tmp_path):
    path = tmp_path / "idx"
    index = built(path=path, threshold=0.5)
    assert index.path == path and not index.temporary and (path / "MANIFEST").is_file()
    index.remove(7)
    before = [index.query(q) for q in QUERIES]
    index.commit()
    assert index.stats()["generation"] == 1 and index.stats()["uncommitted_documents"] == 0
    index.insert("uncommitted", CORPUS[0])
    del index  # releases the lock; what was not committed is lost
    reopen = (lambda: LSHIndex(path), lambda: LSHIndex.open(str(path)), lambda: LSHIndex(path, threshold=0.5))
    for open_it in reopen:
        again = open_it()
        assert len(again) == len(CORPUS) - 1 and 7 not in again and "uncommitted" not in again
        assert [again.query(q) for q in QUERIES] == before
        assert again.params == LSHIndex(threshold=0.5).params
        del again
    with pytest.raises(ValueError, match=r"the index there has .*(rows|bands)=.*given"):
        LSHIndex(path, threshold=0.95)
    with pytest.raises(ValueError, match=r'unit="document" \(given "sentence"\)'):
        LSHIndex(path, unit="sentence")
    with pytest.raises(ValueError, match=r"has min_shingles=\d+ \(given 5\); open it without"):
        LSHIndex(path, min_shingles=5)
    with pytest.raises(FileNotFoundError, match="not an index"):
        LSHIndex.open(tmp_path / "nothing")
    # Compaction reclaims the removed document.
    again = LSHIndex(path)
    again.compact()
    s = again.stats()
    assert (s["segments"], s["removed_documents"], s["documents"]) == (1, 0, len(CORPUS) - 1)


def test_a_second_writer_gets_a_lock_error(tmp_path):
    path = tmp_path / "idx"
    first = LSHIndex(path)
    with pytest.raises(IndexLockedError, match="locked by another writer") as e:
        LSHIndex(path)
    assert isinstance(e.value, RuntimeError)
    with pytest.raises(IndexLockedError):
        LSHIndex.open(path)
    del first
    LSHIndex(path)  # the lock went with the first


def test_damage_is_an_exception_that_except_exception_catches(tmp_path):
    # Issue #51, defect 10: a changed byte in a segment used to surface as a PanicException,
    # which `except Exception` does not catch; now it is a ValueError naming the file, from the
    # query that read the damaged block (and from every later one).
    path = tmp_path / "idx"
    index = built(path=path, threshold=0.5)
    index.commit()
    del index
    assert LSHIndex.verify(path)["documents"] == len(CORPUS)
    segment = path / "seg-000001.seg"
    data = bytearray(segment.read_bytes())
    data[len(data) // 2] ^= 0x40
    segment.write_bytes(bytes(data))
    damaged = LSHIndex.open(path)
    caught = []
    for q in QUERIES + CORPUS:
        try:
            damaged.query(q)
        except Exception as e:  # noqa: BLE001 - what a user's generic handler does
            caught.append(e)
    assert caught, "no query read the damaged block"
    assert all(isinstance(e, ValueError) for e in caught)
    assert "damaged index file" in str(caught[0]) and "seg-000001.seg" in str(caught[0])
    del damaged
    with pytest.raises(ValueError, match="seg-000001.seg: damaged index file"):
        LSHIndex.verify(path)
    with pytest.raises(FileNotFoundError):
        LSHIndex.verify(tmp_path / "nothing")


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="the SIGBUS handler is Linux's")
def test_a_segment_truncated_under_a_reader_is_an_exception_not_a_crash(tmp_path):
    # Issue #51, defect 13: a segment cut short while mapped killed the process with SIGBUS.
    # Under pytest, faulthandler has its own SIGBUS handler; the index's runs first and passes
    # on faults that are not its own.
    path = tmp_path / "idx"
    index = built(path=path, threshold=0.5)
    index.commit()
    del index
    reader = LSHIndex.open(path)
    segment = path / "seg-000001.seg"
    os.truncate(segment, segment.stat().st_size // 3)
    with pytest.raises(ValueError, match="truncated or replaced while in use"):
        for q in QUERIES + CORPUS:
            reader.query(q)
    del reader


def test_os_errors_read_as_pythons_own(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(OSError) as e:
        LSHIndex(blocker / "idx")
    # "[Errno 20] Not a directory: '.../file/idx'": the cause once, the path as filename.
    assert e.value.errno is not None and e.value.filename is not None
    assert str(e.value).count(e.value.strerror) == 1


def test_temporary_directories_go_with_the_object():
    index = LSHIndex()
    path = index.path
    assert index.temporary and (path / "MANIFEST").is_file()
    index.insert(1, CORPUS[1])
    index.commit()
    del index
    gc.collect()
    assert not path.exists()


def test_pickle_round_trip(tmp_path):
    for index in (built(threshold=0.5), built(path=tmp_path / "idx", threshold=0.5)):
        index.remove(3)
        index.insert("late", CORPUS[3])  # uncommitted: pickling commits
        expected = [index.query(q) for q in QUERIES]
        state = index.__getstate__()
        assert state[0] == 1 and state[1] == index.temporary
        names = [name for name, _ in state[2]]
        assert "MANIFEST" in names and "LOCK" not in names
        for copied in (pickle.loads(pickle.dumps(index)), copy.deepcopy(index)):
            assert copied.temporary and copied.path != index.path
            assert copied.params == index.params and len(copied) == len(index)
            assert [copied.query(q) for q in QUERIES] == expected
            copied.insert("new", CORPUS[4])  # a writable copy of its own
            assert "new" in copied and "new" not in index
        other = LSHIndex(unit="sentence")
        other.__setstate__(state)
        assert other.params == index.params and [other.query(q) for q in QUERIES] == expected
    with pytest.raises(ValueError, match="not the state of an LSHIndex"):
        LSHIndex().__setstate__("nonsense")
    with pytest.raises(ValueError, match="names a file"):
        LSHIndex().__setstate__((1, True, [("../escape", b"")]))


# --- batches -------------------------------------------------------------------------------------


def test_batches_of_texts_and_numpy_signatures():
    one_by_one = LSHIndex(threshold=0.5)
    for i, text in enumerate(CORPUS):
        one_by_one.insert(i, text)
    expected = [one_by_one.query(q) for q in QUERIES]

    texts = built(threshold=0.5)
    assert texts.query_batch(QUERIES) == expected
    assert texts.query_batch(tuple(QUERIES)) == expected
    assert texts.query_batch([None, QUERIES[0]]) == [[], expected[0]]
    assert texts.query_batch([]) == []

    signer, shingle = texts.signer, texts.params["shingle"]
    matrix = np.stack(signer.sign_batch(CORPUS, shingle=shingle))
    assert matrix.dtype == np.uint64 and matrix.shape == (len(CORPUS), signer.hashes)
    sigs = LSHIndex(threshold=0.5)
    assert sigs.insert_batch(np.arange(len(CORPUS)), matrix) == len(CORPUS)
    queries = np.stack(signer.sign_batch(QUERIES, shingle=shingle))
    assert sigs.query_batch(queries) == expected
    assert sigs.query_batch(list(queries)) == expected
    assert sigs.query_batch(queries[:, :]) == [sigs.query(q) for q in queries]
    listed = LSHIndex(threshold=0.5)
    listed.insert_batch(list(range(len(CORPUS))), [m.tolist() for m in matrix])
    assert listed.query_batch(QUERIES) == expected

    with pytest.raises(ValueError, match="2 keys and 3 values"):
        LSHIndex().insert_batch([1, 2], CORPUS[:3])
    with pytest.raises(ValueError, match=r"values\[1\] is None"):
        LSHIndex().insert_batch([1, 2], [CORPUS[0], None])
    with pytest.raises(ValueError, match="a signature of 19 minhashes"):
        LSHIndex().insert_batch([1, 2], matrix[:2, :19])
    with pytest.raises(ValueError, match="2-D uint64 array"):
        LSHIndex().insert_batch([1], matrix[0])
    with pytest.raises(TypeError, match="not one str"):
        LSHIndex().insert_batch([1], CORPUS[0])


def test_batches_of_pyarrow_arrays():
    pa = pytest.importorskip("pyarrow")
    expected = [built(threshold=0.5).query(q) for q in QUERIES[:10]]
    for texts in (
        pa.array(CORPUS),
        pa.array(CORPUS, pa.large_string()),
        pa.chunked_array([pa.array(CORPUS[:50]), pa.array(CORPUS[50:])]),
    ):
        index = LSHIndex(threshold=0.5)
        index.insert_batch(pa.array(range(len(CORPUS)), pa.int64()), texts)
        assert len(index) == len(CORPUS)
        assert index.query_batch(pa.array(QUERIES[:10])) == expected
    index = LSHIndex()
    index.insert_batch(pa.array(["x", "y"]), pa.array(CORPUS[:2]).slice(0, 2))
    assert index.query(CORPUS[1]) == ["y"]
    with pytest.raises(ValueError, match=r"values\[1\] is None"):
        LSHIndex().insert_batch([1, 2], pa.array([CORPUS[0], None]))
    with pytest.raises(TypeError, match="expected a string or large_string array"):
        LSHIndex().insert_batch([1, 2], pa.array([1, 2]))


def test_threads_share_an_index():
    """Calls from several threads wait for each other (the GIL released); none fails."""
    index = built(threshold=0.5)
    expected = index.query_batch(QUERIES)

    def work(i: int):
        index.insert(f"t{i}", CORPUS[i])
        return index.query_batch(QUERIES)

    with ThreadPoolExecutor(4) as pool:
        results = list(pool.map(work, range(8)))
    assert len(index) == len(CORPUS) + 8
    for got in results:
        assert [[k for k in keys if not isinstance(k, str)] for keys in got] == expected


def test_stats_params_and_repr():
    index = built()
    s = index.stats()
    assert s["documents"] == s["uncommitted_documents"] == len(CORPUS) and s["segments"] == 0
    index.commit()
    s = index.stats()
    assert (s["documents"], s["uncommitted_documents"], s["segments"]) == (len(CORPUS), 0, 1)
    assert s["band_key_records"] == len(CORPUS) * index.params["bands"] and s["bytes"] > 0
    assert index.params["max_shingles"] is None
    assert re.fullmatch(
        r"<LSHIndex '.*' unit='document' num_perm=143 rows=11 bands=13 scheme='oph' documents=120>",
        repr(index),
    )


def test_docstring_example():
    import doctest

    runner = doctest.DocTestRunner()
    for test in doctest.DocTestFinder().find(LSHIndex, "LSHIndex", globs={"LSHIndex": LSHIndex}):
        runner.run(test)
    assert runner.failures == 0 and runner.tries > 0


def test_max_memory_changes_no_answer_and_refuses_too_little(tmp_path):
    """max_memory (bytes) bounds the writer as `index add --max-memory` does: the answers are
    those of an unbounded index, before and after compact(); below the minimum it is a
    ValueError naming the minimum, raised before the index is created."""
    with pytest.raises(ValueError, match="minimum of 83886080 bytes"):
        LSHIndex(str(tmp_path / "small"), unit="sentence", max_memory=1 << 20)
    assert not (tmp_path / "small").exists()
    plain = LSHIndex(unit="sentence")
    bounded = LSHIndex(str(tmp_path / "bounded"), unit="sentence", max_memory=80 << 20)
    for index in (plain, bounded):
        index.insert_batch(range(len(CORPUS)), CORPUS)
        index.commit()
    queries = CORPUS[::7]
    want = [plain.query(q) for q in queries]
    assert any(want)
    assert [bounded.query(q) for q in queries] == want
    bounded.compact()
    assert [bounded.query(q) for q in queries] == want
    del index, bounded  # the loop's name held it too: the writer's lock goes with the last
    gc.collect()
    with pytest.raises(ValueError, match="minimum"):
        LSHIndex.open(str(tmp_path / "bounded"), max_memory=0)
    reopened = LSHIndex.open(str(tmp_path / "bounded"), max_memory=256 << 20)
    assert [reopened.query(q) for q in queries] == want
