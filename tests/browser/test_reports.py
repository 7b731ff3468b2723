"""The HTML reports in a real browser (headless Chromium): `dedup --report` on the bundled
samples, `reuse` then `report` on the bundled samples, `check --html` on testdata/check, and
`tune --svg`. Each page must open with no console
error, no exception and no network request, and show its plots and tables; screenshots are
saved (to $TEXTREUSE_SCREENSHOTS, default a temporary directory; docs/img holds the ones of the
bundled-sample run).

    python3 -m pytest -q tests/browser          # skips without a Chromium
    TEXTREUSE_REQUIRE_BROWSER=1 ...             # fails instead (CI)

The `textreuse` binary is $TEXTREUSE_BIN, else built with cargo (profile wheel-dev, as the
Python tests build it).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))


def _run(cmd: list[str], ok=(0,), cwd=ROOT) -> subprocess.CompletedProcess:
    done = subprocess.run(cmd, cwd=cwd, capture_output=True, text=True)
    assert done.returncode in ok, f"{cmd}: exit {done.returncode}\n{done.stderr}"
    return done


# What every page must show a person: the count of drawn plots (an SVG at least 300 px wide
# with more than a few shapes in it), tables with rows, and no horizontal scrolling.
COMMON = {
    "plots": "[...document.querySelectorAll('svg')].filter(s => "
             "s.getBoundingClientRect().width >= 300 && "
             "s.querySelectorAll('path,line,polyline,rect,circle,text').length > 10).length",
    "tables": "[...document.querySelectorAll('table')].filter(t => "
              "t.querySelectorAll('tbody tr').length > 0).length",
    "overflow": "document.documentElement.scrollWidth > window.innerWidth + 1",
    "title": "document.title",
}


def test_dedup_report_of_the_bundled_samples(textreuse, browser, shots, tmp_path):
    # The README's main command with --report, run where a user would run it.
    out = tmp_path / "textreuse-out"
    # Exit 3: the 2013 sample is damaged on purpose; the results are complete.
    _run([textreuse, "--quiet", "dedup", "--report"], ok=(3,), cwd=tmp_path)
    page = browser.open_page(
        out / "report.html",
        screenshot=shots / "dedup-report.png",
        width=1200,
        evaluate=dict(
            COMMON,
            sections="[...document.querySelectorAll('section')].map(s => s.id).join(',')",
            members="document.querySelectorAll('.member').length",
            marked="document.querySelectorAll('.member ins, .member del').length",
            revision_links="document.querySelectorAll('.member a[href*=\"oldid=\"]').length",
            open_samples="document.querySelectorAll('details.cluster[open]').length",
            stage_rows="document.querySelector('#summary tbody').children.length",
        ),
    )
    assert page.ok, page.problems()
    v = page.values
    assert v["sections"] == "summary,sizes,summaries,types,s-curve,pairs,contradictions,largest,samples"
    assert v["plots"] == 3, v
    assert v["tables"] >= 5, v  # stages, seconds, sizes, types, pairs
    assert v["stage_rows"] == 12
    assert v["members"] >= 20 and v["marked"] > 0 and v["revision_links"] > 0, v
    assert v["open_samples"] >= 3, v  # the first sample of each type is open
    assert not v["overflow"], "the page scrolls sideways"
    assert (shots / "dedup-report.png").stat().st_size > 10_000
    # The contradictions, opened at their section: each with its facts marked in both
    # statements and the statements linked to their revisions.
    page = browser.open_page(
        out / "report.html",
        screenshot=shots / "dedup-contradictions.png",
        width=1200,
        height=1000,
        full_page=False,
        fragment="contradictions",
        evaluate=dict(
            shown="document.querySelectorAll('#contradictions .contradiction').length",
            lines=f"{len((out / 'contradictions.jsonl').read_text().splitlines())}",
            unmarked="[...document.querySelectorAll('#contradictions .contradiction')]"
                     ".filter(c => c.querySelectorAll('.member mark').length < 1).length",
            links="document.querySelectorAll('#contradictions .member a[href*=\"oldid=\"]').length",
            at_top="Math.abs(document.querySelector('#contradictions').getBoundingClientRect().top) < 5",
        ),
    )
    assert page.ok, page.problems()
    v = page.values
    assert v["shown"] == min(v["lines"], 20) and v["shown"] > 0, v
    assert v["unmarked"] == 0 and v["links"] >= 2 * v["shown"], v
    assert v["at_top"], v


def test_reuse_report_of_the_bundled_samples(textreuse, browser, shots, tmp_path):
    # `reuse` on the bundled samples (where a user would run it: reuse-out/), then `report`.
    # Exit 3: the 2013 sample is damaged on purpose; the results are complete.
    _run([textreuse, "--quiet", "reuse"], ok=(3,), cwd=tmp_path)
    out = tmp_path / "reuse-out"
    _run([textreuse, "--quiet", "report", "reuse-out"], cwd=tmp_path)
    view = json.loads((out / "corpus.json").read_text())
    page = browser.open_page(
        out / "report.html",
        screenshot=shots / "reuse-report.png",
        width=1200,
        # The page's top (summary to the article graph's plots): docs/img keeps it under 300 KB.
        height=2700,
        full_page=False,
        evaluate=dict(
            COMMON,
            sections="[...document.querySelectorAll('section')].map(s => s.id).join(',')",
            split="[...document.querySelectorAll('#similarity svg text')]"
                  ".some(t => t.textContent.trim().startsWith('split 0.1:'))",
            split_line="document.querySelectorAll('#similarity svg polyline,"
                       " #similarity svg path').length",
            components="document.querySelectorAll('#graph table')[0]"
                       ".querySelectorAll('tbody tr').length",
            pairs="document.querySelectorAll('#pairs tbody tr').length",
            first_pair="document.querySelector('#pairs tbody tr td:nth-child(2)').textContent",
            stage_rows="document.querySelector('#summary tbody').children.length",
        ),
    )
    assert page.ok, page.problems()
    v = page.values
    assert v["sections"] == "summary,classes,lengths,similarity,graph,pairs,documents", v
    # Classes, lengths, 10-gram and 2-gram Jaccard, degrees, component sizes.
    assert v["plots"] == 6, v
    assert v["tables"] >= 7, v  # stages, seconds, classes, components, articles, pairs, docs
    assert v["split"] and v["split_line"] > 0, v
    assert v["components"] == min(10, view["graph"]["components"]) > 0, v
    assert v["pairs"] == min(25, view["pairs"]) > 0, v
    assert v["first_pair"] == view["top_pairs"][0]["suspicious"]["title"], v
    assert v["stage_rows"] == 8, v  # documents to components (no --against)
    assert not v["overflow"], "the page scrolls sideways"
    assert (shots / "reuse-report.png").stat().st_size > 10_000


def test_check_report_side_by_side(textreuse, browser, shots, tmp_path):
    html = tmp_path / "check.html"
    _run([textreuse, "--quiet", "check", "testdata/check/suspicious.txt",
          "--corpus", "testdata/check/corpus", "--min-length", "100", "--html", str(html)])
    page = browser.open_page(
        html,
        screenshot=shots / "check-report.png",
        width=1200,
        evaluate=dict(
            COMMON,
            pairs="document.querySelectorAll('.pair').length",
            columns="(() => { const p = document.querySelector('.pair'); if (!p) return 0;"
                    " const [a, b] = p.children; const ra = a.getBoundingClientRect(),"
                    " rb = b.getBoundingClientRect();"
                    " return Math.abs(ra.top - rb.top) < 2 && rb.left > ra.right ? 2 : 1; })()",
            marks="document.querySelectorAll('.pair mark').length",
            share="document.querySelector('#d0 p').textContent",
        ),
    )
    assert page.ok, page.problems()
    v = page.values
    assert v["plots"] == 1, v  # the coverage strip
    assert v["tables"] == 2, v  # overview, sources
    assert v["pairs"] >= 1 and v["columns"] == 2, v  # passages side by side
    assert v["marks"] > 0, v
    assert "% of its" in v["share"]
    assert not v["overflow"]


def test_tune_svg_renders(textreuse, browser, shots, tmp_path):
    svg = tmp_path / "s-curve.svg"
    _run([textreuse, "--quiet", "tune", "--threshold", "0.8", "--svg", str(svg)])
    # An HTML page holding the file as an image, as a user would embed it.
    page_file = tmp_path / "s-curve.html"
    page_file.write_text(
        f'<!DOCTYPE html><title>S-curve</title><img id="p" src="{svg.name}" alt="S-curve">'
    )
    page = browser.open_page(
        page_file,
        screenshot=shots / "tune-s-curve.png",
        width=760,
        height=460,
        full_page=False,
        evaluate={
            "width": "document.getElementById('p').naturalWidth",
            "height": "document.getElementById('p').naturalHeight",
        },
    )
    assert page.ok, page.problems()
    assert page.values["width"] >= 600 and page.values["height"] >= 300, page.values


def test_reuse_report_with_the_web_study(textreuse, browser, shots, tmp_path):
    # The real pages of testdata/web against their Wikipedia article and the 2016 sample, with
    # revenue inputs; the report opened at its web section.
    values = tmp_path / "values.csv"
    values.write_text("domain,value\nen.wikipedia.org,1000000\nwww.businessinsider.com,250000\n")
    views = tmp_path / "views.csv"
    views.write_text('title,views\n"Now and Then, Here and There",1234\n')
    out = tmp_path / "web-out"
    _run([textreuse, "--quiet", "reuse", "testdata/web/pages.warc.gz", "--against",
          "testdata/web/wiki.jsonl", "data/enwiki-sample-206.xml.bz2", "--out", str(out),
          "--site-values", str(values), "--pageviews", str(views), "--cpm", "2.5"])
    _run([textreuse, "--quiet", "report", str(out)])
    page = browser.open_page(
        out / "report.html",
        screenshot=shots / "reuse-web.png",
        width=1200,
        height=1400,
        full_page=False,
        fragment="web",
        evaluate=dict(
            COMMON,
            websites="[...document.querySelectorAll('#web table')].find(t => "
                     "t.querySelector('th').textContent === 'website')"
                     ".querySelectorAll('tbody tr').length",
            web_plots="[...document.querySelectorAll('#web svg')].filter(s => "
                      "s.querySelectorAll('rect').length > 3).length",
            revenue="document.querySelector('#web').textContent.includes('1234 views a month')",
            at_top="Math.abs(document.querySelector('#web').getBoundingClientRect().top) < 5",
        ),
    )
    assert page.ok, page.problems()
    v = page.values
    rows = (out / "websites.tsv").read_text().splitlines()[1:]
    assert v["websites"] == min(len(rows), 30) > 0, v
    assert v["web_plots"] >= 1 and v["revenue"] and v["at_top"], v
    assert not v["overflow"], "the page scrolls sideways"
