#!/usr/bin/env bash
# Rebuilds the extra study inputs in studies/types/data/ (gitignored, see README.md here).
#
# Usage: studies/types/data/fetch.sh WIKIDUPER_GIT
#   WIKIDUPER_GIT: a git directory (bare or not) of the public GitHub repository
#   seweissman/wikiduper (Apache-2.0) holding commit cc52438e4907 (its HEAD, 2015-07-08; the
#   two files were last changed in April 2013). This project's machines cannot reach GitHub
#   from the shell; the copy used for the study came from a repository snapshot. The files below are real
#   English Wikipedia exports (CC BY-SA) that the wikiduper authors committed as test data;
#   they are read locally and are NOT committed here.
#
# No registry package with sibling stub articles was found (see README.md for what was checked);
# the bundled samples in shared/data (one of them from the gensim 4.4.0 wheel on PyPI) are read
# where they are, not copied.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
git_dir=${1:?usage: fetch.sh WIKIDUPER_GIT (a git directory of seweissman/wikiduper)}
commit=cc52438e49076eee7eed04b44eebad0691f61dbd

# path in the repository -> file name here, sha256 of the bytes as committed
extract() {
    local path=$1 name=$2 sum=$3
    git --git-dir="$git_dir" show "$commit:$path" > "$here/$name.tmp"
    echo "$sum  $here/$name.tmp" | sha256sum --check --quiet
    mv "$here/$name.tmp" "$here/$name"
    echo "wrote $here/$name"
}

# 36 pages in near-duplicate pairs (a history article and its parent topic, a person under two
# spellings, ...), exported 2013 with MediaWiki 1.22wmf1.
extract data/near-duplicate-wiki-articles.xml.bz2 wikiduper-near-duplicate-articles.xml.bz2 \
    7cd5fbd768eeb196ebcaec4a59a4056606ba2e61de2ac98864a29865d876cf03
# 93 pages around Hurricane Katrina (articles, redirects, categories), exported 2013-04.
extract data/Katrina.xml wikiduper-katrina.xml \
    afa4115bf8793d4ec0f08e4d4f827bd64920c24bc91f0c62d087bbfacde9f173
# 666 lines "Title  text" of Maryland articles (counties, towns, census-designated places: the
# census sentences are templates), plain text the wikiduper authors extracted; 476 have text.
extract data/Maryland.txt wikiduper-maryland.txt \
    0500498261f1c7ffe8ec404d7685df410dcf788ac27c06a7ad84288a1005b225
# As JSON Lines {id, title, text} for textreuse dedup (lines without text are redirects).
python3 - "$here/wikiduper-maryland.txt" "$here/wikiduper-maryland.jsonl" <<'PY'
import json, re, sys
with open(sys.argv[1], encoding="utf-8") as f, open(sys.argv[2], "w", encoding="utf-8") as out:
    for i, line in enumerate(f):
        m = re.match(r"^(.*?)\s{2,}(.*)$", line.rstrip("\n"))
        if m and m.group(2).strip():
            out.write(json.dumps({"id": f"md-{i + 1}", "title": m.group(1).strip(),
                                  "text": m.group(2).strip()}) + "\n")
PY
echo "wrote $here/wikiduper-maryland.jsonl"
