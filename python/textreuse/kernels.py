"""Arrow batch kernels: the dedup pipeline's per-row steps over whole pyarrow arrays.

Each function reads its input arrays in place through their Arrow buffers (``arr.buffers()``
and ``arr.offset``, so slices work and nothing is copied), runs one loop over the rows in Rust
with the GIL released, and returns new pyarrow arrays built on the bytes Rust produced. There is
no per-row Python work. These are the steps the Spark backend (:mod:`textreuse.spark`) runs
inside ``mapInArrow``; they give exactly what ``textreuse dedup`` computes for the same rows.

Strings may be ``pa.string()`` or ``pa.large_string()`` arrays (or ChunkedArrays, which are
combined first, a copy when there is more than one chunk). Band keys are ``pa.uint64()``, the
same unsigned values as :meth:`Signer.band_keys`; sentence ids are ``pa.int64()`` (the
pipeline's ids are below 2**63). Malformed arrays (offsets out of range, invalid UTF-8) raise
ValueError; arrays of another type raise TypeError.

>>> import pyarrow as pa
>>> from textreuse import Signer, kernels
>>> text = pa.array(["A sentence long enough to be signed, and then some more words.", None])
>>> rows, keys = kernels.band_key_records(Signer(), text)
>>> rows.to_pylist()
[0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
"""

from __future__ import annotations

import os

import pyarrow as pa
import pyarrow.compute  # noqa: F401 - pa.compute

from . import _native
from ._native import Signer

__all__ = [
    "ReuseFileReader",
    "ReuseJob",
    "band_key_records",
    "cluster_lines",
    "connected_components",
    "edit_keep",
    "reuse_align",
    "reuse_chunk_vectors",
    "reuse_document_terms",
    "reuse_pick_documents",
    "shingle_counts",
    "signatures",
]

# (validity, values or offsets, data, offset, length): an array as _native takes it.
_Parts = tuple[pa.Buffer | None, pa.Buffer | None, pa.Buffer | None, int, int]


def _array(arr: pa.Array | pa.ChunkedArray, name: str) -> pa.Array:
    if isinstance(arr, pa.ChunkedArray):
        return arr.combine_chunks()
    if not isinstance(arr, pa.Array):
        raise TypeError(f"{name}: expected a pyarrow Array, got {type(arr).__name__}")
    return arr


def _string_parts(arr: pa.Array | pa.ChunkedArray, name: str = "text") -> tuple[_Parts, bool]:
    """The buffers of a string array and whether its offsets are 64-bit (large_string)."""
    arr = _array(arr, name)
    if arr.type == pa.string():
        large = False
    elif arr.type == pa.large_string():
        large = True
    else:
        raise TypeError(
            f"{name}: expected a string or large_string array, got {arr.type} "
            "(cast it with arr.cast(pa.string()))"
        )
    validity, offsets, data = arr.buffers()
    return (validity, offsets, data, arr.offset, len(arr)), large


def _int64_parts(arr: pa.Array | pa.ChunkedArray, name: str) -> _Parts:
    arr = _array(arr, name)
    if arr.type != pa.int64():
        raise TypeError(
            f"{name}: expected an int64 array, got {arr.type} (cast it with arr.cast(pa.int64()))"
        )
    validity, values = arr.buffers()
    return (validity, values, None, arr.offset, len(arr))


def _fixed(type_: pa.DataType, width: int, data: bytes, validity: bytes | None = None) -> pa.Array:
    n = len(data) // width
    valid = None if validity is None else pa.py_buffer(validity)
    return pa.Array.from_buffers(type_, n, [valid, pa.py_buffer(data)])


def _strings(offsets: bytes, data: bytes, validity: bytes | None = None) -> pa.StringArray:
    n = len(offsets) // 4 - 1
    valid = None if validity is None else pa.py_buffer(validity)
    return pa.Array.from_buffers(pa.string(), n, [valid, pa.py_buffer(offsets), pa.py_buffer(data)])


