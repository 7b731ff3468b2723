"""datasketch 2.0's permutation schemes ("affine32", the default, "affine64" and "legacy"), which
the 1.10 tests (ported in test_ds_*.py) predate. Written for textreuse from the datasketch 2.0.0
source (datasketch/minhash.py, lean_minhash.py, lsh.py, lshforest.py; MIT, Copyright (c) 2015
ekzhu); every behaviour pinned here is datasketch 2.0.0's, and the file passes against it
(TEXTREUSE_COMPAT_TARGET=upstream). The pinned hash values were produced by datasketch 2.0.0.
"""

from __future__ import annotations

import hashlib
import pickle
import struct

import numpy as np
import pytest

from compat._compat_impl import UPSTREAM, ds, fake_hash_func

SCHEMES = ["affine32", "affine64", "legacy"]
DTYPES = {"affine32": np.uint32, "affine64": np.uint64, "legacy": np.uint64}
EMPTY = {"affine32": (1 << 32) - 1, "affine64": (1 << 64) - 1, "legacy": (1 << 32) - 1}
#: The big-endian dtype of one hash value in an LSH bucket key (MinHashLSH._H: byteswapped data).
KEY_DTYPES = {"affine32": ">u4", "affine64": ">u8", "legacy": ">u8"}

#: MinHash(4, seed=1, scheme=...) after update(b"Hello"), and after update_batch([b"Hello",
#: b"world"]) on a fresh one: datasketch 2.0.0's values.
HELLO = {
    "affine32": [3231258861, 1388533999, 831950533, 1845606703],
    "affine64": [17263807126536662982, 6203611050164820875, 4141308390362884389,
                 4915270424612038026],
    "legacy": [734825475, 960773806, 359816889, 342714745],
}
HELLO_WORLD = {
    "affine32": [2814753368, 1388533999, 831950533, 1395965728],
    "affine64": [12286306572757250081, 6203611050164820875, 4141308390362884389,
                 4915270424612038026],
    "legacy": [734825475, 216833891, 359816889, 342714745],
}
#: LeanMinHash of the b"Hello" MinHash above: pickle state (= serialize(buf), native order).
HELLO_LEAN_STATE = {
    "affine32": "0100000000000000fcffffff01000000ed1899c0ef58c352c58e96312fb9016e",
    "affine64": "0100000000000000fcffffff02000000c62f13301d5d95ef8b1bc3c961a7175625a9ec18"
                "0ae278398ae5fbb1688c3644",
    "legacy": "010000000000000004000000038ccc2bae3e4439b95e721579696d14",
}


def minhash(tokens=(b"Hello",), num_perm=4, seed=1, scheme="affine32", **kwargs):
    m = ds.MinHash(num_perm, seed, scheme=scheme, **kwargs)
    for t in tokens:
        m.update(t)
    return m


# ---------------------------------------------------------------- MinHash


def test_default_scheme_is_affine32_with_uint32_values():
    m = ds.MinHash()
    assert m.scheme == "affine32"
    assert m.hashvalues.dtype == np.uint32
    assert len(m) == 128 and m.num_perm == 128 and m.seed == 1
    assert m.hashvalues.tolist() == [EMPTY["affine32"]] * 128
    assert m.is_empty()


