"""Type stubs of the Rust extension ``textreuse._native`` (import ``textreuse`` instead).

Batch calls release the GIL. Everything is deterministic: the same inputs and parameters give
the same values on every machine and version, equal to the ``textreuse`` command line's.
"""

from collections.abc import Iterable, Sequence
from os import PathLike
from pathlib import Path
from typing import Any, Literal, TypedDict, final

import numpy as np
import numpy.typing as npt

#: A signature: N minhashes. Returned as a numpy uint64 array; accepted as any uint64 array or
#: sequence of ints (and, by LSHIndex, an object with ``hashvalues``, such as datasketch's MinHash).
Signature = npt.NDArray[np.uint64]
SignatureLike = npt.NDArray[np.uint64] | Sequence[int]

__version__: str
#: The defaults of `textreuse dedup` (shingle, min_shingles, max_shingles, hashes, bits, rows,
#: bands, seed, max_bucket, max_article_pairs, max_hamming; of --method rp-embed:
#: projection_bits, permutations, window, projection_max_hamming, stem, center, dim, epochs),
#: from the Rust libraries.
DEFAULTS: dict[str, int]

@final
class Signer:
    """MinHash signer: ``N`` hash functions, ``M`` band keys of ``K`` minhashes each.

    The defaults are those of ``textreuse dedup``: N = 20 functions of 60 bits, K = 10 rows,
    M = 10 bands drawn as K-subsets of the N functions from the seed 1123456. ``hashes=None``
    means 20 for ``scheme="drawn"`` and ``rows * bands`` for ``scheme="disjoint"`` (classic
    banding, where any other value is an error). Inconsistent parameters raise ValueError
    naming the one to change.

    Signers are immutable, thread-safe, picklable (by their parameters) and compare equal when
    their parameters are equal.
    """

    def __init__(
        self,
        hashes: int | None = None,
        bits: int = 60,
        rows: int = 10,
        bands: int = 10,
        seed: int = 1123456,
        scheme: Literal["drawn", "disjoint", "oph"] = "drawn",
    ) -> None: ...
    @property
    def hashes(self) -> int:
        """N, the number of hash functions (minhashes per signature)."""
    @property
    def bits(self) -> int:
        """Output bits of each hash function."""
    @property
    def rows(self) -> int:
        """K, the minhashes per band."""
    @property
    def bands(self) -> int:
        """M, the band keys per signature."""
    @property
    def seed(self) -> int:
        """The seed of the hash functions and band subsets."""
    @property
    def scheme(self) -> Literal["drawn", "disjoint", "oph"]:
        """How bands are formed."""
    def band(self, m: int) -> list[int]:
        """The indices of the K hash functions of band ``m`` (IndexError if ``m >= bands``)."""
    def sign(self, text_or_shingles: str | Iterable[int], shingle: int = 12) -> Signature:
        """The N minhashes of a text or of a set of shingle fingerprints (numpy uint64).

        A str is normalized (lowercased, whitespace collapsed) and cut into ``shingle``-character
        shingles exactly as ``textreuse dedup`` does before signing a sentence. Any other
        iterable is taken as the 64-bit shingle fingerprints themselves (ints in ``0..2**64``;
        negative int64 values stand for the same 64 bits); duplicates and order do not matter.

        Raises ValueError when there is nothing to sign (an empty set, or a text whose
        normalized form is shorter than one shingle).
        """
    def sign_batch(self, texts: Iterable[str | None] | Any, shingle: int = 12) -> list[Signature | None]:
        """Signs many texts with the GIL released.

        Returns one numpy uint64 array of N minhashes per text, in order (the rows of one 2-D
        array), or None for a text that is None (null) or whose normalized form is shorter than
        one shingle. ``texts`` is a list or
        tuple of str, any other iterable of str, or a pyarrow string / large_string Array or
        ChunkedArray (read in place through its Arrow buffers). For a columnar result without
        Python lists see :func:`textreuse.kernels.signatures`.
        """
    def band_keys(self, signature: SignatureLike) -> list[int]:
        """The M band keys of a signature (unsigned 64-bit ints), in band order.

        These are the keys ``textreuse dedup`` buckets sentences by, equal to the uint64 keys of
        :func:`textreuse.kernels.band_key_records`; two signatures share band m's key exactly
        when they agree on its K minhashes (up to 64-bit collisions).
        """
    def jaccard(self, sig_a: SignatureLike, sig_b: SignatureLike) -> float:
        """Estimated Jaccard similarity: the fraction of the N minhashes that agree."""
    def collision_probability(self, s: float) -> float:
        """Exact probability that sets of Jaccard similarity ``s`` share a band key.

        By inclusion-exclusion over the drawn band subsets (which share hash functions);
        ``1 - (1 - s**K)**M`` for disjoint bands. ValueError unless ``0 <= s <= 1``.
        """
    def independent_approximation(self, s: float) -> float:
        """``1 - (1 - s**K)**M``: exact for disjoint bands, an overestimate for drawn bands."""
    def __eq__(self, other: object) -> bool: ...
    def __hash__(self) -> int: ...
    def __reduce__(self) -> tuple[type[Signer], tuple[int, int, int, int, int, str]]: ...

