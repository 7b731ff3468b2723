"""`textreuse explore` in a real browser (headless Chromium over the DevTools protocol): the app
over the bundled samples' reuse and dedup outputs (testdata/explore), driven as a person would:
filters set and submitted, a sample drawn, a case, a cluster and a contradiction opened, the
back button, the keyboard, the corpus view. No console error, no exception, no request off the
app's own address. Screenshots go to $TEXTREUSE_SCREENSHOTS (docs/img holds the ones of
docs/explore.md).
"""
from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(Path(__file__).resolve().parent))


class App:
    """`textreuse explore DIR --port 0 ...` running until closed; `url` is where it listens."""

    def __init__(self, textreuse: str, out: Path, *extra: str) -> None:
        self.proc = subprocess.Popen(
            [textreuse, "explore", str(out), "--port", "0", *extra],
            cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        )
        line = self.proc.stdout.readline().strip()
        if not line.startswith("http://127.0.0.1:"):
            self.proc.kill()
            raise AssertionError(f"explore did not start: {line!r} {self.proc.stderr.read()}")
        self.url = line

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(timeout=10)


def _app(textreuse: str, tmp_path: Path, name: str, *extra: str):
    """The app over testdata/explore/NAME (copied: the index is built beside it), with the
    bundled samples as its inputs."""
    out = tmp_path / name
    shutil.copytree(ROOT / "testdata/explore" / name, out)
    app = App(textreuse, out, "--inputs", "data/enwiki-part-201.xml.bz2",
              "data/enwiki-sample-206.xml.bz2", *extra)
    yield app
    app.close()


@pytest.fixture()
def reuse_app(textreuse, tmp_path):
    yield from _app(textreuse, tmp_path, "reuse")


@pytest.fixture()
def dedup_app(textreuse, tmp_path):
    # A persistent index of the 2013 sample's sentences, to look clusters up in.
    lsh = tmp_path / "lsh"
    subprocess.run([textreuse, "-q", "index", "create", str(lsh), "--unit", "sentence"],
                   check=True, cwd=ROOT)
    done = subprocess.run([textreuse, "-q", "index", "add", str(lsh),
                           "data/enwiki-part-201.xml.bz2"], cwd=ROOT)
    assert done.returncode == 3  # the sample's damaged spots are skipped
    yield from _app(textreuse, tmp_path, "dedup", "--index", str(lsh))


ROWS = "document.querySelectorAll('table.sample tr').length - 1"


