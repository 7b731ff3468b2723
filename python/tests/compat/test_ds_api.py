"""datasketch 2.0's public API where the 1.10 tests (ported in test_ds_*.py) do not reach it:
argument validation and its error types, MinHashLSH's `prepickle`, `hashfunc`, `check_duplication`,
`get_subset_counts` and query buffer, the forest's and ensemble's edge cases, the weighted
generator's input checks, and the top-level names users import. Written for textreuse from the
datasketch 2.0.0 source (MIT, Copyright (c) 2015 ekzhu); it passes against datasketch 2.0.0
(TEXTREUSE_COMPAT_TARGET=upstream). Scheme-specific behaviour is in test_ds_schemes.py.
"""

from __future__ import annotations

import hashlib
import pickle
import struct
import warnings

import numpy as np
import pytest

from compat._compat_impl import ds


def minhash(tokens, num_perm=16, **kwargs):
    m = ds.MinHash(num_perm, **kwargs)
    m.update_batch(tokens)
    return m


# ---------------------------------------------------------------- names


def test_top_level_names():
    for name in ["MinHash", "LeanMinHash", "WeightedMinHash", "WeightedMinHashGenerator",
                 "MinHashLSH", "MinHashLSHForest", "MinHashLSHEnsemble", "MinHashLSHBloom",
                 "sha1_hash32", "sha1_hash64"]:
        assert hasattr(ds, name), name
    # datasketch's aliases: the same classes serve weighted MinHash.
    assert ds.WeightedMinHashLSH is ds.MinHashLSH
    assert ds.WeightedMinHashLSHForest is ds.MinHashLSHForest
    assert issubclass(ds.LeanMinHash, ds.MinHash)


def test_sha1_hash_functions():
    digest = hashlib.sha1(b"abc").digest()
    assert ds.sha1_hash32(b"abc") == struct.unpack("<I", digest[:4])[0]
    assert ds.sha1_hash64(b"abc") == struct.unpack("<Q", digest[:8])[0]


# ---------------------------------------------------------------- MinHash


def test_digest_is_a_copy_and_clear_resets():
    m = minhash([b"a", b"b"])
    d = m.digest()
    assert np.array_equal(d, m.hashvalues) and d is not m.hashvalues
    d[0] = 0
    assert m.hashvalues[0] != 0
    m.clear()
    assert m.is_empty() and len(m) == 16


def test_hashobj_is_deprecated():
    with pytest.warns(DeprecationWarning):
        ds.MinHash(4, hashobj=object())


def test_update_batch_of_nothing_is_a_no_op():
    m = ds.MinHash(4)
    m.update_batch([])
    assert m.is_empty()


# ---------------------------------------------------------------- MinHashLSH


@pytest.mark.parametrize("kwargs", [
    {"threshold": 1.1},
    {"threshold": -0.1},
    {"num_perm": 1},
    {"weights": (1.2, -0.2)},
    {"weights": (0.5, 0.6)},
    {"num_perm": 16, "params": (5, 4)},  # b * r > num_perm
    {"num_perm": 16, "params": (1, 16)},  # b < 2
])
def test_lsh_rejects_bad_arguments(kwargs):
    with pytest.raises(ValueError):
        ds.MinHashLSH(**kwargs)


def test_lsh_parameters():
    lsh = ds.MinHashLSH()
    # The docstring's example: threshold 0.9 and 128 permutations give 5 bands of 25.
    assert (lsh.b, lsh.r, lsh.h) == (5, 25, 128)
    lsh = ds.MinHashLSH(num_perm=128, params=(16, 8))
    assert (lsh.b, lsh.r) == (16, 8)
    assert lsh.hashranges == [(i * 8, (i + 1) * 8) for i in range(16)]
    assert len(lsh.hashtables) == 16
    # b * r may be less than num_perm: the tail of the signature is unused.
    lsh = ds.MinHashLSH(num_perm=10, params=(3, 3))
    assert lsh.hashranges == [(0, 3), (3, 6), (6, 9)]