def band_key_records(
    signer: Signer, text: pa.Array | pa.ChunkedArray, shingle: int = _native.DEFAULTS["shingle"]
) -> tuple[pa.UInt32Array, pa.UInt64Array]:
    """Stage 2 of the dedup pipeline: the (row, band key) records of a column of sentences.

    For every non-null row ``i`` of ``text``, the sentence is normalized (lowercased,
    whitespace collapsed), cut into ``shingle``-character shingles, signed by ``signer``, and
    one record ``(i, key)`` is emitted per band key, rows in order and keys in band order
    (``signer.bands`` records per signed row). ``key`` is the pipeline's unsigned 64-bit band
    key, a ``uint64`` equal to what :meth:`Signer.band_keys` gives for the row's signature
    (``keys.to_numpy()`` is a numpy uint64 array). A store without unsigned integers (Spark's
    LongType) takes ``keys.view(pa.int64())``, the same bits, as :mod:`textreuse.spark` does.
    Rows whose normalized text is shorter than one shingle emit nothing, as in the pipeline.
    The sentence filter (75 to 600 shingles of the text as written) is not applied here; see
    :func:`shingle_counts`.
    """
    parts, large = _string_parts(text)
    rows, keys = _native.band_key_records(signer, parts, large, shingle)
    return _fixed(pa.uint32(), 4, rows), _fixed(pa.uint64(), 8, keys)


def signatures(
    signer: Signer, text: pa.Array | pa.ChunkedArray, shingle: int = _native.DEFAULTS["shingle"]
) -> pa.FixedSizeListArray:
    """The MinHash signature of every row: a ``list<uint64>[signer.hashes]`` array.

    Rows are signed as by :func:`band_key_records` (and :meth:`Signer.sign`); a row that is null
    or whose normalized text is shorter than one shingle is null. This is the compact form of
    :meth:`Signer.sign_batch`: one flat buffer of ``len(text) * signer.hashes`` uint64.
    """
    parts, large = _string_parts(text)
    values, validity = _native.signatures(signer, parts, large, shingle)
    n = len(values) // (8 * signer.hashes)
    child = _fixed(pa.uint64(), 8, values)
    valid = None if validity is None else pa.py_buffer(validity)
    return pa.Array.from_buffers(
        pa.list_(pa.uint64(), signer.hashes), n, [valid], children=[child]
    )


def shingle_counts(text: pa.Array | pa.ChunkedArray, shingle: int = _native.DEFAULTS["shingle"]) -> pa.UInt32Array:
    """The number of ``shingle``-character shingles of each text as written (no normalization):
    ``max(0, chars - shingle + 1)``, 0 for a null. The pipeline keeps sentences with 75 to 600.
    """
    parts, large = _string_parts(text)
    return _fixed(pa.uint32(), 4, _native.shingle_counts(parts, large, shingle))


def edit_keep(
    a: pa.Array | pa.ChunkedArray, b: pa.Array | pa.ChunkedArray, max_edit: float
) -> pa.BooleanArray:
    """Stage 7 of the dedup pipeline: whether each pair of sentences is within ``max_edit``.

    ``1 - normalized_levenshtein(a[i], b[i]) <= max_edit`` (Levenshtein distance in characters
    over the longer length, strsim's definition, on the sentences as written), exactly the test
    ``textreuse dedup --max-edit`` applies. Null where ``a[i]`` or ``b[i]`` is null.
    """
    parts_a, large_a = _string_parts(a, "a")
    parts_b, large_b = _string_parts(b, "b")
    keep, validity = _native.edit_keep(parts_a, large_a, parts_b, large_b, float(max_edit))
    n = parts_a[4]
    valid = None if validity is None else pa.py_buffer(validity)
    return pa.Array.from_buffers(pa.bool_(), n, [valid, pa.py_buffer(keep)])


def connected_components(
    a: pa.Array | pa.ChunkedArray, b: pa.Array | pa.ChunkedArray
) -> tuple[pa.Int64Array, pa.Int64Array]:
    """Stage 5 of the dedup pipeline: the connected components of the pairs ``(a[i], b[i])``.

    Returns ``(node, cluster)``: one row per distinct node of the pairs, ``cluster`` the
    smallest node of its component (int64 order, which is the pipeline's order for its
    non-negative sentence ids), sorted by ``(cluster, node)``. Uses ``textreuse-unionfind``, so
    the clusters are those ``textreuse dedup`` finds for the same pairs. No nulls allowed.
    """
    node, cluster = _native.connected_components(_int64_parts(a, "a"), _int64_parts(b, "b"))
    return _fixed(pa.int64(), 8, node), _fixed(pa.int64(), 8, cluster)