def test_explore_reuse_cases(reuse_app, browser, shots):
    origin = reuse_app.url.rstrip("/")
    with browser.open_app(reuse_app.url + "#/t/reuse", allowed=(origin,), width=1300) as tab:
        tab.wait_for(f"{ROWS} > 0")
        # Structure reuse between 40 and 400 words with 10-gram similarity at most 0.1.
        tab.evaluate("""(() => {
            const f = document.querySelector('form.filters');
            f.querySelector('input[name=kind][value=structure]').checked = true;
            f.elements['suspicious_words.min'].value = '40';
            f.elements['suspicious_words.max'].value = '400';
            f.elements['jaccard_10.max'].value = '0.1';
            f.elements.seed.value = '7';
            f.requestSubmit();
        })()""")
        tab.wait_for("location.hash.includes('kind=structure') && "
                     "document.querySelector('#matched') && " + ROWS + " > 0")
        hash_ = tab.evaluate("location.hash")
        assert "jaccard_10.max=0.1" in hash_ and "seed=7" in hash_, hash_
        shown = tab.evaluate("[...document.querySelectorAll('table.sample tr')].slice(1).map(r => "
                             "[r.querySelector('.badge').textContent, +r.children[3].textContent.replace(/,/g, ''), "
                             "+r.children[6].textContent])")
        assert shown, "the sample is empty"
        for kind, words, j10 in shown:
            assert kind == "structure" and 40 <= words <= 400 and j10 <= 0.1, (kind, words, j10)
        first_rows = tab.evaluate("[...document.querySelectorAll('a.open')].map(a => a.textContent).join()")
        tab.screenshot(shots / "explore-sample.png")

        # The keyboard: j moves to the first row, Enter opens it.
        tab.key("j")
        assert tab.evaluate("document.activeElement.classList.contains('open')")
        tab.key("Enter")
        tab.wait_for("document.querySelector('h1') && document.querySelector('h1').textContent.startsWith('Reuse case')")
        assert tab.evaluate("location.hash").startswith("#/t/reuse/")
        view = tab.evaluate("""({
            marks: [...document.querySelectorAll('.passage-text')].map(p => p.querySelectorAll('mark').length),
            context: document.querySelectorAll('.context .passage').length,
            titles: [...document.querySelectorAll('.pair strong')].map(s => s.textContent),
        })""")
        assert len(view["marks"]) == 2 and all(m > 0 for m in view["marks"]), view
        assert view["context"] == 2, view  # the whole articles, from --inputs
        assert all(view["titles"]), view
        # Each whole article is scrolled to its passage.
        seen = tab.evaluate("[...document.querySelectorAll('.context')].map(b => { "
                            "const p = b.querySelector('.passage').getBoundingClientRect(), "
                            "r = b.getBoundingClientRect(); return p.top < r.bottom && p.bottom > r.top; })")
        assert seen == [True, True], seen
        assert not tab.evaluate("document.body.innerText.includes('[object')")
        tab.screenshot(shots / "explore-case.png", full_page=False)

        # Back: the same sample (the seed is in the URL).
        tab.evaluate("history.back()")
        tab.wait_for(ROWS + " > 0 && location.hash.includes('kind=structure')")
        again = tab.evaluate("[...document.querySelectorAll('a.open')].map(a => a.textContent).join()")
        assert again == first_rows
    assert tab.report.ok, tab.report.problems()

    # The same URL in a new tab shows the same sample.
    with browser.open_app(reuse_app.url + hash_, allowed=(origin,)) as tab:
        tab.wait_for(ROWS + " > 0")
        assert tab.evaluate("[...document.querySelectorAll('a.open')].map(a => a.textContent).join()") == first_rows
        # The corpus view: the report's plots inside the app.
        tab.evaluate("location.hash = '#/corpus'")
        svgs = tab.wait_for("(() => { const f = document.querySelector('iframe.report'); "
                            "return f && f.contentDocument && f.contentDocument.querySelectorAll('svg').length; })()")
        assert svgs >= 2, svgs
        tab.screenshot(shots / "explore-corpus.png", full_page=False)
    assert tab.report.ok, tab.report.problems()


def test_explore_clusters_and_contradictions(dedup_app, browser, shots):
    origin = dedup_app.url.rstrip("/")
    with browser.open_app(dedup_app.url + "#/t/clusters?type=factual_drift&seed=3", allowed=(origin,), width=1300) as tab:
        tab.wait_for(ROWS + " > 0")
        assert tab.evaluate("document.querySelector('#matched').textContent").startswith("27 of 826")
        tab.evaluate("document.querySelector('a.open').click()")
        tab.wait_for("document.querySelector('h1') && document.querySelector('h1').textContent.startsWith('Cluster')")
        cluster = tab.evaluate("""({
            type: document.querySelector('h1 .badge').textContent,
            members: document.querySelectorAll('div.member').length,
            changed: document.querySelectorAll('div.member ins, div.member del').length,
            in_articles: document.querySelectorAll('details.member-article .passage').length,
        })""")
        assert cluster["type"] == "factual_drift" and cluster["members"] >= 2 and cluster["changed"] > 0, cluster
        assert cluster["in_articles"] == cluster["members"], cluster  # from --inputs
        assert tab.evaluate("document.querySelectorAll('ul.differences li').length") >= 1
        assert not tab.evaluate("document.body.innerText.includes('[object')")
        # Its near-duplicates in the persistent index: its own sentence among them.
        tab.evaluate("document.querySelector('#similar').click()")
        found = tab.wait_for("document.querySelectorAll('table.similar tr').length - 1")
        assert found >= 1, found
        tab.screenshot(shots / "explore-cluster.png", full_page=False)

        tab.evaluate("location.hash = '#/t/contradictions'")
        tab.wait_for(ROWS + " > 0")
        tab.evaluate("document.querySelector('a.open').click()")
        tab.wait_for("document.querySelectorAll('p.statement').length >= 2")
        c = tab.evaluate("""({
            facts: document.querySelectorAll('table.facts tr').length - 1,
            marked: [...document.querySelectorAll('p.statement')].filter(p => p.querySelector('mark')).length,
            statements: document.querySelectorAll('p.statement').length,
        })""")
        assert c["facts"] >= 1 and c["marked"] == c["statements"], c
        tab.screenshot(shots / "explore-contradiction.png", full_page=False)
        # Its cluster, by the link.
        tab.evaluate("document.querySelector('dl.features a').click()")
        tab.wait_for(ROWS + " == 1")
    assert tab.report.ok, tab.report.problems()