class IndexLockedError(RuntimeError):
    """Another writer (an LSHIndex, in this process or another, or ``textreuse index``) has the
    index open: one writer at a time. Its lock is released when that LSHIndex is garbage
    collected or its process exits."""

class MissingKeyError(KeyError, ValueError):
    """A key that is not in the index (LSHIndex.remove): both a KeyError and a ValueError."""

class IndexParams(TypedDict):
    """The parameters of an index, as its MANIFEST names them (``hashes`` is num_perm)."""

    unit: Literal["document", "sentence", "paragraph", "chunk"]
    shingle: int
    min_shingles: int
    max_shingles: int | None
    min_words: int
    scheme: Literal["drawn", "disjoint", "oph"]
    hashes: int
    rows: int
    bands: int
    bits: int
    seed: int
    signature_bytes: int
    store_text: bool

class IndexStats(TypedDict):
    """What an index holds."""

    documents: int
    entries: int
    removed_documents: int
    segments: int
    bytes: int
    band_key_records: int
    generation: int
    uncommitted_documents: int

Key = int | str

@final
class LSHIndex:
    """A persistent, incremental MinHash LSH index: insert texts or signatures under keys, query
    for the keys of near-duplicates, remove, and keep it on disk.

    With ``path=None`` the index lives in a temporary directory owned by the object and removed
    when it is garbage collected. With a path holding an index, that index is opened for writing
    (parameters must then be left out or equal its own, else ValueError); a missing or empty
    directory gets a new index, and one that holds files but no index (no ``MANIFEST``, as an
    index whose ``MANIFEST`` was lost) raises FileExistsError, its files untouched. Parameters left out (None) take the defaults of ``textreuse index create``;
    ``threshold`` tunes rows and bands for the scheme and ``num_perm`` (N, the number of hash
    functions), explicit ``rows``/``bands`` win. ``unit`` defaults to ``"document"`` (one item
    per key) and ``store_text`` to True.

    Keys are int (-2**63..2**64) or str; values are texts (signed by the index itself) or
    signatures of N minhashes. Changes are durable after :meth:`commit`; pickling commits and
    carries the whole index (unpickled into a new temporary directory). :meth:`query_top_k`
    ranks the k nearest keys even below the threshold (datasketch's ``MinHashLSHForest``),
    :meth:`query_containment` finds the documents containing most of a text
    (``MinHashLSHEnsemble``).

    >>> index = LSHIndex(threshold=0.8)
    >>> index.insert("mill", "The old mill on the river was built in 1820 and still grinds grain.")
    1
    >>> index.query("The old mill on the river was built in 1820 and still grinds grain!")
    ['mill']
    """

    def __init__(
        self,
        path: str | PathLike[str] | None = None,
        *,
        threshold: float | None = None,
        unit: Literal["document", "sentence", "paragraph", "chunk"] | None = None,
        num_perm: int | None = None,
        rows: int | None = None,
        bands: int | None = None,
        scheme: Literal["drawn", "disjoint", "oph"] | None = None,
        seed: int | None = None,
        shingle: int | None = None,
        min_shingles: int | None = None,
        signature_bytes: Literal[1, 2, 4, 8] | None = None,
        store_text: bool | None = None,
        max_memory: int | None = None,
    ) -> None: ...
    @classmethod
    def open(cls, path: str | PathLike[str], *, max_memory: int | None = None) -> LSHIndex:
        """Opens an existing index for writing (FileNotFoundError if there is none,
        IndexLockedError while another writer has it)."""
    def insert(self, key: Key, value: str | SignatureLike) -> int:
        """Adds a text or a signature under ``key``; returns the units indexed (0 for a text too
        short to sign; the key is still recorded). ValueError if the key is present."""
    def insert_batch(self, keys: Iterable[Key] | Any, values: Sequence[str] | Sequence[SignatureLike] | npt.NDArray[np.uint64] | Any) -> int:
        """insert() of many items, texts signed on all cores with the GIL released. ``values``:
        a list of str, a pyarrow string array, a 2-D uint64 array of signatures (one row per
        item) or a list of signatures. Nothing is added on a ValueError (a key present or
        repeated, a None text, different lengths)."""
    def query(self, value: str | SignatureLike) -> list[Key]:
        """The keys of the documents sharing a band key with ``value`` (any unit of a text, or a
        signature), best first (highest estimated Jaccard similarity), each key once."""
    def query_scores(
        self,
        value: str | SignatureLike,
        *,
        min_jaccard: float = 0.0,
        verify: bool = False,
        limit: int | None = None,
    ) -> list[tuple[Key, float]]:
        """query() with scores: the estimated Jaccard similarity, or with ``verify=True`` (texts
        only, the index storing texts) the exact one. At most ``limit`` keys."""
    def query_top_k(self, value: str | SignatureLike, k: int, verify: bool = False) -> list[tuple[Key, float]]:
        """The ``k`` keys most similar to ``value`` as ``(key, jaccard)``, best first (ties: the
        key inserted first), even below the index's threshold, like datasketch's
        ``MinHashLSHForest.query(m, k)``. Estimated, or exact with ``verify=True`` (texts only,
        the index storing texts). Only keys sharing a band key with ``value`` can be found, so
        fewer than ``k`` may come back; ``k=0`` gives []."""
    def query_containment(self, value: str | SignatureLike, threshold: float = 0.9, verify: bool = False) -> list[tuple[Key, float]]:
        """The keys whose documents contain at least ``threshold`` of ``value`` (``|Q & X| /
        |Q|`` of the shingles) as ``(key, containment)``, most first, like datasketch's
        ``MinHashLSHEnsemble``. Estimated through the units they share (use ``unit="sentence"``,
        ``"paragraph"`` or ``"chunk"``), exact over the whole texts with ``verify=True``.
        ValueError for a threshold outside 0..1."""
    def query_batch(self, values: Sequence[str | None] | Sequence[SignatureLike] | npt.NDArray[np.uint64] | Any) -> list[list[Key]]:
        """query() of many values (as insert_batch takes them); [] for a None text."""
    def remove(self, key: Key) -> None:
        """Removes the document with this key. KeyError if there is none (datasketch raises
        ValueError). The space is reclaimed by compact()."""
    def __contains__(self, key: object) -> bool: ...
    def __len__(self) -> int:
        """Documents (keys) held, committed or not."""
    def is_empty(self) -> bool: ...
    def commit(self) -> None:
        """Makes every insert and remove so far durable."""
    def compact(self) -> None:
        """Commits, then merges the segments into one without the removed documents."""
    def stats(self) -> IndexStats: ...
    @staticmethod
    def verify(path: str | PathLike[str]) -> IndexStats:
        """Checks every file of the committed index at ``path``; raises ValueError on damage."""
    @property
    def params(self) -> IndexParams: ...
    @property
    def signer(self) -> Signer:
        """The Signer of the index's parameters (sign with ``shingle=params["shingle"]``)."""
    @property
    def path(self) -> Path: ...
    @property
    def temporary(self) -> bool:
        """Whether the index lives in a temporary directory removed with the object."""
    def __getstate__(self) -> tuple[int, bool, list[tuple[str, bytes]]]:
        """Commits; (1, temporary, [(file name, bytes)]) of the index directory but its lock."""
    def __setstate__(self, state: tuple[int, bool, list[tuple[str, bytes]]]) -> None: ...

