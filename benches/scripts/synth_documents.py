#!/usr/bin/env python3
"""Makes a large, deterministic corpus of documents for measuring `textreuse dedup --unit
document` end to end, as JSON Lines (and, with pyarrow, the same rows as Parquet).

Reads sentences (the JSON Lines output of `textreuse sentences`) and writes `count` documents
of 4 to 12 sentences each (about 1.2 KB), with string ids `doc-<n>`. 5 % of the documents are
exact copies of an earlier document and 10 % near-duplicates of one (one to five word
replacements), the way shards of a web crawl repeat pages.

    textreuse sentences data/*.xml.bz2 > /tmp/sample-sentences.jsonl
    python3 benches/scripts/synth_documents.py /tmp/sample-sentences.jsonl 1000000 /tmp/docs1m.jsonl
    zstd -q -T2 /tmp/docs1m.jsonl -o /tmp/docs1m.jsonl.zst
    python3 benches/scripts/synth_documents.py --parquet /tmp/docs1m.jsonl /tmp/docs1m.parquet
"""
import json
import random
import sys


def documents(source, count, out_path):
    with open(source, encoding="utf-8") as f:
        sentences = [json.loads(line)["text"] for line in f]
    rng = random.Random(20261123)
    vocabulary = [w for s in sentences[:2000] for w in s.split()]
    texts = []
    with open(out_path, "w", encoding="utf-8") as out:
        for n in range(count):
            r = rng.random()
            if texts and r < 0.05:
                text = rng.choice(texts)
            elif texts and r < 0.15:
                words = rng.choice(texts).split(" ")
                for _ in range(rng.randint(1, 5)):
                    words[rng.randrange(len(words))] = rng.choice(vocabulary)
                text = " ".join(words)
            else:
                text = " ".join(rng.choice(sentences) for _ in range(rng.randint(4, 12)))
            # Earlier documents to copy from: a bounded, moving window keeps memory flat.
            if len(texts) < 50000:
                texts.append(text)
            else:
                texts[rng.randrange(len(texts))] = text
            out.write(json.dumps({"id": f"doc-{n}", "title": f"Document {n}", "text": text}) + "\n")


def parquet(jsonl_path, out_path):
    import pyarrow.json as pj
    import pyarrow.parquet as pq

    table = pj.read_json(jsonl_path)
    pq.write_table(table, out_path, compression="zstd", row_group_size=100_000)


def main():
    if sys.argv[1] == "--parquet":
        parquet(sys.argv[2], sys.argv[3])
    else:
        documents(sys.argv[1], int(sys.argv[2]), sys.argv[3])


if __name__ == "__main__":
    main()
