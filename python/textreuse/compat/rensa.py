"""rensa 0.5's API on textreuse's Rust core: change ``from rensa import ...`` to
``from textreuse.compat.rensa import ...``.

- :class:`RMinHash` and :class:`CMinHash` compute rensa's digests bit for bit (algorithm
  version 2: the same token hash, R-MinHash bucket rounds and fallbacks, C-MinHash
  permutations, for the same ``num_perm`` and ``seed``), in ``textreuse_minhash::rensa``. A
  digest made here equals the one rensa makes, so sketches, digest matrices and indexes built
  by either can be compared; ``__getstate__`` returns rensa's bytes, and ``__setstate__`` reads
  them.
- :class:`RMinHashLSH` bands digests as rensa does and keeps its tables in Rust
  (``textreuse_index::KeyedBandTables``): ``query`` returns the same keys in the same order,
  and the duplicate flags agree.
- The batch builders (``from_token_sets``, ``digests_from_token_sets``, the
  ``digest_matrix_from_*`` family, ``hash_token_sets``) read rensa's inputs (``str`` and
  bytes-like tokens, pre-hashed ``uint64`` values, flat buffers with row offsets) and raise its
  errors; they sketch on all cores.

Not provided: the "rho" sampling pipeline (``digest_matrix_from_*_rho``, which raise
``NotImplementedError``; the full-set builders above give exact, order-independent digests),
rho's tuning by ``RENSA_*`` environment variables, and the streaming deduplicators
(``RMinHashDeduplicator``, ``CMinHashDeduplicator``). Saved ``RMinHashLSH`` states are this
module's own (rensa's keep 64-bit band hashes that cannot be converted): an index pickled by one
library is rebuilt, not read, by the other.

>>> from textreuse.compat.rensa import RMinHash, RMinHashLSH
>>> first, second = RMinHash.from_token_sets(
...     ["the quick brown fox".split(), "the quick brown dog".split()], num_perm=128, seed=42)
>>> 0.3 < first.jaccard(second) < 0.9
True
>>> lsh = RMinHashLSH(threshold=0.5, num_perm=128, num_bands=32)
>>> lsh.insert(0, first)
>>> lsh.query(first)
[0]
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .. import _native

__all__ = ["CMinHash", "RMinHash", "RMinHashDigestMatrix", "RMinHashLSH"]

_RHO = (
    "{name}: rensa's rho sampling pipeline is not part of textreuse.compat.rensa; use the "
    "full-set builder {full} (exact R-MinHash digests, bit-identical to rensa's)"
)
_NOT_PROVIDED = {
    "RMinHashDeduplicator": "rensa's streaming deduplicators are not part of "
    "textreuse.compat.rensa; index RMinHash sketches in RMinHashLSH and check candidates with "
    "RMinHash.jaccard",
    "CMinHashDeduplicator": "rensa's streaming deduplicators are not part of "
    "textreuse.compat.rensa; compare CMinHash sketches with CMinHash.jaccard, or index RMinHash "
    "sketches in RMinHashLSH",
}


def __getattr__(name: str) -> Any:
    if name in _NOT_PROVIDED:
        raise AttributeError(f"{name}: {_NOT_PROVIDED[name]}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _rho(name: str, full: str):
    raise NotImplementedError(_RHO.format(name=name, full=full))


def _native_of(obj, cls):
    if isinstance(obj, cls):
        return obj._s
    raise TypeError(f"{type(obj).__name__!r} object is not an instance of {cls.__name__!r}")


class RMinHashDigestMatrix:
    """Digests of many documents in one row-major block (rensa's ``RMinHashDigestMatrix``),
    made by the ``RMinHash.digest_matrix_from_*`` builders and taken by ``RMinHashLSH``'s
    matrix methods."""

    __slots__ = ("_m",)

    def __init__(self) -> None:
        raise TypeError("RMinHashDigestMatrix is made by RMinHash.digest_matrix_from_* builders")

    @classmethod
    def _wrap(cls, native) -> RMinHashDigestMatrix:
        matrix = object.__new__(cls)
        matrix._m = native
        return matrix

    def len(self) -> int:
        """The number of rows (digests)."""
        return len(self._m)

    __len__ = len

    def is_empty(self) -> bool:
        """True if there are no rows."""
        return len(self._m) == 0

    def get_num_perm(self) -> int:
        """The width of each row."""
        return self._m.num_perm

    def to_rows(self) -> list[list[int]]:
        """The digests, one list of ``num_perm`` ints per document."""
        return self._m.to_rows()

    # The rho pipeline's side data; the full-set matrices made here have none (as rensa's
    # full-set matrices).
    def get_rho_non_empty_counts(self) -> None:
        """None: rho side data (this is a full-set matrix)."""
        return None

    def get_rho_source_token_counts(self) -> None:
        """None: rho side data (this is a full-set matrix)."""
        return None

    def get_rho_sparse_occupancy_threshold(self) -> None:
        """None: rho side data (this is a full-set matrix)."""
        return None

    def get_rho_sparse_row_rate(self) -> None:
        """None: rho side data (this is a full-set matrix)."""
        return None

    def __repr__(self) -> str:
        return f"<RMinHashDigestMatrix {len(self._m)} x {self._m.num_perm}>"


def _matrix(obj):
    if isinstance(obj, RMinHashDigestMatrix):
        return obj._m
    raise TypeError(f"{type(obj).__name__!r} object is not an instance of 'RMinHashDigestMatrix'")


class RMinHash:
    """rensa's ``RMinHash``: an R-MinHash sketch of ``num_perm`` 32-bit slots.

    Tokens are ``str`` (hashed as UTF-8), ``bytes``, ``bytearray`` or C-contiguous ``u8``
    buffers; ``update`` takes an iterable of them, a ``str`` (its characters) or one bytes-like
    token. The digest does not depend on token order, repeats or how tokens are split across
    updates, and equals rensa 0.5's for the same ``num_perm``, ``seed`` and tokens.

    >>> m = RMinHash(num_perm=4, seed=42)
    >>> m.update(["old", "mill"])
    >>> len(m.digest()), m.digest() == RMinHash.digests_from_token_sets([["mill", "old"]], 4, 42)[0]
    (4, True)
    """

    __slots__ = ("_s",)

    #: The version of the values (rensa 0.5's); other versions' digests are not comparable.
    ALGORITHM_VERSION = 2

    def __init__(self, num_perm: int, seed: int) -> None:
        self._s = _native.RensaRMinHash(num_perm, seed)

    @classmethod
    def _wrap(cls, native) -> RMinHash:
        sketch = object.__new__(cls)
        sketch._s = native
        return sketch

    def update(self, items) -> None:
        """Adds the tokens of ``items``."""
        self._s.update(items)

    def digest(self) -> list[int]:
        """The ``num_perm`` slot values (``2**32 - 1`` in slots no token reached)."""
        return self._s.digest()

    def jaccard(self, other: RMinHash) -> float:
        """The estimated Jaccard similarity: the fraction of equal slots. ValueError for a
        sketch of another ``num_perm`` or ``seed``."""
        return self._s.jaccard(_native_of(other, RMinHash))

    # -- batches -------------------------------------------------------------------------

    @classmethod
    def from_token_sets(cls, token_sets: Iterable, num_perm: int, seed: int) -> list[RMinHash]:
        """One sketch per token set."""
        return [cls._wrap(s) for s in _native.rensa_r_sketches(token_sets, num_perm, seed)]

    @classmethod
    def digests_from_token_sets(
        cls, token_sets: Iterable, num_perm: int, seed: int
    ) -> list[list[int]]:
        """One digest per token set."""
        return _native.rensa_r_matrix(token_sets, num_perm, seed, "tokens").to_rows()

    @classmethod
    def hash_token_sets(cls, token_sets: Iterable) -> list[list[int]]:
        """Each token's 64-bit hash (rensa's, for the ``*_token_hash_sets`` builders)."""
        return _native.rensa_hash_token_sets(token_sets)

    @classmethod
    def digest_matrix_from_token_sets(
        cls, token_sets: Iterable, num_perm: int, seed: int
    ) -> RMinHashDigestMatrix:
        """The digests of the token sets as one matrix."""
        return RMinHashDigestMatrix._wrap(
            _native.rensa_r_matrix(token_sets, num_perm, seed, "tokens")
        )

    @classmethod
    def digest_matrix_from_token_hash_sets(
        cls, token_hash_sets: Iterable, num_perm: int, seed: int
    ) -> RMinHashDigestMatrix:
        """Digests of pre-hashed token sets: each an iterable of ints in ``0..2**64`` or a
        native-order ``uint64`` buffer."""
        return RMinHashDigestMatrix._wrap(
            _native.rensa_r_matrix(token_hash_sets, num_perm, seed, "hashes")
        )

    @classmethod
    def digest_matrix_from_flat_token_hashes(
        cls, token_hashes, row_offsets, num_perm: int, seed: int
    ) -> RMinHashDigestMatrix:
        """Digests of one flat array of token hashes cut at ``row_offsets`` (``0``,
        non-decreasing, ``len(token_hashes)``; read before the hashes)."""
        return RMinHashDigestMatrix._wrap(
            _native.rensa_r_flat(token_hashes, row_offsets, num_perm, seed)
        )

    @classmethod
    def digest_matrix_from_token_byte_sets(
        cls, token_byte_sets: Iterable, num_perm: int, seed: int
    ) -> RMinHashDigestMatrix:
        """Digests of token sets of bytes-like tokens only (``str`` tokens are refused)."""
        return RMinHashDigestMatrix._wrap(
            _native.rensa_r_matrix(token_byte_sets, num_perm, seed, "bytes")
        )

    @classmethod
    def digest_matrix_from_token_sets_rho(cls, token_sets, num_perm, seed, probes=4):
        """Not provided: raises NotImplementedError (use ``digest_matrix_from_token_sets``)."""
        _rho("digest_matrix_from_token_sets_rho", "digest_matrix_from_token_sets")

    @classmethod
    def digest_matrix_from_token_hash_sets_rho(cls, token_hash_sets, num_perm, seed, probes=4):
        """Not provided: raises NotImplementedError (use
        ``digest_matrix_from_token_hash_sets``)."""
        _rho("digest_matrix_from_token_hash_sets_rho", "digest_matrix_from_token_hash_sets")

    @classmethod
    def digest_matrix_from_flat_token_hashes_rho(
        cls, token_hashes, row_offsets, num_perm, seed, probes=4
    ):
        """Not provided: raises NotImplementedError (use
        ``digest_matrix_from_flat_token_hashes``)."""
        _rho("digest_matrix_from_flat_token_hashes_rho", "digest_matrix_from_flat_token_hashes")

    # -- pickling ------------------------------------------------------------------------

    def __getstate__(self) -> bytes:
        return self._s.state()

    def __setstate__(self, state: bytes) -> None:
        # Decoded in full before anything changes: a refused state leaves the sketch as it was.
        self._s = _native.RensaRMinHash.from_state(state)

    def __getnewargs__(self) -> tuple[int, int]:
        return (self._s.num_perm, self._s.seed)

    def __reduce__(self):
        return (type(self), self.__getnewargs__(), self.__getstate__())

    def __repr__(self) -> str:
        return f"RMinHash(num_perm={self._s.num_perm}, seed={self._s.seed})"


class CMinHash:
    """rensa's ``CMinHash``: a C-MinHash sketch of ``num_perm`` 64-bit slots (``digest()``
    gives their top 32 bits, ``digest_u64()`` all of them). Tokens as for :class:`RMinHash`;
    values equal rensa 0.5's.

    >>> a, b = CMinHash(num_perm=64, seed=7), CMinHash(num_perm=64, seed=7)
    >>> a.update(["old", "mill"]); b.update("mill old".split())
    >>> a.jaccard(b)
    1.0
    """

    __slots__ = ("_s",)

    #: The version of the values (rensa 0.5's); other versions' digests are not comparable.
    ALGORITHM_VERSION = 2

    def __init__(self, num_perm: int, seed: int) -> None:
        self._s = _native.RensaCMinHash(num_perm, seed)

    @classmethod
    def _wrap(cls, native) -> CMinHash:
        sketch = object.__new__(cls)
        sketch._s = native
        return sketch

    def update(self, items) -> None:
        """Adds the tokens of ``items``."""
        self._s.update(items)

    def digest(self) -> list[int]:
        """The top 32 bits of each slot."""
        return self._s.digest()

    def digest_u64(self) -> list[int]:
        """The 64-bit slot values (``2**64 - 1`` in slots no token reached)."""
        return self._s.digest_u64()

    def jaccard(self, other: CMinHash) -> float:
        """The estimated Jaccard similarity: the fraction of equal 64-bit slots. ValueError for
        a sketch of another ``num_perm`` or ``seed``."""
        return self._s.jaccard(_native_of(other, CMinHash))

    @classmethod
    def from_token_sets(cls, token_sets: Iterable, num_perm: int, seed: int) -> list[CMinHash]:
        """One sketch per token set."""
        return [cls._wrap(s) for s in _native.rensa_c_sketches(token_sets, num_perm, seed)]

    @classmethod
    def digests_from_token_sets(
        cls, token_sets: Iterable, num_perm: int, seed: int
    ) -> list[list[int]]:
        """One 32-bit digest (``digest()``) per token set."""
        return _native.rensa_c_digests(token_sets, num_perm, seed, "tokens", False)

    @classmethod
    def digests64_from_token_sets(
        cls, token_sets: Iterable, num_perm: int, seed: int
    ) -> list[list[int]]:
        """One 64-bit digest (``digest_u64()``) per token set."""
        return _native.rensa_c_digests(token_sets, num_perm, seed, "tokens", True)

    @classmethod
    def digests64_from_token_hash_sets(
        cls, token_hash_sets: Iterable, num_perm: int, seed: int
    ) -> list[list[int]]:
        """64-bit digests of pre-hashed token sets (``RMinHash.hash_token_sets``'s values)."""
        return _native.rensa_c_digests(token_hash_sets, num_perm, seed, "hashes", True)

    def __getstate__(self) -> bytes:
        return self._s.state()

    def __setstate__(self, state: bytes) -> None:
        self._s = _native.RensaCMinHash.from_state(state)

    def __getnewargs__(self) -> tuple[int, int]:
        return (self._s.num_perm, self._s.seed)

    def __reduce__(self):
        return (type(self), self.__getnewargs__(), self.__getstate__())

    def __repr__(self) -> str:
        return f"CMinHash(num_perm={self._s.num_perm}, seed={self._s.seed})"


class RMinHashLSH:
    """rensa's ``RMinHashLSH``: ``num_bands`` bands of ``num_perm / num_bands`` slots of
    :class:`RMinHash` digests. Keys are ints in ``0..2**64``; inserting a key again replaces its
    digest. ``query`` returns the keys sharing a band, in the order rensa returns them (band by
    band, each bucket in insertion order).

    >>> docs = [["old", "mill", "river"], ["old", "mill", "river", "bank"], ["new", "bridge"]]
    >>> sketches = RMinHash.from_token_sets(docs, num_perm=16, seed=1)
    >>> lsh = RMinHashLSH(threshold=0.5, num_perm=16, num_bands=8)
    >>> lsh.insert_many(sketches)
    >>> 0 in lsh.query(sketches[1]), lsh.query(sketches[2])
    (True, [2])
    """

    __slots__ = ("_t",)

    def __init__(self, threshold: float, num_perm: int, num_bands: int) -> None:
        self._t = _native.RensaBandTables(threshold, num_perm, num_bands)

    def insert(self, key: int, minhash: RMinHash) -> None:
        """Indexes ``minhash`` under ``key`` (replacing what ``key`` had)."""
        self._t.insert(key, _native_of(minhash, RMinHash))

    def insert_pairs(self, entries: Iterable) -> None:
        """Indexes each ``(key, minhash)`` pair."""
        for key, minhash in entries:
            self._t.insert(key, _native_of(minhash, RMinHash))

    def insert_many(self, minhashes: Iterable, start_key: int = 0) -> None:
        """Indexes ``minhashes`` under ``start_key``, ``start_key + 1``, ..."""
        self._t.insert_many((_native_of(m, RMinHash) for m in minhashes), start_key)

    def insert_matrix(self, digest_matrix: RMinHashDigestMatrix, start_key: int = 0) -> None:
        """Indexes the matrix's rows under ``start_key``, ``start_key + 1``, ..."""
        self._t.insert_matrix(_matrix(digest_matrix), start_key)

    def insert_matrix_and_query_duplicate_flags(
        self, digest_matrix: RMinHashDigestMatrix, start_key: int = 0
    ) -> list[bool]:
        """Indexes the matrix's rows (as ``insert_matrix``) and flags each row that shares a
        band with a key already indexed when it comes, or with another row of the matrix."""
        return self._t.insert_matrix_flagged(_matrix(digest_matrix), start_key)

    def remove(self, key: int) -> bool:
        """Removes ``key``; False if it was not indexed."""
        return self._t.remove(key)

    def query(self, minhash: RMinHash) -> list[int]:
        """The keys sharing at least one band with ``minhash``."""
        return self._t.query(_native_of(minhash, RMinHash))

    def query_all(self, minhashes: Iterable) -> list[list[int]]:
        """``query`` of each sketch."""
        query = self._t.query
        return [query(_native_of(m, RMinHash)) for m in minhashes]

    def query_duplicate_flags(self, minhashes: Iterable) -> list[bool]:
        """For each sketch: ``len(query(minhash)) > 1``."""
        query = self._t.query
        return [len(query(_native_of(m, RMinHash))) > 1 for m in minhashes]

    def query_duplicate_flags_matrix(self, digest_matrix: RMinHashDigestMatrix) -> list[bool]:
        """``query_duplicate_flags`` of the matrix's rows."""
        return self._t.matrix_flags(_matrix(digest_matrix))

    def query_duplicate_flags_matrix_one_shot(
        self, digest_matrix: RMinHashDigestMatrix
    ) -> list[bool]:
        """Flags rows sharing a band with an indexed key or with another row of the matrix,
        without indexing them."""
        return self._t.one_shot_flags(_matrix(digest_matrix))

    def is_similar(self, minhash1: RMinHash, minhash2: RMinHash) -> bool:
        """``minhash1.jaccard(minhash2) >= threshold``."""
        return minhash1.jaccard(minhash2) >= self._t.threshold

    def get_num_perm(self) -> int:
        """``num_perm``."""
        return self._t.num_perm

    def get_num_bands(self) -> int:
        """``num_bands``."""
        return self._t.num_bands

    # rensa's counters of the rho pipeline's sparse verification; one-shot queries of full-set
    # matrices verify nothing (as rensa's).
    def get_last_one_shot_sparse_verify_checks(self) -> int:
        """0: full-set matrices need no sparse verification."""
        return 0

    def get_last_one_shot_sparse_verify_passes(self) -> int:
        """0: full-set matrices need no sparse verification."""
        return 0

    def __getstate__(self) -> bytes:
        return self._t.state()

    def __setstate__(self, state: bytes) -> None:
        self._t = _native.RensaBandTables.from_state(state)

    def __getnewargs__(self) -> tuple[float, int, int]:
        return (self._t.threshold, self._t.num_perm, self._t.num_bands)

    def __reduce__(self):
        return (type(self), self.__getnewargs__(), self.__getstate__())

    def __repr__(self) -> str:
        t = self._t
        return (
            f"RMinHashLSH(threshold={t.threshold}, num_perm={t.num_perm}, "
            f"num_bands={t.num_bands}) with {len(t)} keys"
        )
