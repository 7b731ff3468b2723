"""Drop-in APIs of other MinHash libraries, running on textreuse's Rust core.

- :mod:`textreuse.compat.datasketch`: datasketch 2.0's ``MinHash``, ``LeanMinHash``,
  ``WeightedMinHash``/``WeightedMinHashGenerator``, ``MinHashLSH``, ``MinHashLSHForest``,
  ``MinHashLSHEnsemble`` and ``MinHashLSHBloom``; signatures bit-identical to datasketch's, so
  its objects and ours mix.
- :mod:`textreuse.compat.rensa`: rensa 0.5's ``RMinHash``, ``CMinHash`` and ``RMinHashLSH``.

Change one import::

    from datasketch import MinHash, MinHashLSH                    # before
    from textreuse.compat.datasketch import MinHash, MinHashLSH   # after

What differs on purpose (storage on disk instead of Redis, rensa's digests) is listed in the
Python README's migration guide.
"""
