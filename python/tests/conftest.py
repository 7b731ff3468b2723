"""Shared fixtures: the `textreuse` command line, whose output the bindings must reproduce.

The binary is taken from $TEXTREUSE_BIN (run-tests.sh sets it), else built with cargo.
"""

from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from spark_support import SKIPPED_INPUTS

ROOT = Path(__file__).resolve().parents[2]
TESTDATA = ROOT / "testdata"


def as_lists(sigs: list) -> list:
    """Signatures (numpy arrays, or None) as lists of ints, to compare with ==."""
    return [None if x is None else x.tolist() for x in sigs]


def _build_cli() -> str:
    out = subprocess.run(
        ["cargo", "build", "-q", "-p", "textreuse-cli", "--bin", "textreuse", "--message-format", "json"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    for line in out.splitlines():
        msg = json.loads(line)
        if msg.get("reason") == "compiler-artifact" and msg.get("executable"):
            return msg["executable"]
    raise RuntimeError("cargo built no textreuse executable")


@pytest.fixture(scope="session")
def textreuse_bin() -> str:
    path = os.environ.get("TEXTREUSE_BIN") or _build_cli()
    assert Path(path).is_file(), f"TEXTREUSE_BIN={path} does not exist"
    return path


@pytest.fixture(scope="session")
def cli(textreuse_bin: str) -> Callable[..., list[dict]]:
    """Runs `textreuse ARGS... --quiet`, which must end with exit status `status` (pass
    SKIPPED_INPUTS for runs over the bundled samples), and returns its JSON lines."""

    def run(*args: str, status: int = 0) -> list[dict]:
        done = subprocess.run(
            [textreuse_bin, *args, "--quiet"], capture_output=True, text=True
        )
        assert done.returncode == status, f"textreuse {' '.join(args)}: {done.stderr}"
        return [json.loads(line) for line in done.stdout.splitlines()]

    return run


@pytest.fixture(scope="session")
def sample_sentences(cli: Callable[..., list[dict]]) -> list[dict]:
    """Every sentence of the bundled sample dumps (no length filter), with its band keys."""
    return cli(
        "sentences", "--min-shingles", "0", "--max-shingles", "0", "--band-keys",
        status=SKIPPED_INPUTS,
    )


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "slow: long tests (fault injection); run with TEXTREUSE_SLOW_TESTS=1"
    )


def pytest_collection_modifyitems(config, items):
    if os.environ.get("TEXTREUSE_SLOW_TESTS") == "1":
        return
    skip = pytest.mark.skip(reason="slow test: set TEXTREUSE_SLOW_TESTS=1 to run it")
    for item in items:
        if "slow" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(scope="session")
def samples(tmp_path_factory):
    """Sentence records of the bundled samples with the extractor's counts, and `textreuse dedup`'s outputs on them
    (`cli/`, and `cli-edit/` with --max-edit 0.25)."""
    from spark_support import run_cli, sample_sentences

    d = tmp_path_factory.mktemp("samples")
    sentences, stats = sample_sentences(d)
    run_cli("dedup", "-q", "--out", str(d / "cli"), status=SKIPPED_INPUTS)
    run_cli(
        "dedup", "-q", "--max-edit", "0.25", "--out", str(d / "cli-edit"), status=SKIPPED_INPUTS
    )
    return d, sentences, stats