def _doc_parts(doc: pa.Array | pa.ChunkedArray, doc_str: pa.Array | pa.ChunkedArray | None):
    """The (doc_int, doc_str) arguments of _native.cluster_lines."""
    doc = _array(doc, "doc")
    if doc.type in (pa.string(), pa.large_string()):
        if doc_str is not None:
            raise TypeError("doc: give doc_str only with an int64 doc column")
        return None, _string_parts(doc, "doc")
    return _int64_parts(doc, "doc"), None if doc_str is None else _string_parts(doc_str, "doc_str")


def _optional_strings(arr: pa.Array | pa.ChunkedArray | None, name: str):
    return None if arr is None else _string_parts(arr, name)


def _optional_int64(arr: pa.Array | pa.ChunkedArray | None, name: str):
    return None if arr is None else _int64_parts(arr, name)


def cluster_lines(
    cluster: pa.Array | pa.ChunkedArray,
    id: pa.Array | pa.ChunkedArray,  # noqa: A002 - the column's name in the pipeline
    doc: pa.Array | pa.ChunkedArray,
    title: pa.Array | pa.ChunkedArray,
    text: pa.Array | pa.ChunkedArray,
    *,
    doc_str: pa.Array | pa.ChunkedArray | None = None,
    source: pa.Array | pa.ChunkedArray | None = None,
    record: pa.Array | pa.ChunkedArray | None = None,
    revision: pa.Array | pa.ChunkedArray | None = None,
    timestamp: pa.Array | pa.ChunkedArray | None = None,
    start: pa.Array | pa.ChunkedArray | None = None,
    end: pa.Array | pa.ChunkedArray | None = None,
    url: pa.Array | pa.ChunkedArray | None = None,
    signer: Signer | None = None,
    shingle: int = _native.DEFAULTS["shingle"],
    keep: str = "first",
    verify: bool = False,
    threshold: float | None = None,
) -> tuple[pa.Int64Array, pa.StringArray, pa.Int64Array, pa.StringArray, pa.StringArray]:
    """Stages 6 and 8: the ``clusters.jsonl`` line and the ``duplicates.jsonl`` lines of each
    cluster.

    The input has one row per clustered sentence: its ``cluster`` id, sentence ``id``
    (``seq << 32 | idx``), document id ``doc``, ``title`` and ``text``, and where it came from:
    ``source`` (the input as given), ``record`` (JSON Lines line), ``revision`` and
    ``timestamp`` (dump pages), ``url`` (a revision's permanent link, a WARC record's URI), and
    ``start``/``end``, its character offsets in the document
    text (all as ``textreuse sentences`` writes them; a column left out, or a null, is a value
    the member does not have; without ``start``/``end`` a member spans its whole text). ``doc``
    is an int64 array of integer ids or a string array of string ids; for a mix, ``doc`` is
    int64 and ``doc_str`` a string array whose non-null rows are the string ids. Each cluster's
    rows must be contiguous and complete (any order inside; e.g. one Spark group).

    Each cluster is built as ``textreuse dedup`` builds it: members sorted by ``(doc, idx)``,
    classified by the same rules, the representative picked by ``keep`` (``"first"``,
    ``"earliest"`` or ``"longest"``, as ``--keep``), each member's estimated Jaccard similarity
    to it from the minhashes of ``signer`` (default ``Signer()``) over ``shingle``-character
    shingles, and with ``verify`` (``--verify``) the exact Jaccard, members below ``threshold``
    (default ``(1/M)^(1/K)`` of the signer) not counting as duplicates. Pass the run's
    parameters to get its bytes.

    Returns one row per cluster, in input order: ``(cluster, type, size, line, duplicates)``,
    where ``line`` is byte for byte the line ``textreuse dedup`` writes for the cluster,
    ``type`` its class (``identical``, ``template``, ``copyedit``, ``factual_drift``,
    ``reference`` or ``other``) and ``duplicates`` its lines of ``duplicates.jsonl``, each
    ending in a newline ("" when it has none). A null title is taken as ""; nulls in
    ``cluster``, ``id`` and ``text``, a row without a document id, and negative
    ``record``/``revision``/``start``/``end`` raise ValueError.
    """
    doc_int_parts, doc_str_parts = _doc_parts(doc, doc_str)
    out = _native.cluster_lines(
        signer if signer is not None else Signer(),
        shingle,
        keep,
        verify,
        threshold,
        _int64_parts(cluster, "cluster"),
        _int64_parts(id, "id"),
        doc_int_parts,
        doc_str_parts,
        _string_parts(title, "title"),
        _string_parts(text, "text"),
        source=_optional_strings(source, "source"),
        record=_optional_int64(record, "record"),
        revision=_optional_int64(revision, "revision"),
        timestamp=_optional_strings(timestamp, "timestamp"),
        start=_optional_int64(start, "start"),
        end=_optional_int64(end, "end"),
        url=_optional_strings(url, "url"),
    )
    clusters, type_offsets, type_data, sizes, line_offsets, line_data, dup_offsets, dup_data = out
    return (
        _fixed(pa.int64(), 8, clusters),
        _strings(type_offsets, type_data),
        _fixed(pa.int64(), 8, sizes),
        _strings(line_offsets, line_data),
        _strings(dup_offsets, dup_data),
    )