@pytest.mark.parametrize("scheme", SCHEMES)
def test_scheme_dtypes_empty_values_and_permutations(scheme):
    m = ds.MinHash(16, 3, scheme=scheme)
    assert m.scheme == scheme
    assert m.hashvalues.dtype == DTYPES[scheme]
    assert m.hashvalues.tolist() == [EMPTY[scheme]] * 16
    assert m.is_empty()
    a, b = m.permutations
    assert len(a) == len(b) == 16
    assert np.asarray(m.permutations).dtype == DTYPES[scheme]
    if scheme == "legacy":
        prime = (1 << 61) - 1
        assert all(1 <= int(x) < prime for x in a) and all(0 <= int(x) < prime for x in b)
    else:
        # The affine maps are bijections: every multiplier is odd.
        assert all(int(x) % 2 == 1 for x in a)
    m.update(b"x")
    assert not m.is_empty()
    assert m.hashvalues.dtype == DTYPES[scheme]
    if scheme == "legacy":
        assert all(int(v) < (1 << 32) for v in m.hashvalues)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_pinned_values_update_and_update_batch(scheme):
    m = minhash(scheme=scheme)
    assert m.hashvalues.tolist() == HELLO[scheme]
    batch = ds.MinHash(4, 1, scheme=scheme)
    batch.update_batch([b"Hello", b"world"])
    assert batch.hashvalues.tolist() == HELLO_WORLD[scheme]
    one_by_one = minhash([b"Hello", b"world"], scheme=scheme)
    assert one_by_one == batch
    assert batch.hashvalues.dtype == DTYPES[scheme]


def test_default_hashfunc_matches_scheme_width():
    data = b"some token"
    digest = hashlib.sha1(data).digest()
    assert ds.MinHash(4).hashfunc(data) == struct.unpack("<I", digest[:4])[0]
    assert ds.MinHash(4, scheme="legacy").hashfunc(data) == struct.unpack("<I", digest[:4])[0]
    assert ds.MinHash(4, scheme="affine64").hashfunc(data) == struct.unpack("<Q", digest[:8])[0]


def test_unknown_scheme_is_rejected():
    with pytest.raises(ValueError):
        ds.MinHash(4, scheme="affine16")
    with pytest.raises(ValueError):
        ds.LeanMinHash(seed=1, hashvalues=[1, 2], scheme="affine16")


@pytest.mark.parametrize("kwargs", [
    {"hashvalues": [1, 2, 3, 4]},
    {"permutations": ([1, 3], [0, 0])},
])
def test_state_without_scheme_is_rejected(kwargs):
    with pytest.raises(ValueError):
        ds.MinHash(**kwargs)


@pytest.mark.parametrize("scheme", SCHEMES)
def test_state_with_scheme_roundtrips(scheme):
    m = minhash([b"a", b"b"], scheme=scheme)
    m2 = ds.MinHash(seed=m.seed, hashvalues=m.hashvalues, permutations=m.permutations, scheme=scheme)
    assert m2 == m
    assert m2.hashvalues.dtype == DTYPES[scheme]
    m2.update(b"c")
    m.update(b"c")
    assert m2 == m
    # The num_perm argument is ignored when hashvalues are given.
    assert len(ds.MinHash(num_perm=7, hashvalues=m.hashvalues, scheme=scheme)) == 4


def test_num_perm_must_be_positive_and_hashfunc_callable():
    with pytest.raises(ValueError):
        ds.MinHash(0)
    with pytest.raises(ValueError):
        ds.MinHash(4, hashfunc="sha1")


@pytest.mark.skipif(
    UPSTREAM and int(np.__version__.split(".")[0]) < 2,
    reason="numpy < 2 wraps out-of-range ints with a DeprecationWarning instead of raising",
)
def test_hashfunc_value_out_of_range_for_affine32_is_a_value_error():
    m = ds.MinHash(4, hashfunc=fake_hash_func)
    with pytest.raises(ValueError):
        m.update(1 << 32)
    with pytest.raises(ValueError):
        m.update_batch([1, 1 << 32])
    wide = ds.MinHash(4, hashfunc=fake_hash_func, scheme="affine64")
    wide.update((1 << 64) - 1)
    assert not wide.is_empty()


def test_affine_state_is_validated():
    with pytest.raises(ValueError):  # above 2^32 - 1
        ds.MinHash(hashvalues=np.array([1 << 32, 1], dtype=np.uint64), scheme="affine32")
    with pytest.raises(ValueError):  # negative
        ds.MinHash(hashvalues=np.array([-1, 1], dtype=np.int64), scheme="affine32")
    with pytest.raises(ValueError):  # an even multiplier is no bijection
        ds.MinHash(permutations=([2, 3], [0, 0]), scheme="affine32")
    with pytest.raises(ValueError):  # hash values and permutations disagree in number
        ds.MinHash(hashvalues=[1, 2, 3], permutations=([1, 3], [0, 0]), scheme="affine32")


