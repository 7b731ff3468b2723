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

from ._native import (
    IndexLockedError,
    LSHIndex,
    MissingKeyError,
    Signer,
    __version__,
    align,
    char_offsets,
    check,
    jaccard,
    paragraph_simhash,
    plan,
    report,
    sentences,
    shingle_count,
    shingles,
    simhash,
    tune,
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
    "jaccard",
    "paragraph_simhash",
    "plan",
    "report",
    "sentences",
    "shingle_count",
    "shingles",
    "simhash",
    "tune",
]
