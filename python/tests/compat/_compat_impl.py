"""The one switch of the compatibility tests: which implementation they run against.

TEXTREUSE_COMPAT_TARGET=textreuse (the default) tests `textreuse.compat.datasketch` and
`textreuse.compat.rensa`; TEXTREUSE_COMPAT_TARGET=upstream tests the real `datasketch` (2.0.0)
and `rensa` (0.5.0) packages, which is how the ported suites themselves are validated.

Every ported test file imports the implementation from here and nowhere else:

    from _compat_impl import ds        # the datasketch namespace (MinHash, MinHashLSH, ...)
    from _compat_impl import rensa     # the rensa namespace (RMinHash, CMinHash, RMinHashLSH)

Classes that are not part of textreuse.compat's scope (datasketch's `bBitMinHash` and the
pybloomfilter-backed `BloomTable`) are looked up with `optional`, and the tests that need them
are skipped, with a reason, when the target does not provide them.
"""

from __future__ import annotations

import importlib
import os

TARGET = os.environ.get("TEXTREUSE_COMPAT_TARGET", "textreuse")
if TARGET not in ("textreuse", "upstream"):
    raise RuntimeError(
        f"TEXTREUSE_COMPAT_TARGET={TARGET!r}: expected 'textreuse' (default) or 'upstream'"
    )
UPSTREAM = TARGET == "upstream"

if UPSTREAM:
    import datasketch as ds
    import rensa
    #: The statement child processes use to import the rensa classes (subprocess tests).
    RENSA_IMPORT = "from rensa import"
    #: The module path of the datasketch namespace, for child processes.
    DS_MODULE = "datasketch"
else:
    try:
        from textreuse.compat import datasketch as ds
        from textreuse.compat import rensa
    except ImportError as err:
        raise ImportError(
            f"{err}: the compat tests run against textreuse.compat by default; "
            "TEXTREUSE_COMPAT_TARGET=upstream runs them against the real datasketch and rensa"
        ) from err
    RENSA_IMPORT = "from textreuse.compat.rensa import"
    DS_MODULE = "textreuse.compat.datasketch"


def optional(name: str, upstream_module: str):
    """`name` from the datasketch namespace of the target, or None when the target lacks it.

    Upstream, the class is imported from `upstream_module` (e.g. `datasketch.b_bit_minhash`);
    it is None there too when that module cannot provide it (BloomTable needs pybloomfilter3).
    """
    if not UPSTREAM:
        return getattr(ds, name, None)
    try:
        return getattr(importlib.import_module(upstream_module), name, None)
    except ImportError:
        return None


def rensa_code(code: str) -> str:
    """Python source for a child process, with `from rensa import` pointed at the target."""
    return code.replace("from rensa import", RENSA_IMPORT)


def fake_hash_func(data):
    """Fake hash function that returns the input data unchanged (datasketch test/utils.py)."""
    return data


__all__ = ["DS_MODULE", "RENSA_IMPORT", "TARGET", "UPSTREAM", "ds", "fake_hash_func",
           "optional", "rensa", "rensa_code"]
