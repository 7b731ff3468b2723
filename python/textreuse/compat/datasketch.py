"""datasketch 2.0's API on textreuse's Rust core: change ``from datasketch import ...`` to
``from textreuse.compat.datasketch import ...``.

The classes take datasketch's constructor arguments and methods with its semantics and errors:

- :class:`MinHash` hashes with datasketch's SHA-1 hash and permutation schemes (``affine32``,
  the default; ``affine64``; ``legacy``), so hash values are bit-identical to
  ``datasketch.MinHash``'s for the same seed, ``num_perm``, scheme and items, and the two can be
  compared, merged and indexed together. Hashing and the permutations run in Rust
  (``MinHash.bulk`` on all cores).
- :class:`MinHashLSH` chooses bands and rows with datasketch's criterion (minimal weighted
  false-positive and false-negative areas) and keeps its tables in Rust
  (``textreuse_index::BandTables``); ``hashtables``, ``keys``, ``get_counts``, ``merge``,
  sessions and pickling behave as datasketch's in-memory storage does.
- :class:`MinHashLSHForest` answers top-k queries by prefix search over sorted band bytes.
- :class:`MinHashLSHEnsemble` answers containment queries over size partitions (Zhu et al.,
  VLDB 2016), partitioned and tuned in Rust.
- :class:`MinHashLSHBloom` keeps one Bloom filter per band (``textreuse_index::BandBloom``).

Deliberate differences: no Redis or Cassandra storage (``storage_config`` other than
``{"type": "dict"}`` raises ``ValueError``; use :class:`textreuse.LSHIndex` with a path for an
index on disk), no GPU mode (``gpu_mode="always"`` raises ``RuntimeError``, as datasketch does
without CUDA), and :class:`MinHashLSHBloom` saves its filters in its own file format.
"""

from __future__ import annotations

import collections.abc
import copy as _copy
import os
import pickle
import struct
import warnings
from collections import Counter
from collections.abc import Generator, Hashable, Iterable
from typing import Callable, Optional

import numpy as np

from .. import _native

__all__ = [
    "BloomTable",
    "LeanMinHash",
    "MinHash",
    "MinHashLSH",
    "MinHashLSHBloom",
    "MinHashLSHEnsemble",
    "MinHashLSHForest",
    "WeightedMinHash",
    "WeightedMinHashGenerator",
    "WeightedMinHashLSH",
    "WeightedMinHashLSHForest",
    "sha1_hash32",
    "sha1_hash64",
]

_mersenne_prime = np.uint64((1 << 61) - 1)
_max_hash = np.uint64((1 << 32) - 1)
_hash_range = 1 << 32

_LEGACY, _AFFINE32, _AFFINE64 = "legacy", "affine32", "affine64"
_SCHEMES = (_AFFINE32, _AFFINE64, _LEGACY)
_DTYPES = {_LEGACY: np.uint64, _AFFINE32: np.uint32, _AFFINE64: np.uint64}
_MAX = {
    _LEGACY: _max_hash,
    _AFFINE32: np.uint32((1 << 32) - 1),
    _AFFINE64: np.uint64((1 << 64) - 1),
}
_WIDTHS = {_AFFINE32: 32, _AFFINE64: 64}
# The scheme codes of LeanMinHash's byte format (legacy payloads have none).
_CODES = {_AFFINE32: 1, _AFFINE64: 2}
_CODES_INV = {v: k for k, v in _CODES.items()}
_VALUE_FMTS = {_LEGACY: "I", _AFFINE32: "I", _AFFINE64: "Q"}


def sha1_hash32(data) -> int:
    """datasketch's default 32-bit hash: the first 4 bytes of SHA-1, little-endian."""
    import hashlib

    return struct.unpack("<I", hashlib.sha1(data).digest()[:4])[0]


def sha1_hash64(data) -> int:
    """datasketch's 64-bit hash (scheme ``affine64``): the first 8 bytes of SHA-1."""
    import hashlib

    return struct.unpack("<Q", hashlib.sha1(data).digest()[:8])[0]


# Permutation parameters are drawn with numpy's RandomState(seed), as datasketch draws them;
# the native object that applies them is made once per (scheme, seed, num_perm).
_PERMUTATIONS: dict = {}


def _generate_permutations(scheme: str, seed: int, num_perm: int) -> np.ndarray:
    gen = np.random.RandomState(seed)
    if scheme == _LEGACY:
        return np.array(
            [
                (
                    gen.randint(1, _mersenne_prime, dtype=np.uint64),
                    gen.randint(0, _mersenne_prime, dtype=np.uint64),
                )
                for _ in range(num_perm)
            ],
            dtype=np.uint64,
        ).T
    width, dtype = _WIDTHS[scheme], _DTYPES[scheme]
    a = gen.randint(0, 1 << (width - 1), num_perm, dtype=dtype) * dtype(2) + dtype(1)
    b = gen.randint(0, 1 << width, num_perm, dtype=dtype)
    return np.array([a, b])


def _cached_permutations(scheme: str, seed: int, num_perm: int):
    key = (scheme, seed, num_perm)
    hit = _PERMUTATIONS.get(key)
    if hit is None:
        perms = _generate_permutations(scheme, seed, num_perm)
        perms.setflags(write=False)
        native = _native.AffinePermutations(
            scheme, perms[0].astype(np.uint64), perms[1].astype(np.uint64)
        )
        if len(_PERMUTATIONS) > 64:
            _PERMUTATIONS.clear()
        hit = _PERMUTATIONS[key] = (perms, native)
    return hit


def _check_scheme_consistency(known: Optional[str], minhash) -> Optional[str]:
    scheme = getattr(minhash, "scheme", None)
    if scheme is None:
        return known
    if known is None:
        return scheme
    if scheme != known:
        raise ValueError(
            "MinHash scheme %r does not match scheme %r of the MinHash previously given to "
            "this index" % (scheme, known)
        )
    return known


