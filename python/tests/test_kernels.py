"""The Arrow kernels: bit-identical to the `textreuse` command line, and strict about their input."""

from __future__ import annotations

import json
import random
from collections import defaultdict, deque
from pathlib import Path

import numpy as np
import pyarrow as pa
import pytest

from conftest import as_lists
from spark_support import SKIPPED_INPUTS
from textreuse import Signer, _native, kernels


def expected_records(records: list[dict]) -> tuple[list[int], list[int]]:
    rows = [i for i, r in enumerate(records) for _ in r["band_keys"]]
    keys = [int(k, 16) for r in records for k in r["band_keys"]]
    return rows, keys


def as_u64(keys: pa.UInt64Array) -> list[int]:
    assert keys.type == pa.uint64()
    return keys.to_pylist()


# --- band keys ---------------------------------------------------------------------------------


def test_band_key_records_match_the_cli(sample_sentences):
    records = sample_sentences
    texts = [r["text"] for r in records]
    assert any(not r["band_keys"] for r in records), "short sentences emit no keys"
    assert any(not t.isascii() for t in texts)
    rows, keys = kernels.band_key_records(Signer(), pa.array(texts))
    assert rows.type == pa.uint32() and keys.type == pa.uint64()
    exp_rows, exp_keys = expected_records(records)
    assert rows.to_pylist() == exp_rows
    assert as_u64(keys) == exp_keys


def test_band_key_records_of_slices_nulls_and_large_strings(sample_sentences):
    records = sample_sentences[:3000]
    texts = [r["text"] for r in records]
    rows, keys = expected_records(records)
    big = pa.array(texts, pa.large_string())
    got = kernels.band_key_records(Signer(), big)
    assert (got[0].to_pylist(), as_u64(got[1])) == (rows, keys)
    # A slice: rows count from the slice's start.
    part = records[1000:2000]
    got = kernels.band_key_records(Signer(), pa.array(texts).slice(1000, 1000))
    assert (got[0].to_pylist(), as_u64(got[1])) == expected_records(part)
    # Nulls emit nothing and keep the numbering.
    with_nulls = [t if i % 7 else None for i, t in enumerate(texts)]
    got = kernels.band_key_records(Signer(), pa.array(with_nulls).slice(3))
    exp = expected_records([r if i % 7 else {"band_keys": []} for i, r in enumerate(records)][3:])
    assert (got[0].to_pylist(), as_u64(got[1])) == exp
    # Chunked arrays are combined.
    chunked = pa.chunked_array([pa.array(texts[:10]), pa.array(texts[10:50], pa.string())])
    got = kernels.band_key_records(Signer(), chunked)
    assert (got[0].to_pylist(), as_u64(got[1])) == expected_records(records[:50])
    empty = kernels.band_key_records(Signer(), pa.array([], pa.string()))
    assert len(empty[0]) == len(empty[1]) == 0


@pytest.fixture(scope="module")
def sentences_jsonl(sample_sentences, tmp_path_factory) -> str:
    """4000 sample sentences as JSON Lines documents (quicker to read than the dumps)."""
    path = tmp_path_factory.mktemp("docs") / "docs.jsonl"
    docs = [{"id": i, "title": "", "text": r["text"]} for i, r in enumerate(sample_sentences[:4000])]
    path.write_text("".join(json.dumps(d) + "\n" for d in docs), encoding="utf-8")
    return str(path)


