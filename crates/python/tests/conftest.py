import os

import pytest


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
    run_cli("dedup", "-q", "--out", str(d / "cli"))
    run_cli("dedup", "-q", "--max-edit", "0.25", "--out", str(d / "cli-edit"))
    return d, sentences, stats
