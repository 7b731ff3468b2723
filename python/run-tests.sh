#!/usr/bin/env bash
# Builds the `textreuse` Python wheel and runs its test suite. Works from a clean clone.
#
#   python/run-tests.sh [PYTEST ARGS...]   (test paths relative to python/tests, python/ or the caller)
#
# Steps: a virtualenv (created once, next to cargo's target directory) that also sees the
# user's site-packages, so pyarrow/pytest/pyspark installed there are reused and only what is
# missing gets installed; the wheel (maturin, profile `wheel-dev`: release code without debug info,
# see the root Cargo.toml), installed into the virtualenv as users would install it; the
# `textreuse` CLI (the tests compare against its output); then pytest over python/tests, which
# includes python/tests/compat (datasketch's and rensa's own tests run against textreuse.compat,
# and textreuse.compat compared with the real datasketch 2.0.0 and rensa 0.5.0, installed here).
#
# Environment: PYTHON (interpreter for the virtualenv, default python3, >= 3.11), TEXTREUSE_BIN
# (the `textreuse` binary to compare with, default: built here),
# TEXTREUSE_VENV (virtualenv directory, default <target dir>/python-venv), CARGO_TARGET_DIR.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
root="$(cd "$here/.." && pwd)"
caller="$PWD"
cd "$root"

python="${PYTHON:-python3}"
# Cargo's target directory, wherever CARGO_TARGET_DIR or a cargo config puts it.
target="$(cargo metadata --format-version 1 --no-deps |
    "$python" -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')"
venv="${TEXTREUSE_VENV:-$target/python-venv}"

if [ ! -x "$venv/bin/python" ]; then
    "$python" -m venv --system-site-packages "$venv"
fi
py="$venv/bin/python"

# Install only what the environment lacks (offline runs work once everything is present).
missing=()
"$py" -c 'import numpy' 2>/dev/null || missing+=("numpy>=1.24")
"$py" -c 'import pyarrow' 2>/dev/null || missing+=("pyarrow>=14")
"$py" -c 'import pytest' 2>/dev/null || missing+=("pytest>=7")
# The real datasketch and rensa, pinned: python/tests/compat/test_interop.py compares
# textreuse.compat with them (and skips without them); datasketch brings scipy, which the ported
# weighted MinHash tests use.
"$py" -c 'import importlib.metadata as m, sys; sys.exit(m.version("datasketch") != "2.0.0")' \
    2>/dev/null || missing+=("datasketch==2.0.0")
"$py" -c 'import importlib.metadata as m, sys; sys.exit(m.version("rensa") != "0.5.0")' \
    2>/dev/null || missing+=("rensa==0.5.0")
if command -v maturin >/dev/null 2>&1; then
    maturin="$(command -v maturin)"
elif [ -x "$venv/bin/maturin" ]; then
    maturin="$venv/bin/maturin"
else
    missing+=("maturin>=1.9.4,<2")
    maturin="$venv/bin/maturin"
fi
if [ "${#missing[@]}" -gt 0 ]; then
    "$py" -m pip install --quiet "${missing[@]}"
fi

wheels="$target/python-wheels"
rm -rf "$wheels"
# From python/, whose pyproject.toml names the binding crate (crates/python) as its manifest.
(cd "$here" && "$maturin" build --quiet --profile wheel-dev -i "$py" -o "$wheels")
"$py" -m pip install --quiet --force-reinstall --no-deps "$wheels"/textreuse-*.whl

# The command line the tests compare with: $TEXTREUSE_BIN when set (CI passes the test profile's
# binary, already built), else built in the wheel's profile: it reuses the wheel's compiled
# crates, and reads the sample dumps in a second where a debug build takes ten.
if [ -z "${TEXTREUSE_BIN:-}" ]; then
    cargo build --quiet --profile wheel-dev -p textreuse-cli --bin textreuse
    export TEXTREUSE_BIN="$target/wheel-dev/textreuse"
fi

# Spark's Python workers run the same interpreter (and so see the installed wheel).
export PYSPARK_PYTHON="$py"

# pytest runs from python/tests (below), so a test path given relative to where the script was
# called (`python/tests/test_index.py` from the root) or to python/ (`tests/test_index.py`) is
# made absolute; anything else (`test_index.py`, `-k name`) is passed on as it is. A `::node`
# suffix is kept.
args=()
for arg in "$@"; do
    path="${arg%%::*}"
    if [[ "$arg" != -* && -e "$caller/$path" ]]; then
        args+=("$(cd "$caller" && realpath "$path")${arg#"$path"}")
    elif [[ "$arg" != -* && -e "$here/$path" && ! -e "$here/tests/$path" ]]; then
        args+=("$here/$path${arg#"$path"}")
    else
        args+=("$arg")
    fi
done

# Run from the tests directory so `import textreuse` finds the installed wheel, not the sources.
cd "$here/tests"
exec "$py" -m pytest -q "${args[@]}"