def test_band_key_records_with_other_parameters_match_the_cli(cli, sentences_jsonl):
    flags = ["--hashes", "30", "--rows", "6", "--bands", "12", "--seed", "7", "--bits", "50"]
    records = cli("sentences", "--min-shingles", "0", "--band-keys", "--shingle", "9", *flags, sentences_jsonl)
    signer = Signer(hashes=30, rows=6, bands=12, seed=7, bits=50)
    rows, keys = kernels.band_key_records(signer, pa.array([r["text"] for r in records]), shingle=9)
    assert (rows.to_pylist(), as_u64(keys)) == expected_records(records)
    assert max(len(r["band_keys"]) for r in records) == 12

    records = cli("sentences", "--band-keys", "--scheme", "disjoint", "-k", "5", "-m", "4", sentences_jsonl)
    signer = Signer(scheme="disjoint", rows=5, bands=4)
    rows, keys = kernels.band_key_records(signer, pa.array([r["text"] for r in records]))
    assert (rows.to_pylist(), as_u64(keys)) == expected_records(records)

    # One-permutation hashing: the CLI's preset and the Python signer give the same keys.
    records = cli("sentences", "--band-keys", "--scheme", "oph", sentences_jsonl)
    signer = Signer(scheme="oph", rows=11, bands=13)
    rows, keys = kernels.band_key_records(signer, pa.array([r["text"] for r in records]))
    assert (rows.to_pylist(), as_u64(keys)) == expected_records(records)
    assert max(len(r["band_keys"]) for r in records) == 13


def test_signatures_and_sign_batch_agree(sample_sentences):
    texts = [r["text"] for r in sample_sentences[:2000]] + [None, "", "short"]
    s = Signer()
    sigs = kernels.signatures(s, pa.array(texts))
    assert sigs.type == pa.list_(pa.uint64(), 20)
    batch = as_lists(s.sign_batch(texts))
    assert sigs.to_pylist() == batch
    assert as_lists(s.sign_batch(pa.array(texts, pa.large_string()))) == batch
    assert as_lists(s.sign_batch(pa.chunked_array([pa.array(texts[:5]), pa.array(texts[5:])]))) == batch
    assert batch[-3:] == [None, None, None]
    for text, sig in zip(texts[:50], batch):
        assert sig == (s.sign(text).tolist() if sig is not None else None)
    # Band keys of the signatures are the records' keys.
    rows, keys = kernels.band_key_records(s, pa.array(texts))
    expected = [k for sig in batch if sig is not None for k in s.band_keys(sig)]
    assert as_u64(keys) == expected


def test_band_keys_are_the_same_unsigned_integers_everywhere(sample_sentences):
    """kernels.band_key_records gives uint64 keys equal to Signer.band_keys (Arrow, numpy and
    Python ints compare equal), keys of 2**63 and above included."""
    s = Signer()
    texts = [r["text"] for r in sample_sentences[:500]]
    rows, keys = kernels.band_key_records(s, pa.array(texts))
    sigs = s.sign_batch(texts)
    expected = [k for sig in sigs if sig is not None for k in s.band_keys(sig)]
    assert keys.type == pa.uint64() and keys.to_numpy().dtype == np.uint64
    assert keys.to_pylist() == expected
    assert np.array_equal(keys.to_numpy(), np.array(expected, dtype=np.uint64))
    assert any(k >= 2**63 for k in expected), "the sample has keys with the top bit set"
    # The Spark boundary: the same bits as int64, and back.
    as_long = keys.view(pa.int64())
    assert as_long.type == pa.int64() and any(k < 0 for k in as_long.to_pylist())
    assert as_long.view(pa.uint64()).to_pylist() == expected


def test_shingle_counts_match_the_cli(sample_sentences):
    texts = [r["text"] for r in sample_sentences]
    counts = kernels.shingle_counts(pa.array(texts))
    assert counts.type == pa.uint32()
    assert counts.to_pylist() == [r["shingles"] for r in sample_sentences]
    assert kernels.shingle_counts(pa.array(["naïve café", None, "", "abc"]), shingle=3).to_pylist() == [
        8,
        0,
        0,
        1,
    ]


# --- edit distance -----------------------------------------------------------------------------