class MinHash:
    """datasketch's ``MinHash`` (same arguments, methods, hash values and errors).

    >>> from textreuse.compat.datasketch import MinHash
    >>> m1, m2 = MinHash(num_perm=128), MinHash(num_perm=128)
    >>> m1.update_batch([w.encode() for w in "the old mill on the river".split()])
    >>> m2.update_batch([w.encode() for w in "the old mill by the river".split()])
    >>> round(m1.jaccard(m2), 1)
    0.7
    """

    def __init__(
        self,
        num_perm: int = 128,
        seed: int = 1,
        gpu_mode: str = "disable",
        hashfunc: Optional[Callable] = None,
        hashobj: Optional[object] = None,
        hashvalues=None,
        permutations=None,
        scheme: Optional[str] = None,
    ) -> None:
        if scheme is None:
            if hashvalues is not None or permutations is not None:
                raise ValueError(
                    "scheme must be specified explicitly when initializing from existing hash "
                    "values or permutations: pass the scheme of the MinHash they came from, or "
                    "scheme='legacy' for values created by datasketch before 2.0.0."
                )
            scheme = _AFFINE32
        elif scheme not in _SCHEMES:
            raise ValueError("scheme must be one of %s, got %r" % (", ".join(_SCHEMES), scheme))
        self.scheme = scheme
        if hashvalues is not None:
            num_perm = len(hashvalues)
        if num_perm < 1:
            raise ValueError("num_perm must be positive")
        if num_perm > _hash_range:
            raise ValueError(
                "Cannot have more than %d number of permutation functions" % _hash_range
            )
        if gpu_mode not in ("disable", "detect", "always"):
            raise ValueError("gpu_mode must be 'disable', 'detect' or 'always'")
        self._gpu_mode = gpu_mode
        # datasketch's device caches; always empty here (no GPU path).
        self._a_gpu = None
        self._b_gpu = None
        self.seed = seed
        self.num_perm = num_perm
        self._default_hash = hashfunc is None
        if hashfunc is None:
            hashfunc = sha1_hash64 if scheme == _AFFINE64 else sha1_hash32
        if not callable(hashfunc):
            raise ValueError("The hashfunc must be a callable.")
        self.hashfunc = hashfunc
        if hashobj is not None:
            warnings.warn(
                "hashobj is deprecated, use hashfunc instead.", DeprecationWarning, stacklevel=2
            )
        if hashvalues is not None:
            self.hashvalues = self._parse_hashvalues(hashvalues)
        else:
            self.hashvalues = self._init_hashvalues(num_perm)
        self._native = None
        if permutations is not None:
            self.permutations = self._parse_permutations(permutations)
        else:
            self.permutations, self._native = _cached_permutations(scheme, seed, num_perm)
        if len(self) != len(self.permutations[0]):
            raise ValueError("Numbers of hash values and permutations mismatch")

    # -- state ---------------------------------------------------------------------------

    def _init_hashvalues(self, num_perm: int) -> np.ndarray:
        return np.full(num_perm, _MAX[self.scheme], dtype=_DTYPES[self.scheme])

    def _to_scheme_array(self, values, what: str) -> np.ndarray:
        if isinstance(values, np.ndarray):
            if (
                values.dtype.kind in "iu"
                and values.size
                and (int(values.max()) > int(_MAX[self.scheme]) or int(values.min()) < 0)
            ):
                raise ValueError("%s out of range for scheme %r" % (what, self.scheme))
            return values.astype(_DTYPES[self.scheme])
        try:
            return np.array(values, dtype=_DTYPES[self.scheme])
        except OverflowError as err:
            raise ValueError("%s out of range for scheme %r: %s" % (what, self.scheme, err)) from err

    def _parse_hashvalues(self, hashvalues) -> np.ndarray:
        if self.scheme == _LEGACY:
            return np.array(hashvalues, dtype=np.uint64)
        return self._to_scheme_array(hashvalues, "hash values")

    def _parse_permutations(self, permutations):
        if self.scheme == _LEGACY:
            return permutations
        dtype = _DTYPES[self.scheme]
        if (
            isinstance(permutations, np.ndarray)
            and permutations.dtype == dtype
            and permutations.ndim == 2
            and permutations.shape[0] == 2
        ):
            parsed = permutations
        else:
            a = self._to_scheme_array(permutations[0], "permutation parameters")
            b = self._to_scheme_array(permutations[1], "permutation parameters")
            parsed = np.array([a, b])
        if np.any(parsed[0] & dtype(1) == 0):
            raise ValueError(
                "all `a` permutation parameters must be odd for scheme %r" % self.scheme
            )
        return parsed

    def _kernel(self):
        """The native permutations of this MinHash (made on first use for given ones)."""
        if self._native is None:
            a, b = self.permutations
            self._native = _native.AffinePermutations(
                self.scheme,
                np.asarray(a, dtype=np.uint64),
                np.asarray(b, dtype=np.uint64),
            )
        return self._native

    def _fold(self, minima: np.ndarray) -> None:
        self.hashvalues = np.minimum(self.hashvalues, minima.astype(_DTYPES[self.scheme]))

    # -- updates -------------------------------------------------------------------------

    def update(self, b) -> None:
        """Adds one item: bytes with the default hash, anything ``hashfunc`` takes otherwise."""
        if self._default_hash:
            self._fold(self._kernel().minima((b,)))
        else:
            self._fold(self._hashes_minima([self.hashfunc(b)]))

    def update_batch(self, b: Iterable) -> None:
        """Adds every item of ``b``. ``gpu_mode="always"`` raises ``RuntimeError`` here, as
        datasketch does without a CUDA device: this implementation has no GPU path."""
        if self._gpu_mode == "always":
            raise RuntimeError(
                "GPU mode 'always' requested but CuPy/CUDA device is unavailable "
                "(textreuse.compat runs on the CPU; use gpu_mode='disable' or 'detect')."
            )
        if self._default_hash:
            items = b if isinstance(b, (list, tuple)) else list(b)
            if not items:
                return
            self._fold(self._kernel().minima(items))
        else:
            hashes = [self.hashfunc(x) for x in b]
            if not hashes:
                return
            self._fold(self._hashes_minima(hashes))

    def _hashes_minima(self, hashes) -> np.ndarray:
        try:
            array = np.array(hashes, dtype=np.uint64)
        except (OverflowError, ValueError, TypeError) as err:
            raise ValueError(
                "hashfunc returned a value out of range for scheme %r: %s. Use a hash function "
                "matching the scheme width, or scheme='affine64' for 64-bit hash values."
                % (self.scheme, err)
            ) from err
        return self._kernel().minima_of_hashes(array.reshape(-1))

    # -- queries -------------------------------------------------------------------------

    def _check_compatible(self, other, verb: str) -> None:
        if getattr(other, "scheme", None) != self.scheme:
            raise ValueError("Cannot %s MinHash with different permutation schemes" % verb)
        if other.seed != self.seed:
            raise ValueError("Cannot %s MinHash with different seeds" % verb)
        if len(self) != len(other):
            raise ValueError(
                "Cannot %s MinHash with different numbers of permutation functions" % verb
            )

    def jaccard(self, other) -> float:
        """The estimated Jaccard similarity of the two sets."""
        if getattr(other, "scheme", None) != self.scheme:
            raise ValueError(
                "Cannot compute Jaccard given MinHash with different permutation schemes"
            )
        if other.seed != self.seed:
            raise ValueError("Cannot compute Jaccard given MinHash with different seeds")
        if len(self) != len(other):
            raise ValueError(
                "Cannot compute Jaccard given MinHash with different numbers of permutation "
                "functions"
            )
        return float(np.count_nonzero(self.hashvalues == other.hashvalues)) / float(len(self))

    def count(self) -> float:
        """The estimated number of distinct items."""
        k = len(self)
        return float(k) / np.sum(self.hashvalues / float(_MAX[self.scheme])) - 1.0

    def merge(self, other) -> None:
        """Makes this MinHash the union of both."""
        self._check_compatible(other, "merge")
        self.hashvalues = np.minimum(other.hashvalues, self.hashvalues)

    def digest(self) -> np.ndarray:
        """A copy of the hash values."""
        return _copy.copy(self.hashvalues)

    def is_empty(self) -> bool:
        """True if nothing was added."""
        return not np.any(self.hashvalues != _MAX[self.scheme])

    def clear(self) -> None:
        """Forgets every item."""
        self.hashvalues = self._init_hashvalues(len(self))

    def copy(self) -> "MinHash":
        """An independent copy."""
        return MinHash(
            seed=self.seed,
            hashfunc=None if self._default_hash else self.hashfunc,
            hashvalues=self.digest(),
            permutations=self.permutations,
            gpu_mode=self._gpu_mode,
            scheme=self.scheme,
        )

    def __len__(self) -> int:
        return len(self.hashvalues)

    def __eq__(self, other) -> bool:
        return (
            type(self) is type(other)
            and self.scheme == other.scheme
            and self.seed == other.seed
            and np.array_equal(self.hashvalues, other.hashvalues)
        )

    __hash__ = None  # mutable, like datasketch's

    @classmethod
    def union(cls, *mhs) -> "MinHash":
        """A new MinHash of the union of at least two."""
        if len(mhs) < 2:
            raise ValueError("Cannot union less than 2 MinHash")
        num_perm, seed, scheme = len(mhs[0]), mhs[0].seed, mhs[0].scheme
        if any((seed != m.seed or num_perm != len(m) or scheme != m.scheme) for m in mhs):
            raise ValueError(
                "The unioning MinHash must have the same seed, number of permutation functions "
                "and scheme"
            )
        return cls(
            num_perm=num_perm,
            seed=seed,
            hashfunc=None if getattr(mhs[0], "_default_hash", True) else mhs[0].hashfunc,
            hashvalues=np.minimum.reduce([m.hashvalues for m in mhs]),
            permutations=mhs[0].permutations,
            gpu_mode=getattr(mhs[0], "_gpu_mode", "disable"),
            scheme=scheme,
        )

    @classmethod
    def bulk(cls, b: Iterable, **minhash_kwargs) -> list:
        """One MinHash per list of items in ``b``; with the default hash, signed on all cores."""
        template = cls(**minhash_kwargs)
        if not template._default_hash:
            return list(cls.generator(b, **minhash_kwargs))
        sets = [s if isinstance(s, (list, tuple)) else list(s) for s in b]
        if not sets:
            return []
        rows = template._kernel().minima_batch(sets).astype(_DTYPES[template.scheme])
        out = []
        for row in rows:
            m = template.copy()
            m.hashvalues = np.minimum(m.hashvalues, row)
            out.append(m)
        return out

    @classmethod
    def generator(cls, b: Iterable, **minhash_kwargs) -> Generator:
        """MinHashes of the lists of items in ``b``, one at a time."""
        m = cls(**minhash_kwargs)
        for items in b:
            out = m.copy()
            out.update_batch(items)
            yield out

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_native"] = None
        state["_a_gpu"] = None
        state["_b_gpu"] = None
        if state.get("_default_hash", False):
            state["hashfunc"] = None
        return state

    def __setstate__(self, state):
        state.setdefault("scheme", _LEGACY)
        state.setdefault("_default_hash", state.get("hashfunc") in (None, sha1_hash32))
        state.setdefault("_gpu_mode", "disable")
        state.setdefault("_native", None)
        state.setdefault("_a_gpu", None)
        state.setdefault("_b_gpu", None)
        if state.get("hashfunc") is None:
            state["hashfunc"] = sha1_hash64 if state["scheme"] == _AFFINE64 else sha1_hash32
        self.__dict__.update(state)