def test_lsh_duplicate_keys():
    lsh = ds.MinHashLSH(threshold=0.5, num_perm=16)
    m = minhash([b"a"])
    lsh.insert("a", m)
    with pytest.raises(ValueError):
        lsh.insert("a", m)
    lsh.insert("a", m, check_duplication=False)
    assert lsh.query(m) == ["a"]  # a list of unique keys


def test_lsh_query_returns_a_list_of_unique_keys():
    lsh = ds.MinHashLSH(threshold=0.5, num_perm=16)
    m = minhash([b"a", b"b"])
    for key in ["x", "y", 3, ("t", 1)]:
        lsh.insert(key, m)
    result = lsh.query(m)
    assert isinstance(result, list)
    assert sorted(map(repr, result)) == sorted(map(repr, ["x", "y", 3, ("t", 1)]))


def test_lsh_is_empty_and_remove():
    lsh = ds.MinHashLSH(threshold=0.5, num_perm=16)
    assert lsh.is_empty()
    lsh.insert("a", minhash([b"a"]))
    assert not lsh.is_empty()
    lsh.remove("a")
    assert lsh.is_empty() and "a" not in lsh
    with pytest.raises(ValueError):
        lsh.remove("a")


def test_lsh_prepickle_with_the_dict_storage():
    lsh = ds.MinHashLSH(threshold=0.5, num_perm=16, prepickle=True)
    m = minhash([b"a"])
    lsh.insert("a", m)
    lsh.insert(("b", 2), minhash([b"b"]))
    assert list(lsh.keys) == [pickle.dumps("a"), pickle.dumps(("b", 2))]
    for table in lsh.hashtables:
        assert pickle.dumps("a") in [key for H in table for key in table[H]]
    assert "a" in lsh and ("b", 2) in lsh
    assert lsh.query(m) == ["a"]
    lsh.remove("a")
    assert "a" not in lsh
    lsh2 = pickle.loads(pickle.dumps(lsh))
    assert lsh2.query(minhash([b"b"])) == [("b", 2)]


def test_lsh_hashfunc_compresses_bucket_keys():
    def h(data: bytes) -> bytes:
        return hashlib.md5(data).digest()[:4]

    lsh = ds.MinHashLSH(num_perm=16, params=(4, 4), hashfunc=h)
    m = minhash([b"a", b"b"])
    lsh.insert("a", m)
    raw = [m.hashvalues[i:i + 4].byteswap().tobytes() for i in range(0, 16, 4)]
    assert list(lsh.keys["a"]) == [h(x) for x in raw]
    assert lsh.hashfunc is h
    assert lsh.query(m) == ["a"]


def test_lsh_get_subset_counts():
    lsh = ds.MinHashLSH(num_perm=16, params=(4, 4))
    same = minhash([b"a", b"b"])
    lsh.insert("a", same)
    lsh.insert("b", same)
    lsh.insert("c", minhash([b"c", b"d"]))
    counts = lsh.get_subset_counts("a", "b")
    assert len(counts) == 4
    assert all(sorted(c.values()) == [2] for c in counts)
    full = lsh.get_counts()
    assert all(sum(c.values()) == 3 for c in full)


def test_lsh_query_buffer_intersects_buffered_queries():
    lsh = ds.MinHashLSH(num_perm=16, params=(4, 4))
    ab, cd = minhash([b"a", b"b"]), minhash([b"c", b"d"])
    lsh.insert("ab", ab)
    lsh.insert("cd", cd)
    assert lsh.collect_query_buffer() == []
    lsh.add_to_query_buffer(ab)
    lsh.add_to_query_buffer(cd)
    assert lsh.collect_query_buffer() == []  # no key answers both
    lsh.add_to_query_buffer(ab)
    lsh.add_to_query_buffer(ab)
    assert lsh.collect_query_buffer() == ["ab"]