def levenshtein(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def keep_reference(a: str, b: str, max_edit: float) -> bool:
    """strsim's normalized_levenshtein (1.0 for two empty strings), as dedup's stage 7 tests it."""
    longest = max(len(a), len(b))
    similarity = 1.0 if longest == 0 else 1.0 - levenshtein(a, b) / longest
    return 1.0 - similarity <= max_edit


def test_edit_keep_is_stage_7():
    rng = random.Random(3)
    alphabet = "abcdé ü."
    a, b = [], []
    for _ in range(400):
        x = "".join(rng.choice(alphabet) for _ in range(rng.randrange(0, 25)))
        y = list(x)
        for _ in range(rng.randrange(0, 8)):
            op = rng.randrange(3)
            pos = rng.randrange(len(y) + 1)
            if op == 0:
                y.insert(pos, rng.choice(alphabet))
            elif y and pos < len(y):
                if op == 1:
                    y[pos] = rng.choice(alphabet)
                else:
                    del y[pos]
        a.append(x)
        b.append("".join(y))
    for max_edit in (0.0, 0.1, 0.25, 0.5, 1.0):
        got = kernels.edit_keep(pa.array(a), pa.array(b, pa.large_string()), max_edit)
        assert got.type == pa.bool_() and got.null_count == 0
        assert got.to_pylist() == [keep_reference(x, y, max_edit) for x, y in zip(a, b)]
    got = kernels.edit_keep(pa.array(["abcdefghij", None, "x", "abcd"]), pa.array(["abcdefghiX", "a", None, "abce"]), 0.25)
    assert got.to_pylist() == [True, None, None, True]
    assert kernels.edit_keep(pa.array(a).slice(5, 10), pa.array(b).slice(5, 10), 0.25).to_pylist() == [
        keep_reference(x, y, 0.25) for x, y in zip(a[5:15], b[5:15])
    ]
    with pytest.raises(ValueError, match="different lengths"):
        kernels.edit_keep(pa.array(["a"]), pa.array(["a", "b"]), 0.1)
    with pytest.raises(ValueError, match="NaN"):
        kernels.edit_keep(pa.array(["a"]), pa.array(["a"]), float("nan"))


# --- connected components ----------------------------------------------------------------------


def components_reference(pairs: list[tuple[int, int]]) -> list[tuple[int, int]]:
    graph: dict[int, set[int]] = defaultdict(set)
    for x, y in pairs:
        graph[x].add(y)
        graph[y].add(x)
    out, seen = [], set()
    for start in graph:
        if start in seen:
            continue
        comp, queue = [], deque([start])
        seen.add(start)
        while queue:
            node = queue.popleft()
            comp.append(node)
            for nxt in graph[node] - seen:
                seen.add(nxt)
                queue.append(nxt)
        out += [(node, min(comp)) for node in comp]
    return sorted(out, key=lambda nc: (nc[1], nc[0]))


@pytest.mark.parametrize("seed", range(5))
def test_connected_components_match_bfs(seed):
    rng = random.Random(seed)
    nodes = [rng.randrange(-(2**63), 2**63) for _ in range(60)] + list(range(20))
    pairs = [(rng.choice(nodes), rng.choice(nodes)) for _ in range(rng.randrange(1, 80))]
    node, cluster = kernels.connected_components(
        pa.array([p[0] for p in pairs], pa.int64()), pa.array([p[1] for p in pairs], pa.int64())
    )
    assert list(zip(node.to_pylist(), cluster.to_pylist())) == components_reference(pairs)


def test_connected_components_edge_cases():
    a = pa.array([5, 5, 9, 1, 9], pa.int64())
    b = pa.array([5, 7, 1, 7, 1], pa.int64())
    node, cluster = kernels.connected_components(a, b)
    assert node.to_pylist() == [1, 5, 7, 9] and cluster.to_pylist() == [1, 1, 1, 1]
    node, cluster = kernels.connected_components(a.slice(0, 1), b.slice(0, 1))
    assert (node.to_pylist(), cluster.to_pylist()) == ([5], [5])  # a self-pair is a lone node
    node, cluster = kernels.connected_components(pa.array([], pa.int64()), pa.array([], pa.int64()))
    assert len(node) == len(cluster) == 0
    with pytest.raises(ValueError, match="b: row 1 is null"):
        kernels.connected_components(pa.array([1, 2], pa.int64()), pa.array([3, None], pa.int64()))
    with pytest.raises(TypeError, match="expected an int64 array"):
        kernels.connected_components(pa.array([1], pa.int32()), pa.array([2], pa.int32()))


# --- cluster lines -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def dedup_out(cli, tmp_path_factory) -> Path:
    """`textreuse dedup`'s output directory for the bundled samples."""
    out = tmp_path_factory.mktemp("dedup")
    cli("dedup", "--out", str(out), status=SKIPPED_INPUTS)
    return out


@pytest.fixture(scope="module")
def dedup_clusters(dedup_out) -> list[dict]:
    lines = (dedup_out / "clusters.jsonl").read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines]