class LeanMinHash(MinHash):
    """datasketch's ``LeanMinHash``: the seed and hash values only (no updates); compact
    serialization in datasketch's byte format."""

    __slots__ = ("hashvalues", "scheme", "seed")

    def _initialize_slots(self, seed, hashvalues, scheme=_LEGACY):
        if scheme not in _SCHEMES:
            raise ValueError("scheme must be one of %s, got %r" % (", ".join(_SCHEMES), scheme))
        self.seed = seed
        self.scheme = scheme
        self.hashvalues = self._parse_hashvalues(hashvalues)
        if scheme != _LEGACY and len(self.hashvalues) == 0:
            raise ValueError("hashvalues must not be empty")

    def __init__(self, minhash=None, seed=None, hashvalues=None, scheme=None):
        if minhash is not None:
            if scheme is not None and scheme != minhash.scheme:
                raise ValueError(
                    "scheme %r conflicts with the scheme %r of the given MinHash"
                    % (scheme, minhash.scheme)
                )
            self._initialize_slots(minhash.seed, minhash.hashvalues, minhash.scheme)
        elif hashvalues is not None and seed is not None:
            if scheme is None:
                raise ValueError(
                    "scheme must be specified explicitly when initializing from existing hash "
                    "values: pass the scheme of the MinHash they came from, or "
                    "scheme='legacy' for hash values created by datasketch before 2.0.0."
                )
            self._initialize_slots(seed, hashvalues, scheme)
        else:
            raise ValueError(
                "Init parameters cannot be None: make sure to set either minhash or both of "
                "hash values and seed"
            )

    def update(self, b) -> None:
        raise TypeError("Cannot update a LeanMinHash")

    def update_batch(self, b) -> None:
        raise TypeError("Cannot update a LeanMinHash")

    def copy(self) -> "LeanMinHash":
        lmh = object.__new__(LeanMinHash)
        lmh._initialize_slots(self.seed, self.hashvalues, self.scheme)
        return lmh

    def _value_fmt(self) -> str:
        return _VALUE_FMTS[self.scheme]

    def bytesize(self, byteorder: str = "@") -> int:
        """The bytes :meth:`serialize` writes."""
        if self.scheme == _LEGACY:
            return struct.calcsize("%sqi%dI" % (byteorder, len(self)))
        return struct.calcsize("%sqiB%d%s" % (byteorder, len(self), self._value_fmt()))

    def _pack(self, buf, byteorder: str) -> None:
        if self.scheme == _LEGACY:
            fmt = "%sqi%dI" % (byteorder, len(self))
            struct.pack_into(fmt, buf, 0, self.seed, len(self), *self.hashvalues)
        else:
            fmt = "%sqiB%d%s" % (byteorder, len(self), self._value_fmt())
            struct.pack_into(
                fmt, buf, 0, self.seed, -len(self), _CODES[self.scheme], *self.hashvalues
            )

    def serialize(self, buf, byteorder: str = "@") -> None:
        """Writes the seed and hash values into ``buf`` (datasketch's format)."""
        if len(buf) < self.bytesize(byteorder):
            raise ValueError("The buffer does not have enough space for holding this MinHash.")
        self._pack(buf, byteorder)

    @staticmethod
    def _unpack(buf, byteorder: str):
        head = "%sqi" % byteorder
        try:
            seed, num_perm = struct.unpack_from(head, buf, 0)
        except TypeError:
            buf = memoryview(buf)
            seed, num_perm = struct.unpack_from(head, buf, 0)
        if num_perm >= 0:
            scheme = _LEGACY
            offset = struct.calcsize(head)
        else:
            num_perm = -num_perm
            (code,) = struct.unpack_from(byteorder + "B", buf, struct.calcsize(head))
            if code not in _CODES_INV:
                raise ValueError("Unknown permutation scheme code: %d" % code)
            scheme = _CODES_INV[code]
            offset = struct.calcsize("%sqiB0%s" % (byteorder, _VALUE_FMTS[scheme]))
        values = struct.unpack_from(
            "%s%d%s" % (byteorder, num_perm, _VALUE_FMTS[scheme]), buf, offset
        )
        return seed, values, scheme

    @classmethod
    def deserialize(cls, buf, byteorder: str = "@") -> "LeanMinHash":
        """A LeanMinHash read from bytes :meth:`serialize` wrote (datasketch's too)."""
        seed, values, scheme = cls._unpack(buf, byteorder)
        lmh = object.__new__(LeanMinHash)
        lmh._initialize_slots(seed, values, scheme)
        return lmh

    def __getstate__(self):
        buf = bytearray(self.bytesize())
        self._pack(buf, "")
        return buf

    def __setstate__(self, buf):
        seed, values, scheme = self._unpack(buf, "")
        self._initialize_slots(seed, values, scheme)

    def __hash__(self) -> int:
        return hash((self.scheme, self.seed, tuple(self.hashvalues)))

    @classmethod
    def union(cls, *lmhs) -> "LeanMinHash":
        if len(lmhs) < 2:
            raise ValueError("Cannot union less than 2 MinHash")
        num_perm, seed, scheme = len(lmhs[0]), lmhs[0].seed, lmhs[0].scheme
        if any((seed != m.seed or num_perm != len(m) or scheme != m.scheme) for m in lmhs):
            raise ValueError(
                "The unioning MinHash must have the same seed, number of permutation functions "
                "and scheme."
            )
        lmh = object.__new__(LeanMinHash)
        lmh._initialize_slots(seed, np.minimum.reduce([m.hashvalues for m in lmhs]), scheme)
        return lmh


