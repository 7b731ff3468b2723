"""textreuse: near-duplicate text detection with a Rust core.

MinHash signing and band keys (``Signer``), sentence splitting, character shingles, exact
Jaccard similarity, SimHash fingerprints and passage alignment, all computed exactly as the
``textreuse`` command line computes them (same code, same seeds, same bits).

>>> import textreuse
>>> signer = textreuse.Signer()
>>> sig = signer.sign("The Old Mill stands beside the river and has done so since 1820.")
>>> len(signer.band_keys(sig))
10

Batch work over pyarrow arrays lives in :mod:`textreuse.kernels` (needs pyarrow), and the
Apache Spark backend of the dedup pipeline in :mod:`textreuse.spark` (needs pyspark); neither is
imported by ``import textreuse``.
"""

from ._native import (
    Signer,
    __version__,
    align,
    char_offsets,
    jaccard,
    paragraph_simhash,
    sentences,
    shingle_count,
    shingles,
    simhash,
    tune,
)

__all__ = [
    "Signer",
    "__version__",
    "align",
    "char_offsets",
    "jaccard",
    "paragraph_simhash",
    "sentences",
    "shingle_count",
    "shingles",
    "simhash",
    "tune",
]
