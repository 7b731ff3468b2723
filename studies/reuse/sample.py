#!/usr/bin/env python3
"""Draw the blind, stratified sample of reuse cases for the reuse-class study (issue #46).

Reads a `textreuse reuse --passage-texts` reuse.jsonl and writes, under --out:

- tuning.blind.jsonl, heldout.blind.jsonl: one case per line, {"id", "a": {"title", "chars",
  "text"}, "b": {...}} and nothing else (no kind, score, feature or input file); a passage
  longer than --show characters is shown as its head and tail with the number of characters
  left out between them. Which of the two passages is "a" is decided by a seeded coin.
- strata.json: every stratum with its number of cases in the run (for estimates weighted by
  stratum size).
- key.jsonl: id -> the case (suspicious and source document ids, titles, inputs, offsets and
  lengths), its stratum and split. Private: labellers never see it.

Only cases between two differently titled documents are drawn: an article against its own
later revision is left out, as the issue asks. Strata: the pair of input files (which
corpus each side comes from) x the ratio of the two passages' lengths (under 2, 2 to 10, over
10). Each stratum gives at most --per-stratum cases (taken whole when smaller), drawn with the
seed; each stratum is split into halves by a seeded hash of the case id before anyone labels.

Standard library only. Usage: see studies/reuse/README.md.
"""

import argparse
import collections
import hashlib
import json
import os
import random


def ratio_bin(a, b):
    lo, hi = sorted((max(a, 1), max(b, 1)))
    r = hi / lo
    return "lt2" if r < 2 else ("2to10" if r <= 10 else "gt10")


def shown(text, limit):
    if len(text) <= limit:
        return text
    head = limit * 3 // 5
    tail = limit - head
    left_out = len(text) - head - tail
    return f"{text[:head]} [... {left_out} characters left out ...] {text[-tail:]}"


def split_of(case_id, seed):
    h = hashlib.sha256(f"{seed}:{case_id}".encode()).digest()
    return "tuning" if h[0] % 2 == 0 else "heldout"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("reuse_jsonl")
    ap.add_argument("--out", required=True)
    ap.add_argument("--per-stratum", type=int, default=60)
    ap.add_argument("--show", type=int, default=2500, help="characters shown per passage")
    ap.add_argument("--seed", type=int, default=46)
    ap.add_argument("--exclude", action="append", default=[],
                    help="a key.jsonl of an earlier sample of the same run: its cases are not drawn")
    ap.add_argument("--id-prefix", default="r", help="prefix of the case ids")
    ap.add_argument("--split", choices=("halves", "tuning", "heldout"), default="halves",
                    help="split every case into halves (default), or put them all in one split")
    args = ap.parse_args()

    excluded = set()
    for path in args.exclude:
        with open(path, encoding="utf-8") as f:
            excluded.update(json.loads(line)["line"] for line in f if line.strip())
    strata = collections.defaultdict(list)
    with open(args.reuse_jsonl, encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            c = json.loads(line)
            susp, src = c["suspicious"], c["source"]
            if susp["title"] == src["title"] or n in excluded:
                continue
            if "suspicious_text" not in c:
                raise SystemExit("reuse.jsonl has no passage texts: run reuse with --passage-texts")
            inputs = tuple(sorted(os.path.basename(d.get("source", "")) for d in (susp, src)))
            key = (" | ".join(inputs), ratio_bin(c["suspicious_length"], c["source_length"]))
            strata[key].append((n, c))

    rng = random.Random(args.seed)
    picked = []
    for key in sorted(strata):
        cases = strata[key]
        take = cases if len(cases) <= args.per_stratum else rng.sample(cases, args.per_stratum)
        picked.extend((key, n, c) for n, c in sorted(take, key=lambda t: t[0]))
    rng.shuffle(picked)

    os.makedirs(args.out, exist_ok=True)
    blind = {s: open(os.path.join(args.out, f"{s}.blind.jsonl"), "w", encoding="utf-8")
             for s in ("tuning", "heldout")}
    counts = collections.Counter()
    with open(os.path.join(args.out, "key.jsonl"), "w", encoding="utf-8") as key_file:
        for i, (key, n, c) in enumerate(picked, 1):
            case_id = f"{args.id_prefix}{i:03d}"
            split = split_of(case_id, args.seed) if args.split == "halves" else args.split
            counts[split] += 1
            sides = [
                ("suspicious", c["suspicious"], c["suspicious_text"], c["suspicious_length"]),
                ("source", c["source"], c["source_text"], c["source_length"]),
            ]
            if rng.random() < 0.5:
                sides.reverse()
            blind[split].write(json.dumps({
                "id": case_id,
                **{name: {"title": d["title"], "chars": length, "text": shown(text, args.show)}
                   for name, (_, d, text, length) in zip(("a", "b"), sides)},
            }, ensure_ascii=False) + "\n")
            key_file.write(json.dumps({
                "id": case_id, "line": n, "split": split, "stratum": list(key),
                "a": sides[0][0], "b": sides[1][0],
                "suspicious": {k: c["suspicious"].get(k) for k in ("doc", "title", "source")},
                "source": {k: c["source"].get(k) for k in ("doc", "title", "source")},
                "suspicious_offset": c["suspicious_offset"],
                "suspicious_length": c["suspicious_length"],
                "source_offset": c["source_offset"], "source_length": c["source_length"],
            }, ensure_ascii=False) + "\n")
    for f in blind.values():
        f.close()
    with open(os.path.join(args.out, "strata.json"), "w", encoding="utf-8") as f:
        json.dump([{"stratum": list(k), "cases": len(v)} for k, v in sorted(strata.items())],
                  f, indent=1, ensure_ascii=False)
        f.write("\n")
    print(f"{len(picked)} cases from {len(strata)} strata: {dict(counts)}")
    for key in sorted(strata):
        print(f"  {key}: {len(strata[key])}")


if __name__ == "__main__":
    main()