class Detection(TypedDict):
    """One reused passage found by :func:`align`; offsets and lengths count characters."""

    source_offset: int
    source_length: int
    suspicious_offset: int
    suspicious_length: int
    score: float
    source_text: str
    suspicious_text: str

class CheckCase(TypedDict):
    """One reused passage found by :func:`check` (a line of ``textreuse check``); offsets and
    lengths count characters, the texts are excerpts."""

    suspicious: str
    rank: int
    source_id: int | str
    source_title: str
    suspicious_offset: int
    suspicious_length: int
    source_offset: int
    source_length: int
    score: float
    kind: Literal["content", "structure"]
    ngram_jaccard: dict[str, float]
    entity_jaccard: float
    source_share: float
    suspicious_share: float
    suspicious_text: str
    source_text: str

class CheckCandidate(TypedDict):
    """A candidate source found by :func:`check` with ``candidates_only``."""

    suspicious: str
    rank: int
    source_id: int | str
    source_title: str
    shared_keys: int
    estimated_jaccard: float

class Recommendation(TypedDict):
    """What :func:`tune` recommends and the error areas it weighed."""

    rows: int
    bands: int
    false_positive: float
    false_negative: float
    error: float

def sentences(text: str) -> list[tuple[int, int, str]]:
    """Splits a text into sentences as ``textreuse dedup`` does.

    One ``(start, end, sentence)`` per sentence, where ``start``/``end`` are UTF-8 BYTE offsets
    (``text.encode()[start:end].decode() == sentence``); see :func:`char_offsets`.
    """