class WeightedMinHash:
    """datasketch's ``WeightedMinHash``: ``sample_size`` pairs ``(k, t)`` of consistent weighted
    sampling (Ioffe 2010)."""

    def __init__(self, seed: int, hashvalues: np.ndarray) -> None:
        self.seed = seed
        self.hashvalues = hashvalues

    def jaccard(self, other) -> float:
        """The estimated weighted Jaccard similarity."""
        if other.seed != self.seed:
            raise ValueError(
                "Cannot compute Jaccard given WeightedMinHash objects with different seeds"
            )
        if len(self) != len(other):
            raise ValueError(
                "Cannot compute Jaccard given WeightedMinHash objects with different numbers "
                "of hash values"
            )
        same = np.all(np.asarray(self.hashvalues) == np.asarray(other.hashvalues), axis=1)
        return float(np.count_nonzero(same)) / float(len(self))

    def digest(self) -> np.ndarray:
        return _copy.copy(self.hashvalues)

    def copy(self) -> "WeightedMinHash":
        return WeightedMinHash(self.seed, self.digest())

    def __len__(self) -> int:
        return len(self.hashvalues)

    def __eq__(self, other) -> bool:
        return (
            type(self) is type(other)
            and self.seed == other.seed
            and np.array_equal(self.hashvalues, other.hashvalues)
        )

    __hash__ = None


class WeightedMinHashGenerator:
    """datasketch's ``WeightedMinHashGenerator``: the same random parameters (numpy's
    ``RandomState(seed)``), the sampling in Rust (``textreuse_minhash::weighted``)."""

    def __init__(self, dim: int, sample_size: int = 128, seed: int = 1) -> None:
        self.dim = dim
        self.sample_size = sample_size
        self.seed = seed
        generator = np.random.RandomState(seed=seed)
        self.rs = generator.gamma(2, 1, (sample_size, dim)).astype(np.float32)
        self.ln_cs = np.log(generator.gamma(2, 1, (sample_size, dim))).astype(np.float32)
        self.betas = generator.uniform(0, 1, (sample_size, dim)).astype(np.float32)
        self._sampler = None

    def _native(self):
        if self._sampler is None:
            self._sampler = _native.WeightedSampler(
                self.dim,
                self.sample_size,
                np.ascontiguousarray(self.rs).tobytes(),
                np.ascontiguousarray(self.ln_cs).tobytes(),
                np.ascontiguousarray(self.betas).tobytes(),
            )
        return self._sampler

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_sampler"] = None
        return state

    def minhash(self, v) -> WeightedMinHash:
        """The weighted MinHash of the weight vector ``v`` (length ``dim``)."""
        if not isinstance(v, collections.abc.Sized):
            raise TypeError("Input vector must be sized")
        if not len(v) == self.dim:
            raise ValueError("Input dimension mismatch, expecting %d" % self.dim)
        v = np.asarray(v, dtype=np.float32)
        nonzero = np.flatnonzero(v)
        if len(nonzero) == 0:
            raise ValueError("Input is all zeros")
        # numpy's float32 log, as datasketch takes it (the sampling is then exact IEEE f32).
        logs = np.log(v[nonzero]).astype(np.float32)
        pairs = self._native().sample(nonzero.tolist(), logs.tobytes(), True)
        return WeightedMinHash(self.seed, np.asarray(pairs, dtype=int).reshape(-1, 2))

    def minhash_many(self, X) -> list:
        """Weighted MinHashes of the rows of a dense array or scipy sparse matrix (``None`` for
        rows of zeros)."""
        dense = isinstance(X, np.ndarray)
        if not dense:
            try:
                import scipy.sparse as sparse
            except ImportError as err:  # pragma: no cover - scipy absent
                raise TypeError("Input X must be a sparse matrix or numpy matrix") from err
            if not (sparse.issparse(X)):
                raise TypeError("Input X must be a sparse matrix or numpy matrix")
        if X.ndim != 2:
            raise ValueError("Input must have two dimensions")
        if X.shape[1] != self.dim:
            raise ValueError("Input dimension mismatch, expecting %d" % self.dim)
        out = []
        for i in range(X.shape[0]):
            if dense:
                row = np.asarray(X[i], dtype=np.float32)
                cols = np.flatnonzero(row)
                vals = row[cols]
            else:
                r = X.getrow(i).tocoo()
                keep = r.data != 0
                cols, vals = r.col[keep], r.data[keep].astype(np.float32)
                order = np.argsort(cols)
                cols, vals = cols[order], vals[order]
            if len(cols) == 0:
                out.append(None)
                continue
            logs = np.log(np.asarray(vals, dtype=np.float32)).astype(np.float32)
            pairs = self._native().sample(cols.tolist(), logs.tobytes(), False)
            out.append(WeightedMinHash(self.seed, np.asarray(pairs, dtype=int).reshape(-1, 2)))
        return out


def _hashvalues(minhash) -> np.ndarray:
    """The hash values of a MinHash (ours or datasketch's), a WeightedMinHash, or an array."""
    values = getattr(minhash, "hashvalues", None)
    if values is None:
        values = minhash
    if isinstance(values, np.ndarray):
        return values
    array = np.asarray(values)
    if array.dtype.kind in "iu" and array.ndim == 1:
        # Plain ints: the width of datasketch's legacy and affine64 hash values.
        return array.astype(np.uint64)
    return array


def _swapped(values: np.ndarray) -> tuple:
    """The big-endian bytes of ``values`` (datasketch's ``_byteswap``) and bytes per row."""
    values = np.ascontiguousarray(values)
    row = values.itemsize * (int(np.prod(values.shape[1:])) if values.ndim > 1 else 1)
    return values.byteswap().tobytes(), row


_PARAMS: dict = {}


def _lsh_params(threshold: float, num_perm: int, weights) -> tuple:
    """datasketch's ``_optimal_param`` (computed in Rust, remembered per argument set)."""
    key = (float(threshold), int(num_perm), float(weights[0]), float(weights[1]))
    hit = _PARAMS.get(key)
    if hit is None:
        if len(_PARAMS) > 256:
            _PARAMS.clear()
        hit = _PARAMS[key] = tuple(_native.lsh_params(*key))
    return hit