# -- textreuse reuse -------------------------------------------------------------------------
#
# The steps of `textreuse reuse`'s tf-idf candidate search and alignment (the Spark backend's
# reuse job, :mod:`textreuse.spark.reuse`), each calling the `textreuse-reuse` library's own
# step, so a distributed run finds the same candidates and writes the same lines. ``job`` is a
# :class:`ReuseJob` holding the run's options.

ReuseJob = _native.ReuseJob


def _float_bits(arr: pa.Array | pa.ChunkedArray, name: str) -> _Parts:
    """A float32 array as int64 holding its bits (the kernels read int64 columns)."""
    arr = _array(arr, name)
    if arr.type != pa.float32():
        raise TypeError(f"{name}: expected a float32 array, got {arr.type}")
    return _int64_parts(arr.view(pa.int32()).cast(pa.int64()), name)


class ReuseFileReader:
    """The documents of one input file, read as ``textreuse reuse`` reads its inputs: an
    iterator of RecordBatches in file order.

    Wikipedia dumps, JSON Lines documents (``{"id", "title", "text"}`` or the ``paragraphs`` of
    ``textreuse extract``), WARC/WET files and plain text, gzip, zstd or bzip2 compressed or not
    (Parquet is not read: the wheel leaves it out), with the command line's own reader and
    cleaning, dump pages cleaned in parallel. ``files_before`` is the number of input files
    before this one (a plain-text document's id is its file's 1-based position among them).

    Each batch has at most 4,096 documents (fewer when their text reaches 32 MiB) and the
    columns ``k`` (int64: the document's 0-based number in the file), ``id``, ``title``,
    ``text``, ``source`` (the file as given), ``record`` (int64: the 1-based line or record),
    ``revision`` (int64), ``timestamp`` and ``url`` (strings: a dump revision's permanent link, a
    WARC record's target URI), the last five null where the input has no such thing. Input problems (a bad line, a damaged part of a dump, an unreadable file)
    are skipped; once the iterator is exhausted, :attr:`documents` and :attr:`problems` count
    what was read and skipped, and :attr:`messages` describes the first ten problems as the
    command line logs them (``skipped: ...``). What stops the reading before the end of the
    file (a document of more than 2 GiB) raises OSError.

    >>> import tempfile, pathlib
    >>> path = pathlib.Path(tempfile.mkdtemp()) / "docs.jsonl"
    >>> _ = path.write_text('{"id": 7, "title": "T", "text": "One two."}\\nnot json\\n')
    >>> reader = ReuseFileReader(path)
    >>> [b.column("id").to_pylist() for b in reader], reader.documents, reader.problems
    ([['7']], 1, 1)
    >>> reader.messages[0].startswith("skipped: ")
    True
    """

    #: The columns of the batches.
    SCHEMA = pa.schema([
        ("k", pa.int64()), ("id", pa.string()), ("title", pa.string()), ("text", pa.string()),
        ("source", pa.string()), ("record", pa.int64()), ("revision", pa.int64()),
        ("timestamp", pa.string()), ("url", pa.string()),
    ])

    def __init__(self, path: str | os.PathLike, files_before: int = 0):
        self._reader = _native.ReuseFileReader(os.fspath(path), files_before)

    def __iter__(self) -> ReuseFileReader:
        return self

    def __next__(self) -> pa.RecordBatch:
        k, ids, titles, texts, sources, records, revisions, timestamps, urls = next(self._reader)
        return pa.RecordBatch.from_arrays(
            [
                _fixed(pa.int64(), 8, k),
                _strings(*ids), _strings(*titles), _strings(*texts), _strings(*sources),
                _fixed(pa.int64(), 8, *records), _fixed(pa.int64(), 8, *revisions),
                _strings(*timestamps), _strings(*urls),
            ],
            schema=self.SCHEMA,
        )

    @property
    def documents(self) -> int:
        """The documents read (ValueError before the iterator is exhausted)."""
        return self._reader.documents

    @property
    def problems(self) -> int:
        """The input problems skipped (ValueError before the iterator is exhausted)."""
        return self._reader.problems

    @property
    def messages(self) -> list[str]:
        """The first ten problems, as ``textreuse reuse`` logs them."""
        return self._reader.messages