def char_offsets(text: str, byte_offsets: Sequence[int]) -> list[int]:
    """Converts UTF-8 byte offsets into ``text`` into character offsets (str indices).

    An offset inside a multi-byte character maps past that character; offsets beyond the end
    map to ``len(text)``.
    """

def shingles(text: str, length: int = 12, normalize: bool = True) -> list[int]:
    """The 64-bit fingerprints of the ``length``-character shingles of ``text``.

    In text order with repetitions; with ``normalize=True`` the text is first lowercased with
    whitespace collapsed, as ``textreuse dedup`` prepares a sentence for MinHash.
    """

def shingle_count(text: str, length: int = 12) -> int:
    """``max(0, len(text) - length + 1)``: shingles of the text as written."""

def jaccard(text_a: str, text_b: str, length: int = 12) -> float:
    """Exact Jaccard similarity of the texts' normalized shingle sets (0.0 if either is empty)."""

def simhash(text: str, shingle: int = 12) -> int | None:
    """The 64-bit SimHash of a sentence as ``textreuse dedup --method simhash`` computes it.

    None when the normalized text is shorter than one shingle.
    """

def paragraph_simhash(text: str) -> int | None:
    """The weighted paragraph fingerprint of a paragraph or document, as ``textreuse dedup
    --unit paragraph|document --method simhash`` computes it (its longest sentences weighted by
    keyword frequency, length and position, after Wang, Liu and Jia).

    None when no sentence is long enough.
    """

def wang_fingerprints(
    text: str,
    words: int = 11,
    sentences: int = 9,
    bits: int = 32,
    fallback: str = "document",
    paragraphs: str = "blank-lines",
) -> list[int]:
    """The document's set of paragraph fingerprints by Wang, Liu and Jia's method, sorted
    ascending, each once, below ``2**bits``: what ``textreuse docsim --fingerprints`` writes.

    Paragraphs end at blank lines (``paragraphs="lines"``: at every line break); sentences at
    ``. ! ? ;``. In each paragraph the ``sentences`` longest sentences of at least ``words``
    words are weighted by keyword share + lg(length) + position, hashed to ``bits`` bits and
    folded into one fingerprint. A paragraph without a long sentence gets the fingerprint of the
    ``words`` longest sentences of the document (``"document"``, the paper's rule), of its own
    (``"paragraph"``) or none (``"none"``). ValueError for a parameter out of range.
    """

def set_similarity(a: Sequence[int], b: Sequence[int], max_hamming: int = 0) -> float:
    """S(M, N) = |M & N| / sqrt(|M| * |N|) of two fingerprint sets (duplicates count once):
    1.0 for equal non-empty sets, 0.0 when they share nothing or either is empty. With
    ``max_hamming > 0`` fingerprints within that many bits match one to one."""

def similar_documents(
    texts: list[str],
    queries: list[str] | None = None,
    threshold: float = 0.8,
    max_hamming: int = 0,
    words: int = 11,
    sentences: int = 9,
    bits: int = 32,
    fallback: str = "document",
    paragraphs: str = "blank-lines",
) -> list[tuple[int, int, float]]:
    """The pairs ``(a, b, S)`` of documents whose Wang fingerprint sets have S >= threshold, as
    ``textreuse docsim`` finds them: every pair ``a < b`` of ``texts``, or with ``queries``
    every query ``a`` against every text ``b``; sorted by ``(a, b)``. Only documents sharing a
    fingerprint are compared."""