#: The member fields of `textreuse sentences` records, in the order of a cluster row after
#: (cluster, id).
MEMBER_FIELDS = ("doc", "title", "text", "source", "record", "revision", "timestamp", "start", "end", "url")


@pytest.fixture(scope="module")
def cluster_rows(dedup_clusters, sample_sentences) -> list[tuple]:
    """(cluster, id, *MEMBER_FIELDS) of every member of `textreuse dedup`'s clusters, from the
    sentence records."""
    by_place = {}  # (source, doc, revision, idx) -> the sentence record
    for r in sample_sentences:
        place = (r["source"], r["doc"], r["revision"], r["idx"])
        assert place not in by_place, f"two sentences at {place}"
        by_place[place] = r
    rows = []
    for c in dedup_clusters:
        for m in c["members"]:
            r = by_place[m["source"], m["doc"], m["revision"], m["idx"]]
            rows.append((c["cluster"], r["id"], *(r.get(f) for f in MEMBER_FIELDS)))
    return rows


def run_cluster_lines(rows, title_type=pa.string(), **options):
    cols = dict(zip(("cluster", "id", *MEMBER_FIELDS), zip(*rows)))
    ints = {"cluster", "id", "doc", "record", "revision", "start", "end"}
    arrays = {k: pa.array(v, pa.int64() if k in ints else None) for k, v in cols.items()}
    arrays["title"] = pa.array(cols["title"], title_type)
    return kernels.cluster_lines(
        arrays.pop("cluster"), arrays.pop("id"), arrays.pop("doc"), arrays.pop("title"),
        arrays.pop("text"), **arrays, **options,
    )


def as_line(cluster: dict) -> str:
    return json.dumps(cluster, ensure_ascii=False, separators=(",", ":"))


def test_cluster_lines_are_dedups_lines(dedup_clusters, cluster_rows):
    assert len(dedup_clusters) > 1000
    rng = random.Random(1)
    groups = defaultdict(list)
    for row in cluster_rows:
        groups[row[0]].append(row)
    order = list(groups)
    rng.shuffle(order)
    shuffled = []
    for c in order:
        members = groups[c][:]
        rng.shuffle(members)
        shuffled += members
    cluster, kind, size, line, _ = run_cluster_lines(shuffled, pa.large_string())
    assert cluster.to_pylist() == order
    by_id = {c["cluster"]: c for c in dedup_clusters}
    assert line.type == pa.string() and kind.type == pa.string()
    for c, k, n, text in zip(cluster.to_pylist(), kind.to_pylist(), size.to_pylist(), line.to_pylist()):
        assert (k, n) == (by_id[c]["type"], by_id[c]["size"])
        assert text == as_line(by_id[c])
    assert {k for k in kind.to_pylist()} >= {"identical", "copyedit"}


def test_cluster_lines_bytes_equal_the_files(dedup_out, cluster_rows):
    """Byte for byte, in the files' order (clusters ascending); members of both dumps carry
    their own source, revision and timestamp."""
    _, _, _, line, duplicates = run_cluster_lines(cluster_rows)
    text = "".join(f"{x}\n" for x in line.to_pylist())
    assert text.encode() == (dedup_out / "clusters.jsonl").read_bytes()
    assert "".join(duplicates.to_pylist()).encode() == (dedup_out / "duplicates.jsonl").read_bytes()
    sources = {r[5] for r in cluster_rows}
    assert len(sources) == 2 and all(r[7] is not None and r[8] is not None for r in cluster_rows)


