#!/usr/bin/env python3
"""Makes a large, deterministic JSON Lines corpus for measuring `textreuse dedup` throughput.

Reads sentences (the JSON Lines output of `textreuse sentences`) and writes documents of 40
sentences each, drawn from them with a fixed seed; 10% of the drawn sentences get one to three
word replacements, so the output holds exact and near duplicates the way Wikipedia does.

    textreuse sentences data/*.xml.bz2 > /tmp/sample-sentences.jsonl
    python3 benches/scripts/synth_corpus.py /tmp/sample-sentences.jsonl 2000000 > /tmp/synth.jsonl
"""
import json
import random
import sys


def main():
    source, count = sys.argv[1], int(sys.argv[2])
    with open(source, encoding="utf-8") as f:
        sentences = [json.loads(line)["text"] for line in f]
    rng = random.Random(1123456)
    vocabulary = [w for s in sentences[:2000] for w in s.split()]
    out = sys.stdout
    doc = 0
    written = 0
    while written < count:
        doc += 1
        picked = []
        for _ in range(min(40, count - written)):
            s = rng.choice(sentences)
            if rng.random() < 0.1:
                words = s.split()
                for _ in range(rng.randint(1, 3)):
                    words[rng.randrange(len(words))] = rng.choice(vocabulary)
                s = " ".join(words)
            picked.append(s)
            written += 1
        text = "\n\n".join(picked)
        out.write(json.dumps({"id": doc, "title": f"Synthetic {doc}", "text": text}) + "\n")


if __name__ == "__main__":
    main()
