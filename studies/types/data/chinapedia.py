#!/usr/bin/env python3
"""Writes data/chinapedia.jsonl, the input of the cluster-type study's fourth sample: 63,484
English Wikipedia articles of the 2019-07-20 dump, as plain text, from GitHub
chinapedia/wikipedia.abstract.en (README.md here: source, licence, caveats).

    chinapedia.py CHINAPEDIA_GIT

CHINAPEDIA_GIT is a git directory of that public repository holding commit 4f3e897da088 (this
machine's shell cannot reach GitHub; the study's copy came from a repository snapshot). Its
`Page/*.md` files are one page each (pages outside the article namespace, "Draft:", "Book:",
"Module:" and the like, are left out) (the title is the file name, `_` for a space), converted
from the dump by pandoc: paragraphs split by blank lines, headings as bare lines, citation
markers `[1]`, the lead's subject in capitals. Each article is cleaned here the way the dump
reader cleans wikitext, as far as plain text allows: from the first "See also", "References",
"Notes", "Further reading", "External links" or "Bibliography" heading on, text is dropped; so
are `Category:` lines, lines made only of citation markers, table rules (lines of dashes and
spaces), table rows (cells apart by runs of three spaces or more) and inline citation markers;
a list item becomes a paragraph of its own, without its bullet. Nothing else is changed.

Standard library only; the output is the same bytes on every run.
"""

import json
import os
import re
import subprocess
import sys

COMMIT = "4f3e897da088cbe89a4f1d4cba3fa2e439c3721b"
# Pages outside the article namespace (the dump reader keeps articles only).
OTHER_NAMESPACES = ("Draft:", "Book:", "Module:", "Template:", "Wikipedia:", "Portal:", "Help:",
                    "Category:", "File:", "User:", "MediaWiki:", "TimedText:")
TAIL_SECTIONS = {"See also", "References", "Notes", "Further reading", "External links",
                 "Bibliography", "Footnotes", "Sources", "Citations"}
MARKER = re.compile(r"\[\d+\]")
ONLY_MARKERS = re.compile(r"^\s*(\[\d+\]\s*)+$")
RULE = re.compile(r"^[\s\-=+:|]+$")
BULLET = re.compile(r"^\s*[-*]\s+")
TABLE_ROW = re.compile(r"\S {3,}\S")


def clean(text):
    out = []
    for line in text.replace("\r\n", "\n").split("\n"):
        if line.strip() in TAIL_SECTIONS:
            break
        if line.startswith("Category:") or ONLY_MARKERS.match(line):
            continue
        if line.strip() and RULE.match(line):
            continue
        item = BULLET.match(line)
        line = MARKER.sub("", line[item.end():] if item else line).rstrip()
        # Table rows: cells apart by runs of spaces.
        if TABLE_ROW.search(line.strip()):
            continue
        # A list item is a paragraph of its own, as the dump reader makes it.
        out.append(line + "\n" if item else line)
    return re.sub(r"\n{3,}", "\n\n", "\n".join(out)).strip("\n")


def main():
    if len(sys.argv) != 2:
        raise SystemExit(__doc__.split("\n\n")[1])
    git = ["git", "--git-dir", sys.argv[1]]
    listing = subprocess.run(git + ["ls-tree", "-r", "-z", COMMIT, "Page/"], check=True,
                             capture_output=True).stdout
    entries = sorted(
        (path.decode("utf-8"), meta.split()[2].decode())
        for meta, path in (e.split(b"\t", 1) for e in listing.split(b"\0") if e)
    )
    cat = subprocess.Popen(git + ["cat-file", "--batch"], stdin=subprocess.PIPE,
                           stdout=subprocess.PIPE)
    out_path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "chinapedia.jsonl")
    written = 0
    with open(out_path + ".tmp", "w", encoding="utf-8") as out:
        for n, (path, blob) in enumerate(entries, 1):
            cat.stdin.write(blob.encode() + b"\n")
            cat.stdin.flush()
            header = cat.stdout.readline().split()
            data = cat.stdout.read(int(header[2]))
            cat.stdout.read(1)
            title = path[len("Page/"):].removesuffix(".md").replace("_", " ")
            text = clean(data.decode("utf-8", "replace"))
            if not text or title.startswith(OTHER_NAMESPACES):
                continue
            out.write(json.dumps({"id": f"cp{n:05d}", "title": title, "text": text},
                                 ensure_ascii=False) + "\n")
            written += 1
    cat.stdin.close()
    cat.wait()
    os.replace(out_path + ".tmp", out_path)
    print(f"wrote {out_path}: {written} articles of {len(entries)}")


if __name__ == "__main__":
    main()