def test_cluster_lines_keep_and_verify_match_the_cli(cli, cluster_rows, tmp_path):
    """`--keep earliest --verify` (dump timestamps, exact Jaccard), and `--keep longest`: the
    members are the same, the representatives, similarities and duplicates follow the rule."""
    for flags, options in [
        (["--keep", "earliest", "--verify"], dict(keep="earliest", verify=True)),
        (["--keep", "longest"], dict(keep="longest")),
    ]:
        out = tmp_path / flags[1]
        cli("dedup", *flags, "--out", str(out), status=SKIPPED_INPUTS)
        _, _, _, line, duplicates = run_cluster_lines(cluster_rows, signer=Signer(), **options)
        expected = (out / "clusters.jsonl").read_text(encoding="utf-8")
        assert "".join(f"{x}\n" for x in line.to_pylist()) == expected
        assert "".join(duplicates.to_pylist()) == (out / "duplicates.jsonl").read_text(encoding="utf-8")
        if options.get("verify"):
            assert '"jaccard":' in expected
    # The rule changes the representatives somewhere.
    first = [json.loads(x)["representative"] for x in run_cluster_lines(cluster_rows)[3].to_pylist()]
    longest = [
        json.loads(x)["representative"]
        for x in run_cluster_lines(cluster_rows, keep="longest")[3].to_pylist()
    ]
    assert first != longest


def test_cluster_lines_string_and_mixed_ids():
    text = "The old mill on the river was built in 1820 and still grinds grain for the bakery."
    base = dict(title=pa.array(["A", "B", "C"]), text=pa.array([text] * 3))
    cluster, ids = pa.array([5, 5, 5], pa.int64()), pa.array([5, 1 << 32, 2 << 32], pa.int64())
    # Strings: "12" stays a string and sorts after every integer, strings by bytes.
    _, _, _, line, dups = kernels.cluster_lines(
        cluster, ids, pa.array(["b-2", "12", "a-1"]), base["title"], base["text"]
    )
    members = json.loads(line[0].as_py())["members"]
    assert [m["doc"] for m in members] == ["12", "a-1", "b-2"]
    # Mixed: integer ids first.
    _, _, _, line, dups = kernels.cluster_lines(
        cluster, ids, pa.array([None, 12, None], pa.int64()), base["title"], base["text"],
        doc_str=pa.array(["b-2", None, "12"]),
    )
    cluster_json = json.loads(line[0].as_py())
    assert [m["doc"] for m in cluster_json["members"]] == [12, "12", "b-2"]
    # The first seen (smallest id) is kept; the others are its duplicates.
    assert cluster_json["representative"] == 2
    assert [json.loads(d)["doc"] for d in dups[0].as_py().splitlines()] == [12, "12"]
    assert all(m["similarity"] == 1.0 for m in cluster_json["members"])
    with pytest.raises(ValueError, match="doc: row 1 has no document id"):
        kernels.cluster_lines(
            cluster, ids, pa.array([1, None, 3], pa.int64()), base["title"], base["text"]
        )
    with pytest.raises(ValueError, match="keep must be"):
        kernels.cluster_lines(cluster, ids, pa.array([1, 2, 3], pa.int64()), base["title"], base["text"], keep="last")


def test_cluster_lines_errors_and_nulls():
    rows = [(0, 0, 1, "A", "Same text here."), (0, 5, 2, None, "Same text here."), (9, 9, 3, "C", "x")]

    def run(rows):
        cols = list(zip(*rows))
        return kernels.cluster_lines(
            pa.array(cols[0], pa.int64()), pa.array(cols[1], pa.int64()),
            pa.array(cols[2], pa.int64()), pa.array(cols[3]), pa.array(cols[4]),
        )

    cluster, kind, size, line, duplicates = run(rows)
    assert size.to_pylist() == [2, 1]
    first = json.loads(line[0].as_py())
    assert first["members"][1]["title"] == ""
    # Without offsets a member spans its text.
    assert (first["members"][0]["start"], first["members"][0]["end"]) == (0, 15)
    assert duplicates.to_pylist()[1] == ""
    with pytest.raises(ValueError, match="contiguous"):
        run([rows[0], rows[2], rows[1]])
    with pytest.raises(ValueError, match="text: row 1 is null"):
        run([rows[0], (0, 5, 2, "B", None)])
    with pytest.raises(ValueError, match="different lengths"):
        kernels.cluster_lines(
            pa.array([1], pa.int64()),
            pa.array([1, 2], pa.int64()),
            pa.array([1], pa.int64()),
            pa.array(["t"]),
            pa.array(["x"]),
        )
    with pytest.raises(ValueError, match="record: row 0 is negative"):
        kernels.cluster_lines(
            pa.array([1], pa.int64()), pa.array([1], pa.int64()), pa.array([1], pa.int64()),
            pa.array(["t"]), pa.array(["x"]), record=pa.array([-1], pa.int64()),
        )


