"""The fixtures of the browser tests: the `textreuse` binary, one headless Chromium for the
session, and where screenshots go.

The `textreuse` binary is $TEXTREUSE_BIN, else built with cargo (profile wheel-dev, as the
Python tests build it).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))
from chromium import Chromium, find_chromium  # noqa: E402


def _textreuse() -> str:
    if os.environ.get("TEXTREUSE_BIN"):
        return os.environ["TEXTREUSE_BIN"]
    subprocess.run(
        ["cargo", "build", "--quiet", "--profile", "wheel-dev", "-p", "textreuse-cli",
         "--bin", "textreuse"],
        cwd=ROOT, check=True,
    )
    meta = subprocess.run(
        ["cargo", "metadata", "--format-version", "1", "--no-deps"],
        cwd=ROOT, check=True, capture_output=True, text=True,
    )
    return str(Path(json.loads(meta.stdout)["target_directory"]) / "wheel-dev" / "textreuse")


@pytest.fixture(scope="session")
def textreuse() -> str:
    return _textreuse()


@pytest.fixture(scope="session")
def browser():
    if find_chromium() is None:
        message = "no Chromium (apt-get install chromium): the reports were not opened"
        if os.environ.get("TEXTREUSE_REQUIRE_BROWSER"):
            pytest.fail(message)
        pytest.skip(message)
    with Chromium() as b:
        yield b


@pytest.fixture(scope="session")
def shots(tmp_path_factory) -> Path:
    out = Path(os.environ.get("TEXTREUSE_SCREENSHOTS") or tmp_path_factory.mktemp("shots"))
    out.mkdir(parents=True, exist_ok=True)
    return out


