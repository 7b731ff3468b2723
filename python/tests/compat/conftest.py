"""Compatibility suites: datasketch's and rensa's own tests, ported to run against either
`textreuse.compat` (default) or the real packages (TEXTREUSE_COMPAT_TARGET=upstream).

See README.md in this directory for what was ported from where, and what is skipped and why.
This file does not import the implementation (compat/_compat_impl.py does, per test module), so
that an import error there fails the compat test modules, not the whole python/tests session.
"""

from __future__ import annotations

import os


def pytest_report_header(config):
    target = os.environ.get("TEXTREUSE_COMPAT_TARGET", "textreuse")
    return [f"compat target (TEXTREUSE_COMPAT_TARGET): {target}"]
