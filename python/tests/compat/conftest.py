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


# Per-file outcome counts of the ported suites, printed at the end of the run (CI's log shows
# how many of datasketch's and rensa's own tests pass against textreuse.compat).
_COUNTS: dict = {}


def pytest_runtest_logreport(report):
    path = report.nodeid.split("::", 1)[0]
    if "compat/" not in path:
        return
    counts = _COUNTS.setdefault(path.rsplit("/", 1)[-1], {"passed": 0, "failed": 0, "skipped": 0})
    if report.when == "call" or (report.when == "setup" and not report.passed):
        if report.skipped:
            counts["skipped"] += 1
        elif report.failed:
            counts["failed"] += 1
        elif report.passed:
            counts["passed"] += 1
    elif report.when == "teardown" and report.failed:
        counts["failed"] += 1


def pytest_terminal_summary(terminalreporter):
    if not _COUNTS:
        return
    target = os.environ.get("TEXTREUSE_COMPAT_TARGET", "textreuse")
    terminalreporter.section(f"compat suites against {target}: passed / failed / skipped per file")
    for name in sorted(_COUNTS):
        c = _COUNTS[name]
        terminalreporter.write_line(
            f"{name:40s} {c['passed']:5d} {c['failed']:5d} {c['skipped']:5d}"
        )
    total = {k: sum(c[k] for c in _COUNTS.values()) for k in ("passed", "failed", "skipped")}
    terminalreporter.write_line(
        f"{'total':40s} {total['passed']:5d} {total['failed']:5d} {total['skipped']:5d}"
    )