def test_lsh_sessions_set_the_buffer_size():
    lsh = ds.MinHashLSH(threshold=0.5, num_perm=16)
    assert lsh.buffer_size == 50000
    with lsh.insertion_session(buffer_size=10) as session:
        session.insert("a", minhash([b"a"]))
        session.insert("b", minhash([b"b"]), check_duplication=False)
    assert lsh.buffer_size == 10
    with lsh.deletion_session(buffer_size=20) as session:
        session.remove("a")
        with pytest.raises(ValueError):
            session.remove("missing")
    assert lsh.buffer_size == 20
    assert "a" not in lsh and "b" in lsh


def test_lsh_merge_requires_equal_parameters_and_type():
    a = ds.MinHashLSH(num_perm=16, params=(4, 4))
    with pytest.raises(ValueError):
        a.merge(ds.MinHashLSH(num_perm=16, params=(2, 8)))
    with pytest.raises(ValueError):
        a.merge(ds.MinHashLSH(num_perm=32, params=(4, 4)))
    with pytest.raises(ValueError):
        a.merge(ds.MinHashLSHForest(num_perm=16))


def test_lsh_pickle_keeps_parameters_and_contents():
    lsh = ds.MinHashLSH(threshold=0.7, num_perm=32, weights=(0.3, 0.7))
    m = minhash([b"a", b"b"], num_perm=32)
    lsh.insert("a", m)
    lsh2 = pickle.loads(pickle.dumps(lsh))
    assert (lsh2.b, lsh2.r, lsh2.h, lsh2.hashranges) == (lsh.b, lsh.r, lsh.h, lsh.hashranges)
    assert list(lsh2.keys["a"]) == list(lsh.keys["a"])
    assert lsh2.query(m) == ["a"]
    with pytest.raises(ValueError):  # the scheme learned before pickling is kept
        lsh2.query(minhash([b"a"], num_perm=32, scheme="legacy"))


# ---------------------------------------------------------------- forest


def test_forest_arguments_and_edges():
    with pytest.raises(ValueError):
        ds.MinHashLSHForest(num_perm=16, l=0)
    with pytest.raises(ValueError):
        ds.MinHashLSHForest(num_perm=16, l=17)
    forest = ds.MinHashLSHForest(num_perm=16, l=4)
    assert (forest.l, forest.k) == (4, 4)
    assert forest.hashranges == [(0, 4), (4, 8), (8, 12), (12, 16)]
    m = minhash([b"a", b"b"])
    with pytest.raises(ValueError):
        forest.add("short", minhash([b"a"], num_perm=8))
    forest.add("a", m)
    assert forest.is_empty()  # not searchable before index()
    assert forest.query(m, 1) == []
    forest.index()
    assert not forest.is_empty()
    with pytest.raises(ValueError):
        forest.query(m, 0)
    with pytest.raises(ValueError):
        forest.query(minhash([b"a"], num_perm=8), 1)
    # A longer MinHash is accepted: the forest uses its first l * k values.
    longer = minhash([b"a", b"b"], num_perm=32)
    forest.add("longer", longer)
    forest.index()
    assert "longer" in forest.query(longer, 2)


def test_forest_query_returns_at_most_k():
    forest = ds.MinHashLSHForest(num_perm=16, l=4)
    same = minhash([b"a", b"b"])
    for i in range(5):
        forest.add(i, same)
    forest.index()
    assert len(forest.query(same, 3)) == 3
    assert sorted(forest.query(same, 10)) == [0, 1, 2, 3, 4]


# ---------------------------------------------------------------- ensemble


@pytest.mark.parametrize("kwargs", [
    {"threshold": 1.5},
    {"num_perm": 1},
    {"num_part": 0},
    {"m": 1},
    {"num_perm": 16, "m": 17},
    {"weights": (0.5, 0.4)},
])
def test_ensemble_rejects_bad_arguments(kwargs):
    with pytest.raises(ValueError):
        ds.MinHashLSHEnsemble(**kwargs)


