"""What datasketch users do with LSHIndex: their error handling and their signature lengths."""

import pytest

import textreuse
from textreuse import LSHIndex


def test_remove_of_a_missing_key_is_both_key_and_value_error():
    index = LSHIndex(threshold=0.8)
    index.insert("a", "The old mill on the river was built in 1820 and still grinds grain.")
    with pytest.raises(ValueError):  # datasketch's MinHashLSH.remove
        index.remove("missing")
    with pytest.raises(KeyError):
        index.remove("missing")
    with pytest.raises(textreuse.MissingKeyError) as caught:
        index.remove("missing")
    assert caught.value.args == ("missing",)
    assert issubclass(textreuse.MissingKeyError, KeyError)
    assert issubclass(textreuse.MissingKeyError, ValueError)
    index.remove("a")
    assert "a" not in index


@pytest.mark.parametrize(
    "kwargs",
    [dict(threshold=0.5, num_perm=16), dict(threshold=0.8, num_perm=128), dict(num_perm=128)],
)
def test_a_given_signature_length_is_never_switched_silently(kwargs):
    # The cheapest plan for these is an OPH index of another number of bins: refused, with
    # where datasketch's semantics live.
    with pytest.raises(ValueError, match=r"num_perm=\d+ asks for signatures of .*compat\.datasketch"):
        LSHIndex(**kwargs)


def test_a_signature_length_that_fits_is_kept():
    index = LSHIndex(num_perm=143)  # the OPH preset's 11 x 13 bins
    assert index.params["hashes"] == 143
    index = LSHIndex(num_perm=128, rows=8, bands=16, scheme="disjoint")
    assert index.params["hashes"] == 128


def test_an_unplannable_num_perm_points_to_datasketchs_semantics():
    with pytest.raises(ValueError, match=r"relax the target; with num_perm=16, .*compat\.datasketch"):
        LSHIndex(threshold=0.5, num_perm=16, scheme="disjoint")


def test_a_directory_without_manifest_is_refused_not_emptied(tmp_path):
    import gc

    path = tmp_path / "ix"
    index = LSHIndex(str(path), threshold=0.8)
    index.insert("a", "The old mill on the river was built in 1820 and still grinds grain.")
    index.commit()
    del index
    gc.collect()
    (path / "MANIFEST").unlink()
    segments = sorted(p.name for p in path.glob("seg-*"))
    assert segments
    # Opening-or-creating must not re-create an empty index over the lost one's segments.
    with pytest.raises(FileExistsError, match="restore it from a backup"):
        LSHIndex(str(path), threshold=0.8)
    assert sorted(p.name for p in path.glob("seg-*")) == segments
    # An empty existing directory is fine.
    (tmp_path / "empty").mkdir()
    LSHIndex(str(tmp_path / "empty"), threshold=0.8)