@pytest.mark.parametrize("scheme", SCHEMES)
def test_operations_refuse_mixed_schemes(scheme):
    other = "affine32" if scheme != "affine32" else "legacy"
    m1, m2 = minhash(scheme=scheme), minhash(scheme=other)
    with pytest.raises(ValueError):
        m1.jaccard(m2)
    with pytest.raises(ValueError):
        m1.merge(m2)
    with pytest.raises(ValueError):
        ds.MinHash.union(m1, m2)
    with pytest.raises(ValueError):
        ds.LeanMinHash.union(ds.LeanMinHash(m1), ds.LeanMinHash(m2))
    # Same seed and (for an empty sketch, numerically equal) values, other scheme: not equal.
    e1 = ds.MinHash(4, 1, scheme="affine32")
    e2 = ds.MinHash(hashvalues=e1.hashvalues, scheme="legacy")
    assert e1 != e2


def test_mixed_seeds_and_sizes_are_refused():
    with pytest.raises(ValueError):
        minhash(seed=1).jaccard(minhash(seed=2))
    with pytest.raises(ValueError):
        minhash(num_perm=4).merge(minhash(num_perm=8))
    with pytest.raises(ValueError):
        ds.MinHash.union(minhash())


@pytest.mark.parametrize("scheme", SCHEMES)
def test_copy_union_bulk_generator_keep_the_scheme(scheme):
    m = minhash([b"a", b"b"], scheme=scheme)
    c = m.copy()
    assert c == m and c.scheme == scheme and c is not m
    c.update(b"z")
    assert c != m  # the copy's values are its own
    u = ds.MinHash.union(m, minhash([b"c"], scheme=scheme))
    assert u.scheme == scheme and u == minhash([b"a", b"b", b"c"], scheme=scheme)
    data = [[b"a", b"b"], [b"c"]]
    bulk = ds.MinHash.bulk(data, num_perm=4, scheme=scheme)
    assert [x.scheme for x in bulk] == [scheme, scheme]
    assert bulk[0] == m
    assert list(ds.MinHash.generator(data, num_perm=4, scheme=scheme)) == bulk


@pytest.mark.parametrize("scheme", SCHEMES)
def test_count_uses_the_scheme_range(scheme):
    m = ds.MinHash(256, 1, scheme=scheme)
    m.update_batch([str(i).encode() for i in range(1000)])
    assert 700 < m.count() < 1300
    assert ds.MinHash(4, 1, scheme=scheme).count() == 0.0


@pytest.mark.parametrize("scheme", SCHEMES)
def test_pickle_keeps_the_scheme(scheme):
    m = minhash([b"a", b"b"], scheme=scheme)
    p = pickle.loads(pickle.dumps(m))
    assert p == m and p.scheme == scheme
    assert p.hashvalues.dtype == DTYPES[scheme]
    p.update(b"c")
    m.update(b"c")
    assert p == m


# ---------------------------------------------------------------- LeanMinHash


@pytest.mark.parametrize("scheme", SCHEMES)
def test_lean_bytesize_per_scheme(scheme):
    lm = ds.LeanMinHash(minhash(num_perm=10, scheme=scheme))
    width = 8 if scheme == "affine64" else 4
    if scheme == "legacy":
        expected = {bo: 8 + 4 + 10 * 4 for bo in "@=<>!"}
    else:
        # seed, negated count, scheme code byte, values; natively the values are aligned.
        expected = {bo: 8 + 4 + 1 + 10 * width for bo in "=<>!"}
        expected["@"] = struct.calcsize("@qiB%d%s" % (10, "Q" if width == 8 else "I"))
    for bo, size in expected.items():
        assert lm.bytesize(bo) == size, bo
    assert lm.bytesize() == expected["@"]