def align(
    source: str,
    suspicious: str,
    min_length: int = 150,
    lang: str = "en",
    synonyms: bool = True,
) -> list[Detection]:
    """Passages of ``suspicious`` reused from ``source`` (PAN text alignment, as
    ``textreuse align``); passages shorter than ``min_length`` bytes on a side are dropped.
    ``lang`` is the texts' language for stemming and stopwords (ISO 639-1: "en", "de", "ru",
    "bg", ...) or "auto" to detect it from ``suspicious``; ValueError for an unknown code.
    ``synonyms`` matches English words with their WordNet synonyms (``--synonyms``)."""

def check(
    suspicious: Sequence[str | PathLike[str] | tuple[str, str]],
    corpus: str | PathLike[str] | None = None,
    *,
    index: str | PathLike[str] | None = None,
    top: int = 10,
    min_length: int = 150,
    lang: str = "en",
    synonyms: bool = True,
    fallback_ngram: int | None = 4,
    ngram: int = 2,
    rows: int = 2,
    bands: int = 30,
    excerpt: int = 160,
    candidates_only: bool = False,
    threads: int = 1,
) -> list[CheckCase] | list[CheckCandidate]:
    """The plagiarism check of ``textreuse check``: its JSON lines as dicts, in its order.
    ``suspicious`` holds paths (read as text, named as given) or ``(name, text)`` pairs; the
    corpus is ``corpus`` (read as ``check --corpus`` reads it: a directory's ``*.txt`` files in
    sorted order, or one input of any format; bad records are skipped with a warning) or
    ``index`` (a persistent chunk index, ``check --index``). The other keywords are the
    command's flags. ValueError for invalid settings, OSError for unreadable files."""

def tune(
    threshold: float,
    hashes: int = 20,
    scheme: Literal["drawn", "disjoint", "oph"] = "drawn",
    max_bands: int = 16,
    bits: int = 60,
    seed: int = 1123456,
    false_positive_weight: float = 0.5,
    false_negative_weight: float = 0.5,
) -> Recommendation:
    """Recommends rows K and bands M for a Jaccard threshold (``textreuse tune --threshold``).

    Minimizes the weighted false-positive and false-negative areas under the exact S-curve.
    ValueError unless ``0 < threshold < 1``.
    """

class Plan(TypedDict):
    scheme: Literal["drawn", "disjoint", "oph"]
    hashes: int
    rows: int
    bands: int
    recall: float
    candidate_rate: float
    cost_ns: float

def plan(
    threshold: float,
    recall: float = 0.99,
    below: float | None = None,
    candidate_rate: float = 0.01,
    min_set: int = 75,
    schemes: Sequence[Literal["drawn", "disjoint", "oph"]] | None = None,
    hashes: int = 20,
    max_hashes: int = 512,
    bits: int = 60,
    seed: int = 1123456,
) -> Plan:
    """The cheapest scheme, rows and bands that meet a recall and candidate-rate target
    (``textreuse tune --threshold``): ``recall`` at Jaccard >= threshold, at most
    ``candidate_rate`` at <= ``below`` (default ``max(threshold - 0.4, threshold / 6)``), for sets
    of ``min_set`` shingles and more. ValueError when no configuration meets it.
    """

class ReportSummary(TypedDict):
    path: str
    bytes: int
    clusters: int
    shown: int
    seconds: float

class ReuseReportSummary(TypedDict):
    path: str
    bytes: int
    articles: int
    pairs: int
    cases: int
    seconds: float

def report(
    out_dir: str | PathLike[str],
    samples: int = 5,
    top_pairs: int = 25,
    largest: int = 3,
    max_members: int = 8,
    revision_url: str | None = "https://en.wikipedia.org/w/index.php?oldid={revision}",
) -> ReportSummary | ReuseReportSummary:
    """Writes ``out_dir/report.html`` from the dedup or reuse outputs there, as ``textreuse
    report`` does (self-contained HTML with SVG plots). For a reuse run's outputs (corpus.json
    or reuse.jsonl there) the result has ``articles``, ``pairs`` and ``cases`` instead of
    ``clusters`` and ``shown``. FileNotFoundError when an output is missing, ValueError when
    one is not in the run's format.
    """

# The kernels below take arrays as (validity, values or offsets, data, offset, length) buffer
# tuples and return raw buffers; use the wrappers in textreuse.kernels.
_Parts = tuple[Any, Any, Any, int, int]