def reuse_document_terms(text: pa.Array | pa.ChunkedArray) -> tuple[pa.UInt32Array, pa.UInt64Array]:
    """The distinct terms of each document (keys of its words of at least three characters):
    ``(row, key)`` records. Counted over all documents they are the document frequencies."""
    parts, large = _string_parts(text)
    rows, keys = _native.reuse_document_terms((parts, large))
    return _fixed(pa.uint32(), 4, rows), _fixed(pa.uint64(), 8, keys)


def reuse_chunk_vectors(
    job: ReuseJob,
    text: pa.Array | pa.ChunkedArray,
    terms: pa.Array | pa.ChunkedArray,
    documents: int,
):
    """The pruned tf-idf vectors of each document's chunks.

    ``terms`` holds per row a list of ``struct<term: int64, df: int64>``: the document
    frequencies of the row's terms (keys as int64 bits; a null list is an empty one), among
    ``documents`` documents. Returns ``(row, chunk, term, weight)`` records: uint32, uint32
    (the chunk's number within its document), uint64, float32.
    """
    parts, large = _string_parts(text)
    terms = _array(terms, "terms")
    lengths = pa.compute.list_value_length(terms).fill_null(0).cast(pa.int64())
    flat = pa.compute.list_flatten(terms)
    keys = flat.field("term") if len(flat) else pa.array([], pa.int64())
    dfs = flat.field("df") if len(flat) else pa.array([], pa.int64())
    rows, chunks, keys_out, weights = _native.reuse_chunk_vectors(
        job,
        (parts, large),
        _int64_parts(lengths, "lengths"),
        _int64_parts(keys, "keys"),
        _int64_parts(dfs, "dfs"),
        documents,
    )
    return (
        _fixed(pa.uint32(), 4, rows),
        _fixed(pa.uint32(), 4, chunks),
        _fixed(pa.uint64(), 8, keys_out),
        _fixed(pa.float32(), 4, weights),
    )