def _bands_and_rows(threshold: float, num_perm: int, weights, params) -> tuple:
    """``params`` checked against ``num_perm``, or datasketch's choice for the threshold; at
    least two bands (as datasketch's MinHashLSH and MinHashLSHBloom require)."""
    if params is not None:
        b, r = params
        if b * r > num_perm:
            raise ValueError(
                f"The product of b and r in params is {b} * {r} = {b * r} -- it must be less "
                f"than num_perm {num_perm}. Did you forget to specify num_perm?"
            )
    else:
        b, r = _lsh_params(threshold, num_perm, weights)
    if b < 2:
        raise ValueError("The number of bands are too small (b < 2)")
    return b, r


def _check_storage(storage_config) -> None:
    if storage_config and storage_config.get("type", "dict") != "dict":
        raise ValueError(
            "storage_config type %r is not supported by textreuse.compat (tables are kept in "
            "memory); use textreuse.LSHIndex(path) for an index on disk"
            % storage_config.get("type")
        )


def _check_weights(weights) -> None:
    if any(w < 0.0 or w > 1.0 for w in weights):
        raise ValueError("Weight must be in [0.0, 1.0]")
    if sum(weights) != 1.0:
        raise ValueError("Weights must sum to 1.0")


class _Entries:
    """Keys <-> the native tables' u32 ids (a key inserted twice without duplicate checks has
    two ids)."""

    def __init__(self):
        self.ids: dict = {}
        self.keys: list = []

    def new(self, key) -> int:
        i = len(self.keys)
        self.keys.append(key)
        self.ids.setdefault(key, []).append(i)
        return i

    def drop(self, key) -> list:
        ids = self.ids.pop(key)
        for i in ids:
            self.keys[i] = None
        return ids


class _ComparesByContent:
    """Views that equal another view, or a dict, with the same ``H -> keys`` items."""

    def __eq__(self, other) -> bool:
        if isinstance(other, _ComparesByContent):
            other = dict(other.items())
        return isinstance(other, dict) and dict(self.items()) == other

    __hash__ = None


class _TableView(_ComparesByContent):
    """One band table as datasketch's dict storage shows it: ``H -> set of keys``."""

    def __init__(self, lsh, i: int):
        self._lsh, self._i = lsh, i

    def _keys(self, ids):
        keys = self._lsh._entries.keys
        return {keys[i] for i in ids}

    def __iter__(self):
        return iter(self._lsh._tables.bucket_keys(self._i))

    def keys(self):
        return self._lsh._tables.bucket_keys(self._i)

    def __len__(self) -> int:
        return self._lsh._tables.bucket_count(self._i)

    def size(self) -> int:
        return len(self)

    def __contains__(self, H) -> bool:
        return self._lsh._tables.bucket(self._i, bytes(H)) is not None

    has_key = __contains__

    def get(self, H):
        ids = self._lsh._tables.bucket(self._i, bytes(H))
        return set() if ids is None else self._keys(ids)

    __getitem__ = get

    def itemcounts(self) -> dict:
        return dict(self._lsh._tables.bucket_sizes(self._i))

    def items(self):
        return [(H, self.get(H)) for H in self]

    def __repr__(self) -> str:
        return "<band table %d: %d buckets>" % (self._i, len(self))


class _KeysView:
    """The keys as datasketch's storage shows them: ``key -> list of band bytes``."""

    def __init__(self, lsh):
        self._lsh = lsh

    def __contains__(self, key) -> bool:
        return key in self._lsh._entries.ids

    has_key = __contains__

    def __iter__(self):
        return iter(list(self._lsh._entries.ids))

    def keys(self):
        return list(self._lsh._entries.ids)

    def __len__(self) -> int:
        return len(self._lsh._entries.ids)

    def size(self) -> int:
        return len(self)

    def get(self, key):
        ids = self._lsh._entries.ids.get(key)
        if ids is None:
            return []
        out = []
        for i in ids:
            out.extend(self._lsh._tables.entry(i))
        return out

    def __getitem__(self, key):
        if key not in self._lsh._entries.ids:
            raise KeyError(key)
        return self.get(key)

    def getmany(self, *keys):
        return [self.get(k) for k in keys]

    def itemcounts(self) -> dict:
        return {k: len(self.get(k)) for k in self._lsh._entries.ids}