def band_key_records(signer: Signer, text: _Parts, large: bool, shingle: int) -> tuple[bytes, bytes]: ...
def signatures(signer: Signer, text: _Parts, large: bool, shingle: int) -> tuple[bytes, bytes | None]: ...
def shingle_counts(text: _Parts, large: bool, shingle: int) -> bytes: ...
def edit_keep(a: _Parts, a_large: bool, b: _Parts, b_large: bool, max_edit: float) -> tuple[bytes, bytes | None]: ...
def connected_components(a: _Parts, b: _Parts) -> tuple[bytes, bytes]: ...
# String columns of cluster_lines are (parts, large) pairs; optional columns may be None.
def cluster_lines(
    signer: Signer,
    shingle: int,
    keep: Literal["first", "earliest", "longest"],
    verify: bool,
    threshold: float | None,
    cluster: _Parts,
    id: _Parts,
    doc_int: _Parts | None,
    doc_str: tuple[_Parts, bool] | None,
    title: tuple[_Parts, bool],
    text: tuple[_Parts, bool],
    source: tuple[_Parts, bool] | None = None,
    record: _Parts | None = None,
    revision: _Parts | None = None,
    timestamp: tuple[_Parts, bool] | None = None,
    start: _Parts | None = None,
    end: _Parts | None = None,
    url: tuple[_Parts, bool] | None = None,
) -> tuple[bytes, bytes, bytes, bytes, bytes, bytes, bytes, bytes]: ...

# The reuse job (textreuse.spark.reuse); wrappers in textreuse.kernels.
REUSE_PAIRS_HEADER: str
_Str = tuple[_Parts, bool]
# (n, id, title, text, source, record, revision, timestamp)
_Side = tuple[_Parts, _Str, _Str, _Str, _Str, _Parts, _Parts, _Str, _Str]

# The Spark dedup job's kernels (src/spark.rs): blobs are packed little-endian u64 records.
def sentence_tasks(paths: list[str], split: int) -> list[tuple[str, int, int]]: ...
def sentence_keys(
    signer: Signer, shingle: int, min_shingles: int, max_shingles: int, parts: int,
    path: str | None = None, start: int = 0, end: int = 2**64 - 1,
    lines: _Parts | None = None, large: bool = False,
) -> tuple[list[tuple[int, int, bytes]], int, bytes]: ...
def input_files(paths: list[str]) -> list[str]: ...
def document_keys(
    signer: Signer, shingle: int, min_shingles: int, max_shingles: int, parts: int,
    path: str, files_before: int, records: str, unit: str = "sentence",
) -> tuple[list[tuple[int, int, bytes]], int, int, int, list[str]]: ...
def dedup_settings(
    unit: str = "sentence", threshold: float | None = None, shingle: int = 12,
    min_shingles: int | None = None, max_shingles: int | None = None,
    scheme: str | None = None, hashes: int | None = None, rows: int | None = None,
    bands: int | None = None, bits: int = 60, seed: int = 1123456, recall: float = 0.99,
    below: float | None = None, candidate_rate: float = 0.01,
) -> tuple[Signer, int, int]: ...
def real_ids(blob: bytes | Any, bases: bytes) -> bytes: ...

class BucketPairs:
    def __init__(
        self, max_bucket: int, all_pairs: bool, mem_budget: int, tmp_dir: str | None = None
    ) -> None: ...
    def push(self, blob: bytes | Any) -> None: ...
    def finish(self) -> tuple[bytes, tuple[int, int, int, int]]: ...

def distinct_pairs(blobs: list[bytes]) -> bytes: ...
def dedup_stats_json(fields: dict[str, Any]) -> str: ...
def pair_clusters(pairs: bytes) -> tuple[bytes, bytes]: ...
def member_lines(
    ids: bytes, clusters: bytes, bounds: bytes, path: str | None = None, start: int = 0,
    end: int = 2**64 - 1, lines: _Parts | None = None, large: bool = False,
    bases: bytes | None = None,
) -> tuple[bytes, bytes, bytes, bytes, bytes]: ...
def cluster_chunk(
    signer: Signer, shingle: int, keep: Literal["first", "earliest", "longest"], verify: bool,
    threshold: float | None, cluster: _Parts, lines: _Parts, large: bool,
) -> list[tuple[bytes, bytes, str, str, str]]: ...
def rank_contradictions(chunks: list[str]) -> str: ...
def article_pairs_tsv(articles: list[str], k: int) -> tuple[str, int, str]: ...

