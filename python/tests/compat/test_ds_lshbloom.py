# Ported from datasketch's test suite: test/test_lshbloom.py of
# https://github.com/ekzhu/datasketch at version 1.10.0 (the last published tests; datasketch
# 2.0.0 ships none). Copyright (c) 2015 ekzhu. Licensed under the MIT License (see README.md in
# this directory).
#
# Changes from upstream (every assertion is kept):
# - imports go through compat/_compat_impl.py (`ds`: textreuse.compat.datasketch, or the real
#   datasketch with TEXTREUSE_COMPAT_TARGET=upstream). Upstream's MinHashLSHBloom needs
#   pybloomfilter3 (`datasketch[bloom]`): against upstream the module is skipped without it;
# - BloomTable (one band's Bloom filter) is datasketch's internal class: TestBloomTable is
#   skipped when the target does not export it (textreuse.compat need not);
# - the files the tests write go to a fresh temporary directory instead of /tmp/bloomfilter.bf
#   and ./test_save/ (upstream removed stale files from those fixed paths first; a fresh
#   directory needs no cleaning and cannot collide with a parallel run).
import os
import tempfile
import unittest
from glob import glob

import numpy as np
import pytest

from compat._compat_impl import UPSTREAM, ds, optional

if UPSTREAM:
    pytest.importorskip(
        "pybloomfilter",
        reason="datasketch's MinHashLSHBloom needs pybloomfilter3 (pip install datasketch[bloom])",
    )

BloomTable = optional("BloomTable", "datasketch.lsh_bloom")
MinHashLSHBloom = ds.MinHashLSHBloom
MinHash = ds.MinHash


class _TempDir(unittest.TestCase):
    """A fresh temporary directory per test, removed afterwards (self.tmp)."""

    def setUp(self):
        self._tmp = tempfile.TemporaryDirectory()
        self.tmp = self._tmp.name
        self.addCleanup(self._tmp.cleanup)


@pytest.mark.skipif(
    BloomTable is None,
    reason="BloomTable is datasketch's internal per-band filter; textreuse.compat.datasketch "
    "does not export it (MinHashLSHBloom is tested below)",
)
class TestBloomTable(_TempDir):
    def test_insert(self):
        r = 3
        x = np.array([2, 3, 31], dtype=np.uint32)
        b = BloomTable(10, 0.01, band_size=r)
        b.insert(x)
        self.assertRaises(RuntimeError, b.insert, np.array([2, 2], dtype=np.uint32))

    def test_query(self):
        r = 3
        x = np.array([2, 3, 31], dtype=np.uint32)
        b = BloomTable(10, 0.01, band_size=r)
        b.insert(x)
        self.assertTrue(b.query(x))
        self.assertFalse(b.query(np.array([2, 3, 30], dtype=np.uint32)))
        self.assertRaises(RuntimeError, b.query, [2, 2])

    def test_save(self):
        fname = os.path.join(self.tmp, "bloomfilter.bf")  # was "/tmp/bloomfilter.bf"
        if os.path.exists(fname):
            os.remove(fname)
        r = 3
        x = np.array([2, 3, 31], dtype=np.uint32)
        y = np.array([12, 10, 29], dtype=np.uint32)
        z = np.array([27, 30, 8], dtype=np.uint32)
        items = [x, y, z]
        b = BloomTable(10, 0.01, band_size=r, fname=fname)
        for item in items:
            b.insert(item)
        for item in items:
            self.assertTrue(b.query(item))
        b.sync()

        del b

        b_ = BloomTable(10, 0.01, band_size=r, fname=fname)
        for item in items:
            self.assertTrue(b_.query(item))


class TestMinHashLSHBloom(_TempDir):
    def test_init(self):
        lsh = MinHashLSHBloom(threshold=0.8, n=10, fp=0.01)
        b1, r1 = lsh.b, lsh.r
        lsh = MinHashLSHBloom(threshold=0.8, weights=(0.2, 0.8), n=10, fp=0.01)
        b2, r2 = lsh.b, lsh.r
        self.assertTrue(b1 < b2)
        self.assertTrue(r1 > r2)
        self.assertTrue(len(lsh.hashtables) == lsh.b)

    def test_insert(self):
        lsh = MinHashLSHBloom(threshold=0.5, num_perm=16, n=10, fp=0.01)
        m1 = MinHash(16)
        m1.update(b"a")
        m2 = MinHash(16)
        m2.update(b"b")
        lsh.insert(m1)
        lsh.insert(m2)

        m3 = MinHash(18)
        self.assertRaises(ValueError, lsh.insert, m3)

    def test_query(self):
        lsh = MinHashLSHBloom(threshold=0.5, num_perm=16, n=10, fp=0.01)
        m1 = MinHash(16)
        m1.update(b"a")
        m2 = MinHash(16)
        m2.update(b"b")
        lsh.insert(m1)
        lsh.insert(m2)
        result = lsh.query(m1)
        self.assertTrue(result)
        result = lsh.query(m2)
        self.assertTrue(result)

        m3 = MinHash(18)
        self.assertRaises(ValueError, lsh.query, m3)

    def test_save(self):
        save_path = os.path.join(self.tmp, "test_save") + "/"  # was "./test_save/"
        for item in glob(f"{save_path}/*.bf"):
            os.remove(item)

        lsh = MinHashLSHBloom(threshold=0.5, num_perm=16, n=10, fp=0.01, save_dir=save_path)
        m1 = MinHash(16)
        m1.update(b"a")
        m2 = MinHash(16)
        m2.update(b"b")
        lsh.insert(m1)
        lsh.insert(m2)
        lsh.sync()

        lsh2 = MinHashLSHBloom(threshold=0.5, num_perm=16, n=10, fp=0.01, save_dir=save_path)
        result = lsh2.query(m1)
        self.assertTrue(result)
        result = lsh2.query(m2)
        self.assertTrue(result)

    def test_save_in_memory(self):
        with self.assertWarns(RuntimeWarning):
            lsh = MinHashLSHBloom(threshold=0.5, num_perm=16, n=10, fp=0.01, save_dir=None)

        m1 = MinHash(16)
        m1.update(b"a")
        m2 = MinHash(16)
        m2.update(b"b")
        lsh.insert(m1)
        lsh.insert(m2)

        with self.assertWarns(RuntimeWarning):
            lsh.sync()


if __name__ == "__main__":
    unittest.main()