class MinHashLSH:
    """datasketch's ``MinHashLSH``: Jaccard-threshold queries over banded tables.

    >>> from textreuse.compat.datasketch import MinHash, MinHashLSH
    >>> lsh = MinHashLSH(threshold=0.5, num_perm=128)
    >>> (lsh.b, lsh.r)
    (25, 5)
    >>> m = MinHash()
    >>> m.update_batch([b"old", b"mill", b"river"])
    >>> lsh.insert("mill", m)
    >>> lsh.query(m)
    ['mill']
    """

    def __init__(
        self,
        threshold: float = 0.9,
        num_perm: int = 128,
        weights: tuple = (0.5, 0.5),
        params: Optional[tuple] = None,
        storage_config: Optional[dict] = None,
        prepickle: Optional[bool] = None,
        hashfunc: Optional[Callable[[bytes], bytes]] = None,
    ) -> None:
        _check_storage(storage_config)
        self._buffer_size = 50000
        if threshold > 1.0 or threshold < 0.0:
            raise ValueError("threshold must be in [0.0, 1.0]")
        if num_perm < 2:
            raise ValueError("Too few permutation functions")
        _check_weights(weights)
        self.h = num_perm
        self.b, self.r = _bands_and_rows(threshold, num_perm, weights, params)
        self.prepickle = False if prepickle is None else prepickle
        self.hashfunc = hashfunc
        self.hashranges = [(i * self.r, (i + 1) * self.r) for i in range(self.b)]
        self._minhash_scheme: Optional[str] = None
        self._reset()

    def _reset(self) -> None:
        self._tables = _native.BandTables(self.b)
        self._entries = _Entries()
        self.hashtables = [_TableView(self, i) for i in range(self.b)]
        self.keys = _KeysView(self)

    @property
    def buffer_size(self) -> int:
        return self._buffer_size

    @buffer_size.setter
    def buffer_size(self, value: int) -> None:
        self._buffer_size = value

    def _byteswap(self, hs) -> bytes:
        return bytes(np.ascontiguousarray(hs).byteswap().data)

    def _hashed_byteswap(self, hs):
        if self.hashfunc is None:
            raise RuntimeError("Hash function not configured.")
        return self.hashfunc(bytes(np.ascontiguousarray(hs).byteswap().data))

    def _H(self, hs):
        """The bytes a band is stored under (datasketch's ``_H``)."""
        return self._hashed_byteswap(hs) if self.hashfunc else self._byteswap(hs)

    def _values(self, minhash) -> np.ndarray:
        values = _hashvalues(minhash)
        if len(values) != self.h:
            raise ValueError("Expecting minhash with length %d, got %d" % (self.h, len(values)))
        return values

    def _bands(self, values: np.ndarray):
        """(data, row bytes) for the native ``*_rows`` calls, or a list of H with a hashfunc."""
        if self.hashfunc:
            return [self._H(values[s:e]) for s, e in self.hashranges]
        return _swapped(values)

    def insert(self, key: Hashable, minhash, check_duplication: bool = True) -> None:
        """Indexes ``minhash`` (ours, datasketch's, or its hash values) under ``key``."""
        self._insert(key, minhash, check_duplication=check_duplication)

    def _insert(self, key, minhash, check_duplication: bool = True, buffer: bool = False):
        values = self._values(minhash)
        self._minhash_scheme = _check_scheme_consistency(self._minhash_scheme, minhash)
        if self.prepickle:
            key = pickle.dumps(key)
        if check_duplication and key in self._entries.ids:
            raise ValueError("The given key already exists")
        bands = self._bands(values)
        i = self._entries.new(key)
        try:
            if isinstance(bands, list):
                self._tables.insert(i, bands)
            else:
                self._tables.insert_rows(i, bands[0], self.r, bands[1])
        except Exception:
            self._entries.ids[key].remove(i)
            if not self._entries.ids[key]:
                del self._entries.ids[key]
            self._entries.keys[i] = None
            raise

    def insertion_session(self, buffer_size: int = 50000) -> "MinHashLSHInsertionSession":
        """A context for many inserts (datasketch buffers them for Redis; here each is
        immediate)."""
        return MinHashLSHInsertionSession(self, buffer_size=buffer_size)

    def deletion_session(self, buffer_size: int = 50000) -> "MinHashLSHDeletionSession":
        """A context for many removals."""
        return MinHashLSHDeletionSession(self, buffer_size=buffer_size)

    def _query_ids(self, minhash, tables: Optional[int] = None) -> list:
        values = self._values(minhash)
        _check_scheme_consistency(self._minhash_scheme, minhash)
        bands = self._bands(values)
        if isinstance(bands, list):
            return self._tables.query(bands, tables)
        return self._tables.query_rows(bands[0], self.r, bands[1], tables)

    def _keys_of(self, ids) -> list:
        keys = self._entries.keys
        seen, out = set(), []
        for i in ids:
            k = keys[i]
            if k not in seen:
                seen.add(k)
                out.append(k)
        return out

    def query(self, minhash) -> list:
        """The keys sharing a band with ``minhash`` (unordered, as datasketch's)."""
        keys = self._keys_of(self._query_ids(minhash))
        if self.prepickle:
            return [pickle.loads(k) for k in keys]
        return keys

    def _query_b(self, minhash, b: int) -> set:
        if len(_hashvalues(minhash)) != self.h:
            raise ValueError(
                "Expecting minhash with length %d, got %d" % (self.h, len(_hashvalues(minhash)))
            )
        if b > self.b:
            raise ValueError("b must be less or equal to the number of hash tables")
        keys = self._keys_of(self._query_ids(minhash, b))
        if self.prepickle:
            return {pickle.loads(k) for k in keys}
        return set(keys)

    def add_to_query_buffer(self, minhash) -> None:
        """Queues a query for :meth:`collect_query_buffer`."""
        self._values(minhash)
        _check_scheme_consistency(self._minhash_scheme, minhash)
        self.__dict__.setdefault("_query_buffer", []).append(minhash)

    def collect_query_buffer(self) -> list:
        """The keys every queued query found (the intersection, as datasketch's), and empties
        the queue."""
        queued = self.__dict__.pop("_query_buffer", [])
        if not queued:
            return []
        results = [set(self._keys_of(self._query_ids(m))) for m in queued]
        candidates = set.intersection(*results)
        if self.prepickle:
            return [pickle.loads(k) for k in candidates]
        return list(candidates)

    def __contains__(self, key) -> bool:
        if self.prepickle:
            key = pickle.dumps(key)
        return key in self._entries.ids

    def remove(self, key) -> None:
        """Removes ``key``; ``ValueError`` if it is not there (as datasketch)."""
        self._remove(key)

    def _remove(self, key, buffer: bool = False) -> None:
        if self.prepickle:
            key = pickle.dumps(key)
        if key not in self._entries.ids:
            raise ValueError("The given key does not exist")
        for i in self._entries.drop(key):
            self._tables.remove(i)

    def is_empty(self) -> bool:
        """True if nothing is indexed."""
        return len(self._tables) == 0

    def __equivalent(self, other) -> bool:
        return (
            type(self) is type(other)
            and self.h == other.h
            and self.b == other.b
            and self.r == other.r
        )

    def merge(self, other: "MinHashLSH", check_overlap: bool = False) -> None:
        """Adds every key of ``other`` (an index of the same parameters)."""
        if not self.__equivalent(other):
            if type(self) is not type(other):
                raise ValueError(
                    f"Cannot merge type MinHashLSH and type {type(other).__name__}."
                )
            raise ValueError("Cannot merge MinHashLSH with different initialization parameters.")
        known, other_known = self._minhash_scheme, other._minhash_scheme
        if known is not None and other_known is not None and known != other_known:
            raise ValueError(
                "Cannot merge MinHashLSH indexed with MinHash scheme %r into one indexed with "
                "scheme %r" % (other_known, known)
            )
        if check_overlap and set(self._entries.ids).intersection(other._entries.ids):
            raise ValueError("The keys are overlapping, duplicate key exists.")
        if known is None:
            self._minhash_scheme = other_known
        numbers = [0] * len(other._entries.keys)
        for i, key in enumerate(other._entries.keys):
            if key is not None:
                numbers[i] = self._entries.new(key)
        self._tables.merge(other._tables, numbers)

    def get_counts(self) -> list:
        """Per table, ``{H: number of keys}``."""
        return [t.itemcounts() for t in self.hashtables]

    def get_subset_counts(self, *keys) -> list:
        """:meth:`get_counts` over the given keys only."""
        wanted = [pickle.dumps(k) for k in set(keys)] if self.prepickle else list(set(keys))
        counts = [Counter() for _ in range(self.b)]
        for key in wanted:
            for i in self._entries.ids.get(key, []):
                for table, H in zip(counts, self._tables.entry(i)):
                    table[H] += 1
        return [dict(c) for c in counts]

    def __getstate__(self):
        state = {k: v for k, v in self.__dict__.items() if k not in ("_tables", "hashtables", "keys", "_entries")}
        live = [(i, k) for i, k in enumerate(self._entries.keys) if k is not None]
        state["_entries_dump"] = [(k, self._tables.entry(i)) for i, k in live]
        return state

    def __setstate__(self, state):
        dump = state.pop("_entries_dump")
        self.__dict__.update(state)
        self._reset()
        for key, bands in dump:
            self._tables.insert(self._entries.new(key), bands)


class _Session:
    """A context manager over a :class:`MinHashLSH` (datasketch buffers its operations for
    Redis; in memory each is immediate, so closing has nothing to flush)."""

    def __init__(self, lsh: MinHashLSH, buffer_size: int):
        self.lsh = lsh
        self.lsh.buffer_size = buffer_size

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc_val, exc_tb) -> None:
        self.close()

    def close(self) -> None:
        pass


class MinHashLSHInsertionSession(_Session):
    """datasketch's insertion session."""

    def insert(self, key, minhash, check_duplication: bool = True) -> None:
        self.lsh._insert(key, minhash, check_duplication=check_duplication, buffer=True)


class MinHashLSHDeletionSession(_Session):
    """datasketch's deletion session."""

    def remove(self, key) -> None:
        self.lsh._remove(key, buffer=True)