# The Spark dedup job's random projection over word embeddings (src/spark_projection.rs).
def projection_settings(
    stem: bool, center: bool, bits: int, permutations: int, window: int,
    max_hamming: int | None, seed: int, dim: int, epochs: int, vectors_format: str = "auto",
) -> dict[str, Any]: ...
def record_words(
    stem: bool, min_shingles: int, max_shingles: int, path: str | None = None, start: int = 0,
    end: int = 2**64 - 1, lines: _Parts | None = None, large: bool = False,
) -> tuple[bytes, bytes, bytes, int, bytes]: ...
def unit_words(stem: bool, texts: _Parts, large: bool) -> tuple[bytes, bytes]: ...
def document_words(
    stem: bool, shingle: int, min_shingles: int, max_shingles: int, path: str,
    files_before: int, records: str, unit: str = "sentence",
) -> tuple[bytes, bytes, bytes, int, int, int, list[str]]: ...

class Projection:
    """The method on the driver: its options and the word vectors (read from ``vectors`` here,
    or trained by ``unit_signer_trained``)."""

    def __init__(
        self, stem: bool, center: bool, bits: int, permutations: int, window: int,
        max_hamming: int | None, seed: int, dim: int, epochs: int, vectors: str | None = None,
        vectors_format: str = "auto",
    ) -> None: ...
    @property
    def vectors(self) -> Literal["trained", "file"]: ...
    def unit_signer_trained(
        self, words: _Parts, large: bool
    ) -> tuple[bytes, int, int, int, float]: ...
    def unit_signer_counted(
        self, words: _Parts, large: bool, counts: _Parts
    ) -> tuple[bytes, int, int, int, float]: ...

class UnitSigner:
    def __init__(self, signer: bytes | Any) -> None: ...
    @property
    def signature_bytes(self) -> int: ...
    def sign(self, ids: _Parts, words: _Parts, large: bool) -> tuple[bytes, bytes]: ...

class WindowKeys:
    def __init__(
        self, bits: int, permutations: int, window: int, max_hamming: int, seed: int
    ) -> None: ...
    @property
    def key_bytes(self) -> int: ...
    def keys(self, signatures: bytes | Any) -> tuple[bytes, bytes]: ...
    def pairs(
        self, q: bytes | Any, keys: bytes | Any, ids: bytes | Any, own: int
    ) -> bytes: ...

class ReuseJob:
    """The options of a `textreuse reuse` run with tf-idf candidates (its flags' names)."""

    def __init__(
        self,
        *,
        terms: int = ...,
        top_docs: int = ...,
        max_postings: int = ...,
        min_score: float = ...,
        min_words: int = ...,
        min_length: int = ...,
        lang: str = "en",
        fallback_ngram: int | None = None,
        synonyms: bool = True,
        classes: str = "default",
        passage_texts: bool = False,
        max_memory: int | None = None,
    ) -> None: ...
    def stats_template(self, documents: int, against_documents: int) -> str: ...

class ReuseDocuments:
    """documents.tsv of a reuse run aligned elsewhere, filled pair by pair."""

    def __init__(self) -> None: ...
    def add(
        self, n: int, id: str, title: str, input: str | None, chars: int, cases: int,
        starts: Sequence[int], ends: Sequence[int],
    ) -> None: ...
    def write(self, path: str) -> None: ...

class ReuseCorpusView:
    """corpus.json of a reuse run aligned elsewhere, filled pair by pair in the CLI's order."""

    def __init__(self) -> None: ...
    def add(
        self, suspicious: tuple[int, str, str | None], source: tuple[int, str, str | None],
        susp_starts: Sequence[int], susp_ends: Sequence[int], src_starts: Sequence[int],
        src_ends: Sequence[int], kinds: Sequence[int], words: Sequence[int],
        jaccard_2: Sequence[float], jaccard_10: Sequence[float],
    ) -> None: ...
    def write(self, path: str, documents: int) -> None: ...