def test_ensemble_index_rules_and_query_is_a_generator():
    ens = ds.MinHashLSHEnsemble(threshold=0.8, num_perm=16, num_part=2, m=4)
    assert ens.is_empty()
    with pytest.raises(ValueError):
        ens.index([])
    with pytest.raises(ValueError):
        ens.index(iter([("a", minhash([b"a"]), 0)]))
    entries = [("a", minhash([b"a", b"b"]), 2), ("b", minhash([b"c", b"d", b"e"]), 3)]
    ens.index(entries)
    assert not ens.is_empty() and "a" in ens and "zzz" not in ens
    with pytest.raises(ValueError):
        ens.index(entries)
    result = ens.query(minhash([b"a", b"b"]), 2)
    assert iter(result) is result  # a generator, as upstream
    assert "a" in set(result)


# ---------------------------------------------------------------- bloom


@pytest.mark.parametrize("kwargs", [
    {"n": None, "fp": 0.01},
    {"n": 0, "fp": 0.01},
    {"n": 10, "fp": None},
    {"n": 10, "fp": 1.0},
    {"n": 10, "fp": 0.01, "threshold": 1.5},
    {"n": 10, "fp": 0.01, "num_perm": 16, "params": (5, 4)},
])
def test_bloom_rejects_bad_arguments(kwargs, tmp_path):
    if ds.MinHashLSHBloom.__module__.startswith("datasketch"):
        pytest.importorskip("pybloomfilter", reason="datasketch's MinHashLSHBloom needs pybloomfilter3")
    with pytest.raises(ValueError):
        ds.MinHashLSHBloom(save_dir=str(tmp_path), **kwargs)


def test_bloom_without_save_dir_warns(tmp_path):
    if ds.MinHashLSHBloom.__module__.startswith("datasketch"):
        pytest.importorskip("pybloomfilter", reason="datasketch's MinHashLSHBloom needs pybloomfilter3")
    with pytest.warns(RuntimeWarning):
        ds.MinHashLSHBloom(threshold=0.5, num_perm=16, n=10, fp=0.01)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        lsh = ds.MinHashLSHBloom(threshold=0.5, num_perm=16, n=10, fp=0.01, save_dir=str(tmp_path))
        lsh.insert(minhash([b"a"]))
        assert lsh.query(minhash([b"a"]))
        lsh.sync()


# ---------------------------------------------------------------- weighted


def test_weighted_generator_input_checks():
    mg = ds.WeightedMinHashGenerator(3, 8, 1)
    with pytest.raises(TypeError):
        mg.minhash(iter([1, 2, 3]))
    with pytest.raises(ValueError):
        mg.minhash([1, 2])
    with pytest.raises(ValueError):
        mg.minhash([0, 0, 0])
    with pytest.raises(TypeError):
        mg.minhash_many([[1, 2, 3]])
    with pytest.raises(ValueError):
        mg.minhash_many(np.array([1, 2, 3]))
    with pytest.raises(ValueError):
        mg.minhash_many(np.array([[1, 2]]))


def test_weighted_minhash_api():
    mg = ds.WeightedMinHashGenerator(4, 16, 2)
    assert (mg.dim, mg.sample_size, mg.seed) == (4, 16, 2)
    assert mg.rs.shape == mg.ln_cs.shape == mg.betas.shape == (16, 4)
    assert mg.rs.dtype == np.float32
    m1 = mg.minhash([1, 2, 3, 4])
    m2 = mg.minhash(np.array([1, 2, 3, 4], dtype=np.float64))
    assert m1 == m2 and m1.jaccard(m2) == 1.0
    assert m1.hashvalues.shape == (16, 2) and m1.seed == 2 and len(m1) == 16
    c = m1.copy()
    assert c == m1 and c.hashvalues is not m1.hashvalues
    d = m1.digest()
    assert np.array_equal(d, m1.hashvalues)
    other = mg.minhash([4, 0, 1, 9])
    assert 0.0 <= m1.jaccard(other) < 1.0
    with pytest.raises(ValueError):
        m1.jaccard(ds.WeightedMinHashGenerator(4, 16, 3).minhash([1, 2, 3, 4]))
    with pytest.raises(ValueError):
        m1.jaccard(ds.WeightedMinHashGenerator(4, 8, 2).minhash([1, 2, 3, 4]))
    w = ds.WeightedMinHash(2, m1.hashvalues)
    assert w == m1