# --- the whole pipeline from kernels -----------------------------------------------------------


def test_kernels_compose_into_dedup(sample_sentences, dedup_out):
    """Filter, band keys, capped star pairs, components and lines give dedup's clusters.jsonl
    and duplicates.jsonl."""
    text = pa.array([r["text"] for r in sample_sentences])
    counts = kernels.shingle_counts(text).to_pylist()
    kept = [i for i, n in enumerate(counts) if 75 <= n <= 600]
    kept_text = text.take(pa.array(kept))
    rows, keys = kernels.band_key_records(Signer(), kept_text)
    ids = [sample_sentences[kept[i]]["id"] for i in rows.to_pylist()]
    buckets = defaultdict(set)
    for key, sid in zip(keys.to_pylist(), ids):
        buckets[key].add(sid)
    pairs = set()
    for members in buckets.values():
        members = sorted(members)[:100]  # dedup's --max-bucket
        pairs.update((members[0], m) for m in members[1:])
    pairs = sorted(pairs)
    node, cluster = kernels.connected_components(
        pa.array([p[0] for p in pairs], pa.int64()), pa.array([p[1] for p in pairs], pa.int64())
    )
    by_id = {r["id"]: r for r in sample_sentences}
    members = [by_id[n] for n in node.to_pylist()]
    column = {f: [m.get(f) for m in members] for f in MEMBER_FIELDS}
    _, _, _, line, duplicates = kernels.cluster_lines(
        cluster,
        node,
        pa.array(column["doc"], pa.int64()),
        pa.array(column["title"]),
        pa.array(column["text"]),
        source=pa.array(column["source"]),
        record=pa.array(column["record"], pa.int64()),
        revision=pa.array(column["revision"], pa.int64()),
        timestamp=pa.array(column["timestamp"]),
        start=pa.array(column["start"], pa.int64()),
        end=pa.array(column["end"], pa.int64()),
        url=pa.array(column["url"], pa.string()),
    )
    assert "".join(f"{x}\n" for x in line.to_pylist()) == (dedup_out / "clusters.jsonl").read_text(encoding="utf-8")
    assert "".join(duplicates.to_pylist()) == (dedup_out / "duplicates.jsonl").read_text(encoding="utf-8")


# --- malformed input ---------------------------------------------------------------------------


def offsets(*xs: int) -> pa.Buffer:
    return pa.py_buffer(pa.array(xs, pa.int32()).buffers()[1].to_pybytes())


def test_malformed_arrays_are_value_errors():
    s = Signer()
    bad_utf8 = pa.Array.from_buffers(pa.string(), 1, [None, offsets(0, 2), pa.py_buffer(b"\xff\xfe")])
    with pytest.raises(ValueError, match="text: row 0 is not valid UTF-8"):
        kernels.band_key_records(s, bad_utf8)
    # pyarrow refuses to build the arrays below; the raw buffers reach _native all the same.
    data = pa.py_buffer(b"ab")

    def counts(offs: pa.Buffer, length: int, offset: int = 0, validity=None) -> bytes:
        return _native.shingle_counts((validity, offs, data, offset, length), False, 12)

    with pytest.raises(ValueError, match="row 1 has offsets 1..50 outside the 2 bytes"):
        counts(offsets(0, 1, 50), 2)
    with pytest.raises(ValueError, match="row 0 has offsets 2..1 outside"):
        counts(offsets(2, 1), 1)
    with pytest.raises(ValueError, match="offsets buffer has 8 bytes, 16 needed"):
        counts(offsets(0, 1), 3)
    with pytest.raises(ValueError, match="offsets buffer"):
        counts(offsets(0, 1), 1, offset=2**62)
    with pytest.raises(ValueError, match="validity bitmap has 1 bytes, 2 needed"):
        counts(offsets(*range(10)), 9, validity=pa.py_buffer(b"\xff"))
    assert counts(offsets(0, 1, 2), 2) == bytes(8)
    with pytest.raises(ValueError, match="is not valid UTF-8"):
        s.sign_batch(bad_utf8)