class ReuseFileReader:
    """One input file read as ``textreuse reuse`` reads it, in batches of buffers (use
    :class:`textreuse.kernels.ReuseFileReader`)."""

    def __init__(self, path: str, files_before: int = 0) -> None: ...
    def __iter__(self) -> ReuseFileReader: ...
    # k, id, title, text, source, record, revision, timestamp, url
    def __next__(self) -> tuple[
        bytes,
        tuple[bytes, bytes],
        tuple[bytes, bytes],
        tuple[bytes, bytes],
        tuple[bytes, bytes, bytes | None],
        tuple[bytes, bytes | None],
        tuple[bytes, bytes | None],
        tuple[bytes, bytes, bytes | None],
        tuple[bytes, bytes, bytes | None],
    ]: ...
    @property
    def documents(self) -> int: ...
    @property
    def problems(self) -> int: ...
    @property
    def messages(self) -> list[str]: ...

def reuse_document_terms(text: _Str) -> tuple[bytes, bytes]: ...
def reuse_chunk_vectors(
    job: ReuseJob, text: _Str, lengths: _Parts, keys: _Parts, dfs: _Parts, documents: int
) -> tuple[bytes, bytes, bytes, bytes]: ...
def reuse_pick_documents(
    job: ReuseJob, query: _Parts, chunk: _Parts, doc: _Parts, term: _Parts,
    query_weight: _Parts, weight: _Parts,
) -> tuple[bytes, bytes, int]: ...
def reuse_align(job: ReuseJob, suspicious: _Side, source: _Side, support: _Parts, align: bool) -> tuple: ...

# The kernels of textreuse.compat (datasketch's and rensa's APIs); use that package instead.
class AffinePermutations:
    def __init__(self, scheme: str, a: Any, b: Any) -> None: ...
    def minima(self, items: Iterable[bytes]) -> Any: ...
    def minima_of_hashes(self, hashes: Any) -> Any: ...
    def minima_batch(self, sets: Iterable[Iterable[bytes]]) -> Any: ...
    def __len__(self) -> int: ...

class BandTables:
    tables: int
    def __init__(self, tables: int) -> None: ...
    def insert(self, id: int, bands: Sequence[bytes]) -> None: ...
    def insert_cut(self, id: int, data: bytes, ranges: Sequence[tuple[int, int]]) -> None: ...
    def insert_rows(self, id: int, data: bytes, rows: int, row_bytes: int) -> None: ...
    def remove(self, id: int) -> bool: ...
    def query(self, bands: Sequence[bytes], tables: int | None = None) -> list[int]: ...
    def query_cut(self, data: bytes, ranges: Sequence[tuple[int, int]], tables: int | None = None) -> list[int]: ...
    def query_rows(self, data: bytes, rows: int, row_bytes: int, tables: int | None = None) -> list[int]: ...
    def bucket(self, table: int, band: bytes) -> list[int] | None: ...
    def bucket_keys(self, table: int) -> list[bytes]: ...
    def bucket_sizes(self, table: int) -> list[tuple[bytes, int]]: ...
    def bucket_count(self, table: int) -> int: ...
    def entry(self, id: int) -> list[bytes] | None: ...
    def contains(self, id: int) -> bool: ...
    def sort(self) -> None: ...
    def prefix_query(self, table: int, prefix: bytes) -> list[int]: ...
    def merge(self, other: BandTables, ids: Sequence[int]) -> None: ...
    def __len__(self) -> int: ...

class BandBloom:
    shape: tuple[int, int, int, int]
    def __init__(self, bands: int, rows: int, capacity: int, fp: float) -> None: ...
    @staticmethod
    def load(path: str | PathLike[str]) -> BandBloom: ...
    def save(self, path: str | PathLike[str]) -> None: ...
    def insert(self, values: Any) -> None: ...
    def query(self, values: Any) -> bool: ...
    def insert_band(self, band: int, values: Any) -> None: ...
    def query_band(self, band: int, values: Any) -> bool: ...

class WeightedSampler:
    def __init__(self, dim: int, samples: int, rs: bytes, ln_cs: bytes, betas: bytes) -> None: ...
    def sample(self, indices: Sequence[int], logs: bytes, dense: bool) -> list[tuple[int, int]]: ...

def lsh_params(threshold: float, num_perm: int, false_positive_weight: float, false_negative_weight: float) -> tuple[int, int]: ...
def containment_params(threshold: float, num_perm: int, max_r: int, xq: float, false_positive_weight: float, false_negative_weight: float) -> tuple[int, int]: ...
def optimal_partitions(sizes: Sequence[int], counts: Sequence[int], parts: int) -> list[tuple[int, int]]: ...

def classify(
    members: list[tuple[str, str, str, int | None, str | None, str | None]],
) -> str: ...
