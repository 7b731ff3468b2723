"""Wang, Liu and Jia's paragraph fingerprints and document similarity from Python, against
``textreuse docsim`` on the same documents."""

from __future__ import annotations

import json
import math

import pytest

import textreuse

RIVER = (
    "The river rises in the northern hills and flows south through three old market towns. "
    "Its valley was farmed by monks for four hundred years; their granges still stand."
)
MILLS = (
    "Fishing on the river was the main trade of the valley for many centuries before the mills "
    "came; the mills closed when the railway reached the town at the end of the century."
)
TOURISM = (
    "Tourism replaced almost every other source of income in the valley after the railway "
    "arrived in the last years of the nineteenth century and the hotels were built."
)
SHORT = "Short lines. Nothing long here."

DOCS = [
    f"{RIVER}\n\n{MILLS}",
    f"{MILLS}\n\n{RIVER}",  # the same paragraphs in another order
    f"{RIVER}\n\n{TOURISM}",
    f"{TOURISM}\n\n{SHORT}",  # a paragraph without a long sentence: the document fallback
    f"{RIVER}\n\n{MILLS}\n\n{TOURISM}",
]


def test_fingerprints_are_a_set_of_b_bit_ints():
    fps = textreuse.wang_fingerprints(DOCS[0])
    assert len(fps) == 2 and fps == sorted(set(fps))
    assert all(0 <= f < 2**32 for f in fps)
    assert textreuse.wang_fingerprints(DOCS[1]) == fps  # a set: order does not matter
    assert textreuse.wang_fingerprints(DOCS[0].upper()) == fps  # nor does case
    assert all(f < 2**16 for f in textreuse.wang_fingerprints(DOCS[0], bits=16))
    # The fallback: the short paragraph gets the document's longest sentences, or nothing.
    assert len(textreuse.wang_fingerprints(DOCS[3])) == 2
    assert len(textreuse.wang_fingerprints(DOCS[3], fallback="none")) == 1
    assert textreuse.wang_fingerprints(SHORT, fallback="none") == []
    # One paragraph per line instead of per blank-line block.
    assert len(textreuse.wang_fingerprints(f"{RIVER}\n{MILLS}", paragraphs="lines")) == 2
    assert len(textreuse.wang_fingerprints(f"{RIVER}\n{MILLS}")) == 1
    for bad in [dict(bits=0), dict(bits=65), dict(words=0), dict(sentences=0),
                dict(fallback="x"), dict(paragraphs="x")]:
        with pytest.raises(ValueError):
            textreuse.wang_fingerprints(RIVER, **bad)


def test_set_similarity_is_the_cosine_of_the_sets():
    assert textreuse.set_similarity([1, 2, 3, 4], [3, 4, 5]) == 2 / math.sqrt(12)
    assert textreuse.set_similarity([1, 2], [2, 1, 1]) == 1.0
    assert textreuse.set_similarity([], [1]) == 0.0
    assert textreuse.set_similarity([0b0000], [0b0001]) == 0.0
    assert textreuse.set_similarity([0b0000], [0b0001], max_hamming=1) == 1.0


def test_similar_documents_match_the_cli(cli, tmp_path):
    path = tmp_path / "docs.jsonl"
    path.write_text("".join(json.dumps({"id": i, "text": t}) + "\n" for i, t in enumerate(DOCS)))
    # The fingerprint sets, as `docsim --fingerprints` writes them.
    sets = cli("docsim", str(path), "--fingerprints")
    assert [[int(f, 16) for f in r["fingerprints"]] for r in sets] == [
        textreuse.wang_fingerprints(t) for t in DOCS
    ]
    for threshold in (0.8, 0.5, 0.3):
        got = [
            (r["a"]["doc"], r["b"]["doc"], r["similarity"])
            for r in cli("docsim", str(path), "--threshold", str(threshold))
        ]
        assert textreuse.similar_documents(DOCS, threshold=threshold) == got
        # And by hand: every pair's S from the sets.
        want = []
        for a in range(len(DOCS)):
            for b in range(a + 1, len(DOCS)):
                s = textreuse.set_similarity(
                    textreuse.wang_fingerprints(DOCS[a]), textreuse.wang_fingerprints(DOCS[b])
                )
                if s >= threshold:
                    want.append((a, b, s))
        assert got == want
    pairs = textreuse.similar_documents(DOCS)
    assert (0, 1, 1.0) in pairs and (0, 4, 2 / math.sqrt(6)) in pairs
    # Queries against the corpus.
    query = [f"{MILLS}\n\n{RIVER}"]
    assert textreuse.similar_documents(DOCS, queries=query) == [(0, 0, 1.0), (0, 1, 1.0), (0, 4, 2 / math.sqrt(6))]
    with pytest.raises(ValueError):
        textreuse.similar_documents(DOCS, threshold=0.0)