def reuse_pick_documents(job: ReuseJob, query, chunk, doc, term, query_weight, weight):
    """Each query chunk's nominated documents from its weight products with other chunks.

    One row per product: the query chunk's number, the other chunk's number and document
    number (chunk numbers int64, a document's chunks together and documents in order), the
    shared term (int64 bits) and both weights (float32). A query chunk's rows must be
    contiguous. Returns ``(query, doc, scored)``: the nominations (int64 arrays) and the number
    of chunk pairs scored.
    """
    q, d, scored = _native.reuse_pick_documents(
        job,
        _int64_parts(query, "query"),
        _int64_parts(chunk, "chunk"),
        _int64_parts(doc, "doc"),
        _int64_parts(term, "term"),
        _float_bits(query_weight, "query_weight"),
        _float_bits(weight, "weight"),
    )
    return _fixed(pa.int64(), 8, q), _fixed(pa.int64(), 8, d), scored


def _side(batch: pa.RecordBatch, prefix: str):
    def s(name):
        return _string_parts(batch.column(prefix + name), prefix + name)

    def i(name):
        return _int64_parts(batch.column(prefix + name), prefix + name)

    return (
        i("n"), s("id"), s("title"), s("text"), s("source"), i("record"), i("revision"),
        s("timestamp"), s("url"),
    )


def reuse_align(job: ReuseJob, pairs: pa.RecordBatch, align: bool = True) -> dict:
    """Aligns candidate pairs and formats them as ``textreuse reuse`` writes them.

    ``pairs`` has the columns ``support`` (int64) and, for the suspicious side ``susp_`` and
    the source side ``src_``: ``n`` (document number), ``id``, ``title``, ``text``, and the
    provenance as :class:`ReuseFileReader` gives it: ``source`` (the input it was read from),
    ``record`` (its line or record), ``revision``, ``timestamp`` and ``url``. Returns a dict of arrays, one row
    per pair: ``lines`` (its ``reuse.jsonl`` lines), ``pair_row`` (its ``pairs.tsv`` row),
    ``cases``, ``content``, ``structure``, ``spurious`` (passages by kind), ``susp_chars``, ``src_chars`` (the texts' lengths
    in characters, for ``documents.tsv``; 0 for pairs without passages), and the passages'
    character ranges as lists: ``susp_starts``, ``susp_ends``, ``src_starts``, ``src_ends``,
    and what the corpus view (``corpus.json``) needs of them, as lists: ``kinds`` (the kind's
    index in content, structure, unclassified), ``words`` (of the suspicious passage), ``j2``
    and ``j10`` (word 2-gram and 10-gram Jaccard).
    Without ``align`` no pair has passages (``--candidates-only``).
    """
    out = _native.reuse_align(
        job, _side(pairs, "susp_"), _side(pairs, "src_"),
        _int64_parts(pairs.column("support"), "support"), align,
    )
    lines, rows, cases, content, structure, spurious, susp_chars, src_chars, ranges, features = out
    cases = _fixed(pa.uint32(), 4, cases)
    offsets = pa.concat_arrays(
        [pa.array([0], pa.int64()), pa.compute.cumulative_sum(cases.cast(pa.int64()))]
    ).cast(pa.int32())
    result = dict(
        lines=_strings(*lines),
        pair_row=_strings(*rows),
        cases=cases.cast(pa.int64()),
        content=_fixed(pa.uint32(), 4, content).cast(pa.int64()),
        structure=_fixed(pa.uint32(), 4, structure).cast(pa.int64()),
        spurious=_fixed(pa.uint32(), 4, spurious).cast(pa.int64()),
        susp_chars=_fixed(pa.uint64(), 8, susp_chars).cast(pa.int64()),
        src_chars=_fixed(pa.uint64(), 8, src_chars).cast(pa.int64()),
    )
    for name, values in zip(("susp_starts", "susp_ends", "src_starts", "src_ends"), ranges):
        result[name] = pa.ListArray.from_arrays(
            offsets, _fixed(pa.uint64(), 8, values).cast(pa.int64())
        )
    kinds, words, j2, j10 = features
    for name, values in (
        ("kinds", _fixed(pa.uint8(), 1, kinds).cast(pa.int32())),
        ("words", _fixed(pa.uint64(), 8, words).cast(pa.int64())),
        ("j2", _fixed(pa.float64(), 8, j2)),
        ("j10", _fixed(pa.float64(), 8, j10)),
    ):
        result[name] = pa.ListArray.from_arrays(offsets, values)
    return result