class _ForestTableView(_ComparesByContent):
    """A forest tree as datasketch shows it: ``H -> list of keys``."""

    def __init__(self, forest, i: int):
        self._f, self._i = forest, i

    def __iter__(self):
        return iter(self._f._tables.bucket_keys(self._i))

    def keys(self):
        return self._f._tables.bucket_keys(self._i)

    def __len__(self) -> int:
        return self._f._tables.bucket_count(self._i)

    def __contains__(self, H) -> bool:
        return self._f._tables.bucket(self._i, bytes(H)) is not None

    def __getitem__(self, H) -> list:
        ids = self._f._tables.bucket(self._i, bytes(H)) or []
        return [self._f._keys[i] for i in ids]

    get = __getitem__

    def items(self):
        return [(H, self[H]) for H in self]

    def __repr__(self) -> str:
        return "<forest tree %d: %d buckets>" % (self._i, len(self))


class MinHashLSHForest:
    """datasketch's ``MinHashLSHForest``: approximate top-k by Jaccard similarity (``l`` trees
    of ``num_perm // l`` values; prefixes shortened until ``k`` keys are found). Added keys are
    searchable after :meth:`index`."""

    def __init__(self, num_perm: int = 128, l: int = 8) -> None:  # noqa: E741 - datasketch's name
        if l <= 0 or num_perm <= 0:
            raise ValueError("num_perm and l must be positive")
        if l > num_perm:
            raise ValueError("l cannot be greater than num_perm")
        self.l = l
        self.k = int(num_perm / l)
        self.hashranges = [(i * self.k, (i + 1) * self.k) for i in range(self.l)]
        self._minhash_scheme = None
        self._reset()

    def _reset(self) -> None:
        self._tables = _native.BandTables(self.l)
        self._keys: list = []
        self._ids: dict = {}
        self._indexed = 0
        self.hashtables = [_ForestTableView(self, i) for i in range(self.l)]

    @property
    def keys(self) -> dict:
        """``key -> list of H`` (one per tree), as datasketch's ``keys`` dict."""
        return {k: self._tables.entry(i) for k, i in self._ids.items()}

    def _H(self, hs) -> bytes:
        return bytes(np.ascontiguousarray(hs).byteswap().data)

    def add(self, key, minhash) -> None:
        """Adds ``key``; searchable after :meth:`index`."""
        values = _hashvalues(minhash)
        if len(values) < self.k * self.l:
            raise ValueError("The num_perm of MinHash out of range")
        self._minhash_scheme = _check_scheme_consistency(self._minhash_scheme, minhash)
        if key in self._ids:
            raise ValueError("The given key has already been added")
        data, row = _swapped(values)
        i = len(self._keys)
        self._tables.insert_cut(i, data, [(s * row, e * row) for s, e in self.hashranges])
        self._keys.append(key)
        self._ids[key] = i

    def index(self) -> None:
        """Makes every key added so far searchable."""
        self._tables.sort()
        self._indexed = len(self._keys)

    def _query(self, minhash, r: int, b: int):
        if r > self.k or r <= 0 or b > self.l or b <= 0:
            raise ValueError("parameter outside range")
        values = _hashvalues(minhash)
        for i, (start, _) in enumerate(self.hashranges[:b]):
            prefix = self._H(values[start : start + r])
            for j in self._tables.prefix_query(i, prefix):
                yield self._keys[j]

    def query(self, minhash, k: int) -> list:
        """At most ``k`` keys of (approximately) the highest Jaccard similarity."""
        if k <= 0:
            raise ValueError("k must be positive")
        if len(_hashvalues(minhash)) < self.k * self.l:
            raise ValueError("The num_perm of MinHash out of range")
        _check_scheme_consistency(self._minhash_scheme, minhash)
        results: dict = {}
        r = self.k
        while r > 0:
            for key in self._query(minhash, r, self.l):
                results[key] = None
                if len(results) >= k:
                    return list(results)
            r -= 1
        return list(results)

    def get_minhash_hashvalues(self, key) -> np.ndarray:
        """The hash values ``key`` was added with."""
        i = self._ids.get(key)
        if i is None:
            raise KeyError(f"The provided key does not exist in the LSHForest: {key}")
        segments = self._tables.entry(i)
        size = len(segments[0])
        per_value, rest = divmod(size, self.k)
        if rest != 0 or per_value not in (4, 8):
            raise ValueError(
                "Stored hash segment of %d bytes is not %d values of a supported width (4 or 8 "
                "bytes)" % (size, self.k)
            )
        dtype = np.uint32 if per_value == 4 else np.uint64
        return np.concatenate([np.frombuffer(s, dtype=dtype).byteswap() for s in segments])

    def is_empty(self) -> bool:
        """True until :meth:`index` has made a key searchable (as datasketch)."""
        return self._indexed == 0

    def __contains__(self, key) -> bool:
        return key in self._ids

    def __getstate__(self):
        state = {k: v for k, v in self.__dict__.items() if k not in ("_tables", "hashtables", "_keys", "_ids")}
        state["_dump"] = [(k, self._tables.entry(i)) for k, i in self._ids.items()]
        return state

    def __setstate__(self, state):
        dump = state.pop("_dump")
        self.__dict__.update(state)
        self._reset()
        for key, bands in dump:
            i = len(self._keys)
            self._tables.insert(i, bands)
            self._keys.append(key)
            self._ids[key] = i
        self._tables.sort()
        self._indexed = len(self._keys)


class MinHashLSHEnsemble:
    """datasketch's ``MinHashLSHEnsemble``: containment queries ("which indexed sets contain
    most of this one"). Sets are split into ``num_part`` partitions by size (the partitions
    that minimize the expected false positives, computed in Rust), each holding one
    :class:`MinHashLSH` per row count; a query uses, per partition, the bands and rows that
    minimize the weighted false-positive and false-negative areas of containment for its size
    ratio."""

    def __init__(
        self,
        threshold: float = 0.9,
        num_perm: int = 128,
        num_part: int = 16,
        m: int = 8,
        weights: tuple = (0.5, 0.5),
        storage_config: Optional[dict] = None,
        prepickle: Optional[bool] = None,
    ) -> None:
        _check_storage(storage_config)
        if threshold > 1.0 or threshold < 0.0:
            raise ValueError("threshold must be in [0.0, 1.0]")
        if num_perm < 2:
            raise ValueError("Too few permutation functions")
        if num_part < 1:
            raise ValueError("num_part must be at least 1")
        if m < 2 or m > num_perm:
            raise ValueError("m must be in the range of [2, num_perm]")
        _check_weights(weights)
        self.threshold = threshold
        self.h = num_perm
        self.m = m
        self.xqs = np.exp(np.linspace(-5, 5, 10))
        self.params = np.array(
            [
                _native.containment_params(threshold, num_perm, m, float(xq), *weights)
                for xq in self.xqs
            ],
            dtype=int,
        )
        rs = sorted({int(r) for _, r in self.params})
        self.indexes = [
            {
                r: MinHashLSH(num_perm=self.h, params=(int(self.h / r), r), prepickle=prepickle)
                for r in rs
            }
            for _ in range(num_part)
        ]
        self.lowers = [None for _ in self.indexes]
        self.uppers = [None for _ in self.indexes]

    def _get_optimal_param(self, x, q):
        i = np.searchsorted(self.xqs, float(x) / float(q), side="left")
        if i == len(self.params):
            i = i - 1
        return self.params[i]

    def index(self, entries: Iterable) -> None:
        """Indexes ``(key, minhash, size)`` entries, once, on an empty ensemble."""
        if not self.is_empty():
            raise ValueError("Cannot call index again on a non-empty index")
        entries = list(entries)
        for _, _, size in entries:
            if size <= 0:
                raise ValueError("Set size must be positive")
        if len(entries) == 0:
            raise ValueError("entries is empty")
        counts = sorted(Counter(int(e[2]) for e in entries).items())
        sizes = [s for s, _ in counts]
        partitions = _native.optimal_partitions(sizes, [c for _, c in counts], len(self.indexes))
        for i, (lower, upper) in enumerate(partitions):
            self.lowers[i], self.uppers[i] = lower, upper
        entries.sort(key=lambda e: e[2])
        part = 0
        for key, minhash, size in entries:
            while size > self.uppers[part]:
                part += 1
            for r in self.indexes[part]:
                self.indexes[part][r].insert(key, minhash)

    def query(self, minhash, size: int) -> Generator:
        """The keys whose sets likely contain at least ``threshold`` of the query set of
        ``size`` items."""
        for i, index in enumerate(self.indexes):
            u = self.uppers[i]
            if u is None:
                continue
            b, r = self._get_optimal_param(u, size)
            yield from index[int(r)]._query_b(minhash, int(b))

    def __contains__(self, key) -> bool:
        return any(any(key in index[r] for r in index) for index in self.indexes)

    def is_empty(self) -> bool:
        return all(all(index[r].is_empty() for r in index) for index in self.indexes)