def test_wrong_types_are_type_errors():
    s = Signer()
    with pytest.raises(TypeError, match="expected a string or large_string array, got int64"):
        kernels.band_key_records(s, pa.array([1, 2]))
    with pytest.raises(TypeError, match="expected a pyarrow Array, got list"):
        kernels.shingle_counts(["a", "b"])
    with pytest.raises(ValueError, match="at least 1 character"):
        kernels.band_key_records(s, pa.array(["a"]), shingle=0)


def test_package_files_are_installed():
    import textreuse

    package = Path(textreuse.__file__).parent
    assert (package / "py.typed").is_file() and (package / "_native.pyi").is_file()


def test_tests_find_the_repository_root():
    """The tests read testdata/ and data/ from the repository root, the parent of python/."""
    from conftest import ROOT
    from spark_support import REPO

    assert ROOT == REPO
    assert (ROOT / "Cargo.toml").is_file() and (ROOT / "python" / "pyproject.toml").is_file()


def test_empty_and_all_null_arrays():
    s = Signer()
    for array in (pa.array([], pa.large_string()), pa.array([None, None], pa.string())):
        n = len(array)
        rows, keys = kernels.band_key_records(s, array)
        assert len(rows) == len(keys) == 0
        assert kernels.shingle_counts(array).to_pylist() == [0] * n
        assert kernels.signatures(s, array).to_pylist() == [None] * n
        assert kernels.edit_keep(array, array, 0.1).to_pylist() == [None] * n
        assert s.sign_batch(array) == [None] * n
    empty = pa.array([], pa.int64())
    out = kernels.cluster_lines(empty, empty, empty, pa.array([], pa.string()), pa.array([], pa.string()))
    assert [len(x) for x in out] == [0, 0, 0, 0, 0]


def test_threads_share_a_signer(sample_sentences):
    """Batches release the GIL and share nothing mutable: parallel results equal serial ones."""
    from concurrent.futures import ThreadPoolExecutor

    s = Signer()
    chunks = [pa.array([r["text"] for r in sample_sentences[i : i + 500]]) for i in range(0, 4000, 500)]
    serial = [as_u64(kernels.band_key_records(s, c)[1]) for c in chunks]
    with ThreadPoolExecutor(4) as pool:
        parallel = list(pool.map(lambda c: as_u64(kernels.band_key_records(s, c)[1]), chunks))
        lists = list(pool.map(s.sign_batch, chunks))
    assert parallel == serial
    assert [as_lists(x) for x in lists] == [as_lists(s.sign_batch(c)) for c in chunks]


def test_docstring_examples():
    import doctest

    import textreuse

    for module in (textreuse, kernels):
        result = doctest.testmod(module)
        assert result.failed == 0 and result.attempted > 0
    finder = doctest.DocTestFinder()
    runner = doctest.DocTestRunner()
    for test in finder.find(Signer, "Signer", globs={"Signer": Signer}):
        runner.run(test)
    assert runner.failures == 0 and runner.tries > 0


