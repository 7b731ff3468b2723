#!/usr/bin/env python3
"""Writes data/dbpedia14-titled.jsonl, the DBpedia-14 input of the cluster-type study's third
sample, from the two CSV files of GitHub J-zin/DHIM (README.md here: source, licence, caveats).

    dbpedia.py DHIM_GIT

DHIM_GIT is a git directory of the public repository J-zin/DHIM holding commit 477e226cdc5a
(this machine's shell cannot reach GitHub; the study's copy came from a repository snapshot).
The CSVs are `"label","text"` rows of DBpedia-14 (Zhang, Zhao and LeCun 2015): the lead sections
of English Wikipedia articles (DBpedia 2014), with the title column dropped. Each document gets a
title derived from its text: the words before the first " is ", " was ", " are ", " were ",
" refers ", " has ", "(", "[" or "," (at most 80 characters; otherwise the document id), which is
the article's subject as its lead names it ("Brežani is a village ..." -> "Brežani"). Real
titles would carry disambiguation ("Dobra, Łask County"); these do not.

Standard library only; the output is the same bytes on every run.
"""

import csv
import hashlib
import io
import json
import re
import subprocess
import sys

COMMIT = "477e226cdc5a2c83a6114e46187da1091bd6a345"
FILES = [
    ("test", "data/dbpedia/test.csv", "fb256b4ed9038a5ad8eb98ad4d847748fe8179a34ee426937a3c79e4898ef608"),
    ("val", "data/dbpedia/val.csv", "3c3d46d39475eedbe4309352755a395ff12aed1ed740627b96781a5152e3867a"),
]
SUBJECT = re.compile(r"\s*(.+?)\s*(?:\(|\[|,| is | was | are | were | refers | has )")


def main():
    git_dir = sys.argv[1] if len(sys.argv) == 2 else sys.exit(__doc__)
    out_path = __file__.rsplit("/", 1)[0] + "/dbpedia14-titled.jsonl"
    with open(out_path, "w", encoding="utf-8") as out:
        for split, path, digest in FILES:
            data = subprocess.run(["git", "--git-dir", git_dir, "show", f"{COMMIT}:{path}"],
                                  check=True, capture_output=True).stdout
            if hashlib.sha256(data).hexdigest() != digest:
                sys.exit(f"{path}: sha256 differs from the study's copy")
            for i, row in enumerate(csv.reader(io.StringIO(data.decode("utf-8")))):
                text = row[1]
                m = SUBJECT.match(text)
                doc = f"dhim-dbpedia-{split}-{i:05d}"
                title = m.group(1).strip() if m and len(m.group(1)) <= 80 else doc
                out.write(json.dumps({"id": doc, "title": title, "text": text}, ensure_ascii=False) + "\n")
    print(f"wrote {out_path}")


if __name__ == "__main__":
    main()