class BloomTable:
    """datasketch's ``BloomTable``: the Bloom filter of one band of ``band_size`` values, sized
    for ``item_count`` items at false-positive rate ``fp``; kept in ``fname`` if given (loaded
    from it when it exists, written by :meth:`sync`)."""

    def __init__(self, item_count: int, fp: float, band_size: int, fname: Optional[str] = None):
        self.r = band_size
        self.fname = fname
        if fname is not None and os.path.exists(fname):
            self.bloom_filter = _native.BandBloom.load(fname)
        else:
            self.bloom_filter = _native.BandBloom(1, band_size, item_count, fp)

    def sync(self) -> None:
        if self.fname is not None:
            self.bloom_filter.save(self.fname)
        else:
            warnings.warn(
                "Attempting to save in-memory Bloom filter, this is a no-op.",
                RuntimeWarning,
                stacklevel=2,
            )

    def assert_size(self, hashvalues) -> None:
        if not len(hashvalues) == self.r:
            raise RuntimeError(
                f"Invalid length for indices, {len(hashvalues)}, expected {self.r} hashvalues "
                "in band"
            )

    def insert(self, hashvalues) -> None:
        self.assert_size(hashvalues)
        self.bloom_filter.insert(np.asarray(hashvalues, dtype=np.uint64))

    def query(self, hashvalues) -> bool:
        self.assert_size(hashvalues)
        return self.bloom_filter.query(np.asarray(hashvalues, dtype=np.uint64))


class _BloomBand:
    """One band's filter of a :class:`MinHashLSHBloom` (datasketch's ``hashtables[i]``)."""

    def __init__(self, lsh, i: int):
        self._lsh, self._i = lsh, i
        self.r = lsh.r

    def assert_size(self, hashvalues) -> None:
        if not len(hashvalues) == self.r:
            raise RuntimeError(
                f"Invalid length for indices, {len(hashvalues)}, expected {self.r} hashvalues "
                "in band"
            )

    def insert(self, hashvalues) -> None:
        self.assert_size(hashvalues)
        self._lsh._bloom.insert_band(self._i, np.asarray(hashvalues, dtype=np.uint64))

    def query(self, hashvalues) -> bool:
        self.assert_size(hashvalues)
        return self._lsh._bloom.query_band(self._i, np.asarray(hashvalues, dtype=np.uint64))


class MinHashLSHBloom:
    """datasketch's ``MinHashLSHBloom``: one Bloom filter per band (``bitvec`` bits in Rust);
    answers "is this a near-duplicate of something inserted?", not which. With ``save_dir``
    the filters are loaded from and written to ``save_dir/bloom.bin`` (:meth:`sync`)."""

    def __init__(
        self,
        threshold: float = 0.9,
        num_perm: int = 128,
        n: Optional[int] = None,
        fp: Optional[float] = None,
        save_dir: Optional[str] = None,
        weights: tuple = (0.5, 0.5),
        params: Optional[tuple] = None,
    ) -> None:
        if threshold > 1.0 or threshold < 0.0:
            raise ValueError("threshold must be in [0.0, 1.0]")
        if num_perm < 2:
            raise ValueError("Too few permutation functions")
        if n is None or n <= 0:
            raise ValueError("n for LSHBloom must be >= 0")
        if fp is None or fp >= 1.0 or fp <= 0.0:
            raise ValueError("fp must be in (0.0, 1.0)")
        if save_dir is None:
            warnings.warn(
                "Creating LSHBloom index without save directory, this index will not be "
                "persisted.",
                RuntimeWarning,
                stacklevel=2,
            )
        _check_weights(weights)
        self.h = num_perm
        self.b, self.r = _bands_and_rows(threshold, num_perm, weights, params)
        self.n, self.fp, self.save_dir = n, fp, save_dir
        self.hashranges = [(i * self.r, (i + 1) * self.r) for i in range(self.b)]
        self._minhash_scheme = None
        path = self._path()
        if path is not None and os.path.exists(path):
            self._bloom = _native.BandBloom.load(path)
            bands, rows, _, _ = self._bloom.shape
            if (bands, rows) != (self.b, self.r):
                raise ValueError(
                    "%s holds %d bands of %d rows; this index has %d of %d (open it with "
                    "params=(%d, %d))" % (path, bands, rows, self.b, self.r, bands, rows)
                )
        else:
            self._bloom = _native.BandBloom(self.b, self.r, n, fp)
        self.hashtables = [_BloomBand(self, i) for i in range(self.b)]

    def _path(self) -> Optional[str]:
        return None if self.save_dir is None else os.path.join(self.save_dir, "bloom.bin")

    def _values(self, minhash) -> np.ndarray:
        values = _hashvalues(minhash)
        if len(values) != self.h:
            raise ValueError("Expecting minhash with length %d, got %d" % (self.h, len(values)))
        return np.ascontiguousarray(values, dtype=np.uint64).reshape(-1)

    def insert(self, minhash) -> None:
        """Adds ``minhash``'s bands to the filters."""
        values = self._values(minhash)
        self._minhash_scheme = _check_scheme_consistency(self._minhash_scheme, minhash)
        self._bloom.insert(values)

    def query(self, minhash) -> bool:
        """True if ``minhash`` shares a band with something inserted (probably)."""
        values = self._values(minhash)
        _check_scheme_consistency(self._minhash_scheme, minhash)
        return self._bloom.query(values)

    def sync(self) -> None:
        """Writes the filters to ``save_dir`` (a warning and nothing else without one)."""
        path = self._path()
        if path is None:
            warnings.warn(
                "Attempting to save in-memory Bloom filter, this is a no-op.",
                RuntimeWarning,
                stacklevel=2,
            )
            return
        os.makedirs(self.save_dir, exist_ok=True)
        self._bloom.save(path)


WeightedMinHashLSH = MinHashLSH
WeightedMinHashLSHForest = MinHashLSHForest