def test_reuse_file_reader_reads_as_the_cli(tmp_path):
    from textreuse import kernels

    docs = tmp_path / "docs.jsonl"
    docs.write_text(
        '{"id": 7, "title": "T", "paragraphs": ["One two three.", "Four."]}\n  \nnot json\n'
        '{"id": "x", "text": "Five."}\n',
        encoding="utf-8",
    )
    reader = kernels.ReuseFileReader(docs)
    with pytest.raises(ValueError, match="exhaust"):
        reader.documents
    batches = list(reader)
    assert len(batches) == 1 and batches[0].schema == kernels.ReuseFileReader.SCHEMA
    rows = batches[0].to_pylist()
    assert [(r["k"], r["id"], r["record"], r["source"]) for r in rows] == [
        (0, "7", 1, str(docs)), (1, "x", 4, str(docs))
    ]
    assert rows[0]["text"] == "One two three.\n\nFour." and rows[0]["revision"] is None
    assert (reader.documents, reader.problems) == (2, 1)
    assert len(reader.messages) == 1 and reader.messages[0].startswith(f"skipped: {docs}:3: ")
    # A plain-text document: its id is the file's 1-based position among the inputs.
    note = tmp_path / "note.txt"
    note.write_text("Bees make honey.\n", encoding="utf-8")
    [batch] = kernels.ReuseFileReader(note, files_before=2)
    assert batch.to_pylist()[0] | {"text": None} == dict(
        k=0, id="3", title="note", text=None, source=str(note), record=None, revision=None,
        timestamp=None, url=None,
    )
    missing = kernels.ReuseFileReader(tmp_path / "missing.jsonl")
    assert list(missing) == [] and (missing.documents, missing.problems) == (0, 1)
    assert missing.messages[0].startswith(f"skipped: cannot read {tmp_path / 'missing.jsonl'}: ")


def test_reuse_job_max_memory_is_checked_before_any_input():
    from textreuse import kernels

    # Below the minimum (128 MiB): refused when the job is made, naming the minimum.
    with pytest.raises(ValueError, match="minimum of 134217728 bytes"):
        kernels.ReuseJob(max_memory=100_000_000)
    bounded = kernels.ReuseJob(max_memory=134217728)
    # The bound changes no output: the same stats.json template as without one.
    assert bounded.stats_template(3, 0) == kernels.ReuseJob().stats_template(3, 0)


def test_reuse_kernels_check_their_input():
    import pyarrow as pa
    from textreuse import kernels

    with pytest.raises(ValueError, match="min_score"):
        kernels.ReuseJob(min_score=2.0)
    with pytest.raises(ValueError, match="unknown language"):
        kernels.ReuseJob(lang="xx")
    assert json.loads(kernels.ReuseJob(lang="de").stats_template(1, 0))["lang"] == "de"
    with pytest.raises(ValueError, match="n-gram"):
        kernels.ReuseJob(fallback_ngram=0)
    off, four = (json.loads(kernels.ReuseJob(fallback_ngram=n).stats_template(1, 0)) for n in (None, 4))
    assert (off["fallback_ngram"], four["fallback_ngram"]) == (None, 4)
    assert json.loads(kernels.ReuseJob().stats_template(1, 0))["synonyms"] is True
    assert json.loads(kernels.ReuseJob(synonyms=False).stats_template(1, 0))["synonyms"] is False
    job = kernels.ReuseJob(min_words=3)
    terms = pa.array([[{"term": 1, "df": 1}], None], pa.list_(pa.struct([("term", pa.int64()), ("df", pa.int64())])))
    r, c, t, w = kernels.reuse_chunk_vectors(
        job, pa.array(["Bees store honey in wax combs.", None]), terms, 2
    )
    assert set(r.to_pylist()) == {0} and w.type == pa.float32()
    one = pa.array([1], pa.int64())
    with pytest.raises(ValueError, match="same length"):
        kernels.reuse_pick_documents(
            job, one, one, one, pa.array([1, 2], pa.int64()), pa.array([0.5], pa.float32()),
            pa.array([0.5], pa.float32()),
        )
    q, d, scored = kernels.reuse_pick_documents(
        job, pa.array([5, 5], pa.int64()), pa.array([8, 9], pa.int64()),
        pa.array([2, 3], pa.int64()), pa.array([1, 1], pa.int64()),
        pa.array([0.5, 0.5], pa.float32()), pa.array([0.25, 0.5], pa.float32()),
    )
    # Document 3's chunk scores 0.25, document 2's 0.125: best first.
    assert (q.to_pylist(), d.to_pylist(), scored) == ([5, 5], [3, 2], 2)