@pytest.mark.parametrize("scheme", SCHEMES)
@pytest.mark.parametrize("byteorder", "@=<>!")
def test_lean_serialize_layout_and_roundtrip(scheme, byteorder):
    m = minhash([b"a", b"b", b"c"], num_perm=10, seed=7, scheme=scheme)
    lm = ds.LeanMinHash(m)
    buf = bytearray(lm.bytesize(byteorder))
    lm.serialize(buf, byteorder)
    value = "Q" if scheme == "affine64" else "I"
    if scheme == "legacy":
        fields = struct.unpack("%sqi10I" % byteorder, bytes(buf))
        assert fields[:2] == (7, 10)
        assert list(fields[2:]) == m.hashvalues.tolist()
    else:
        fields = struct.unpack("%sqiB10%s" % (byteorder, value), bytes(buf))
        assert fields[:3] == (7, -10, {"affine32": 1, "affine64": 2}[scheme])
        assert list(fields[3:]) == m.hashvalues.tolist()
    back = ds.LeanMinHash.deserialize(buf, byteorder)
    assert back.scheme == scheme and back.seed == 7
    assert back == lm
    assert back.hashvalues.dtype == DTYPES[scheme]
    # A memoryview and bytes deserialize too (upstream falls back to memoryview on TypeError).
    assert ds.LeanMinHash.deserialize(memoryview(bytes(buf)), byteorder) == lm
    assert ds.LeanMinHash.deserialize(bytes(buf), byteorder) == lm


def test_lean_serialize_needs_room_and_rejects_unknown_scheme_code():
    lm = ds.LeanMinHash(minhash())
    with pytest.raises(ValueError):
        lm.serialize(bytearray(lm.bytesize() - 1))
    buf = bytearray(lm.bytesize("<"))
    lm.serialize(buf, "<")
    buf[12] = 9  # the scheme code byte
    with pytest.raises(ValueError):
        ds.LeanMinHash.deserialize(buf, "<")


@pytest.mark.parametrize("scheme", SCHEMES)
def test_lean_pickle_state_is_the_native_serialization(scheme):
    lm = ds.LeanMinHash(minhash(scheme=scheme))
    assert bytes(lm.__getstate__()).hex() == HELLO_LEAN_STATE[scheme]
    buf = bytearray(lm.bytesize())
    lm.serialize(buf)
    assert bytes(buf).hex() == HELLO_LEAN_STATE[scheme]
    p = pickle.loads(pickle.dumps(lm))
    assert p == lm and p.scheme == scheme and hash(p) == hash(lm)


def test_lean_constructor_rules():
    m = minhash()
    with pytest.raises(ValueError):  # scheme must agree with the MinHash's
        ds.LeanMinHash(m, scheme="legacy")
    assert ds.LeanMinHash(m, scheme="affine32") == ds.LeanMinHash(m)
    with pytest.raises(ValueError):  # hash values without a scheme
        ds.LeanMinHash(seed=1, hashvalues=m.hashvalues)
    with pytest.raises(ValueError):  # neither a MinHash nor seed and hash values
        ds.LeanMinHash()
    with pytest.raises(ValueError):  # an empty affine sketch cannot be serialized unambiguously
        ds.LeanMinHash(seed=1, hashvalues=[], scheme="affine32")
    lm = ds.LeanMinHash(seed=1, hashvalues=m.hashvalues, scheme="affine32")
    assert lm.scheme == "affine32" and lm.hashvalues.dtype == np.uint32
    c = lm.copy()
    assert isinstance(c, ds.LeanMinHash) and c == lm and c.scheme == "affine32"
    with pytest.raises(TypeError):
        lm.update(b"x")


def test_lean_and_minhash_interoperate_but_are_not_equal():
    m = minhash([b"a", b"b"])
    lm = ds.LeanMinHash(m)
    assert lm.jaccard(m) == 1.0 and m.jaccard(lm) == 1.0
    assert lm != m  # __eq__ compares types too
    back = ds.MinHash(seed=lm.seed, hashvalues=lm.digest(), scheme=lm.scheme)
    assert back == m


