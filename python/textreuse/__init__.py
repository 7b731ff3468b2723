"""textreuse: near-duplicate text detection with a Rust core.

MinHash signing and band keys (``Signer``), a persistent MinHash LSH index (``LSHIndex``),
sentence splitting, character shingles, exact Jaccard similarity, SimHash fingerprints,
passage alignment and the plagiarism check (``check``, as ``textreuse check``), all computed exactly as the ``textreuse`` command line computes them (same
code, same seeds, same bits). Signatures are numpy uint64 arrays; band keys are unsigned 64-bit
integers everywhere (``Signer.band_keys``, ``kernels.band_key_records``).

>>> import textreuse
>>> signer = textreuse.Signer()
>>> sig = signer.sign("The Old Mill stands beside the river and has done so since 1820.")
>>> sig.dtype, len(signer.band_keys(sig))
(dtype('uint64'), 10)
>>> index = textreuse.LSHIndex(threshold=0.8)
>>> index.insert("mill", "The Old Mill stands beside the river and has done so since 1820.")
1
>>> index.query("The old mill stands beside the river and has done so since 1820!")
['mill']

datasketch and rensa users change one import: :mod:`textreuse.compat`.

Batch work over pyarrow arrays lives in :mod:`textreuse.kernels` (needs pyarrow), and the
Apache Spark backend of the dedup pipeline in :mod:`textreuse.spark` (needs pyspark); neither is
imported by ``import textreuse``.
"""

import json as _json
from collections.abc import Iterable as _Iterable, Mapping as _Mapping

from ._native import (
    IndexLockedError,
    LSHIndex,
    MissingKeyError,
    Signer,
    __version__,
    align,
    char_offsets,
    check,
    classify as _classify,
    jaccard,
    paragraph_simhash,
    plan,
    report,
    sentences,
    set_similarity,
    shingle_count,
    shingles,
    similar_documents,
    simhash,
    tune,
    wang_fingerprints,
)

__all__ = [
    "IndexLockedError",
    "LSHIndex",
    "MissingKeyError",
    "Signer",
    "__version__",
    "align",
    "char_offsets",
    "check",
    "classify",
    "jaccard",
    "paragraph_simhash",
    "plan",
    "report",
    "sentences",
    "set_similarity",
    "shingle_count",
    "shingles",
    "similar_documents",
    "simhash",
    "tune",
    "wang_fingerprints",
]


def classify(members: _Iterable) -> dict:
    """The type of a cluster of near-duplicate sentences, as ``textreuse dedup`` types its
    clusters (the types of Weissman et al. by a model fitted to labelled clusters over the
    rules' evidence, docs/dedup.md "Cluster types"), with the evidence.

    ``members`` are ``(title, text)`` pairs or mappings with ``title`` and ``text`` and
    optionally ``doc`` (members with equal ``doc``, or equal titles, are one article),
    ``revision``, ``timestamp`` and ``url``. Returns ``{"type", "confidence", "rule",
    "rule_type", "groups", "differences", "contradiction"}``: ``confidence`` is the model's
    probability of ``type``, ``rule_type`` the type the rules alone give; ``groups`` and the
    differences' ``members`` are indices into ``members``; ``contradiction`` is the
    ``contradictions.jsonl`` object for a ``factual_drift`` cluster, else None.

    >>> import textreuse
    >>> t = textreuse.classify([
    ...     ("History of the Balkans", "Bulgaria, a poor rural nation of 7 million people, sent troops."),
    ...     ("Home front during World War I", "Bulgaria, a poor rural nation of 4.5 million people, sent troops."),
    ... ])
    >>> t["type"], [(f["a"], f["b"]) for f in t["contradiction"]["facts"]]
    ('factual_drift', [('4.5', '7')])
    """
    rows = []
    for m in members:
        if isinstance(m, _Mapping):
            title, text = m.get("title") or "", m["text"]
            doc = m.get("doc", title)
            row = (str(doc), title, text, m.get("revision"), m.get("timestamp"), m.get("url"))
        else:
            title, text = m
            row = (title, title, text, None, None, None)
        rows.append(row)
    return _json.loads(_classify(rows))