# ---------------------------------------------------------------- indexes


@pytest.mark.parametrize("scheme", SCHEMES)
def test_lsh_bucket_keys_are_big_endian_values_of_the_scheme_width(scheme):
    m = minhash([b"a", b"b"], num_perm=16, scheme=scheme)
    lsh = ds.MinHashLSH(num_perm=16, params=(4, 4))
    assert lsh.hashranges == [(0, 4), (4, 8), (8, 12), (12, 16)]
    lsh.insert("k", m)
    expected = [m.hashvalues[i:i + 4].astype(KEY_DTYPES[scheme]).tobytes() for i in range(0, 16, 4)]
    assert list(lsh.keys["k"]) == expected
    assert [lsh._H(m.hashvalues[i:i + 4]) for i in range(0, 16, 4)] == expected
    for table, key in zip(lsh.hashtables, expected):
        assert set(table[key]) == {"k"}


def test_lsh_refuses_a_second_scheme():
    lsh = ds.MinHashLSH(threshold=0.5, num_perm=16)
    lsh.insert("a", minhash(num_perm=16))
    legacy = minhash(num_perm=16, scheme="legacy")
    with pytest.raises(ValueError):
        lsh.insert("b", legacy)
    with pytest.raises(ValueError):
        lsh.query(legacy)
    with pytest.raises(ValueError):
        lsh.add_to_query_buffer(legacy)
    assert "b" not in lsh
    assert lsh.query(minhash(num_perm=16)) == ["a"]
    # Weighted MinHash have no scheme and are exempt from the check.
    wm = ds.WeightedMinHashGenerator(4, 16).minhash([1, 2, 3, 4])
    lsh.insert("w", wm)
    assert "w" in lsh


def test_lsh_merge_refuses_a_second_scheme_and_adopts_the_other():
    a = ds.MinHashLSH(threshold=0.5, num_perm=16)
    a.insert("a", minhash(num_perm=16))
    b = ds.MinHashLSH(threshold=0.5, num_perm=16)
    b.insert("b", minhash(num_perm=16, scheme="legacy"))
    with pytest.raises(ValueError):
        a.merge(b)
    empty = ds.MinHashLSH(threshold=0.5, num_perm=16)
    empty.merge(b)  # an index without inserts takes the other's scheme
    assert "b" in empty
    with pytest.raises(ValueError):
        empty.query(minhash(num_perm=16))


def test_forest_refuses_a_second_scheme():
    forest = ds.MinHashLSHForest(num_perm=16, l=4)
    forest.add("a", minhash(num_perm=16))
    forest.index()
    legacy = minhash(num_perm=16, scheme="legacy")
    with pytest.raises(ValueError):
        forest.add("b", legacy)
    with pytest.raises(ValueError):
        forest.query(legacy, 1)
    assert forest.query(minhash(num_perm=16), 1) == ["a"]


@pytest.mark.parametrize("scheme", SCHEMES)
def test_forest_returns_hashvalues_of_the_scheme_width(scheme):
    m = minhash([b"a", b"b"], num_perm=16, scheme=scheme)
    forest = ds.MinHashLSHForest(num_perm=16, l=4)
    forest.add("a", m)
    hv = forest.get_minhash_hashvalues("a")
    assert hv.dtype == (np.uint32 if scheme == "affine32" else np.uint64)
    assert hv.tolist() == m.hashvalues.tolist()
    with pytest.raises(KeyError):
        forest.get_minhash_hashvalues("missing")


def test_ensemble_refuses_a_second_scheme_lazily():
    ens = ds.MinHashLSHEnsemble(threshold=0.5, num_perm=16, num_part=2, m=2)
    ens.index([("a", minhash([b"a", b"b"], num_perm=16), 2),
               ("b", minhash([b"c"], num_perm=16), 1)])
    assert "a" in list(ens.query(minhash([b"a", b"b"], num_perm=16), 2))
    with pytest.raises(ValueError):
        list(ens.query(minhash([b"a", b"b"], num_perm=16, scheme="legacy"), 2))
