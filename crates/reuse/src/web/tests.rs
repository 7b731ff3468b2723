use super::*;
use crate::{ReuseCase, ReuseKind, ReuseProfile};
use textreuse_corpus::Link;

#[test]
fn websites_are_registered_domains() {
    let w = |u: &str| website(u);
    assert_eq!(
        w("https://www.bbc.co.uk/news").as_deref(),
        Some("bbc.co.uk")
    );
    assert_eq!(w("http://news.bbc.co.uk/").as_deref(), Some("bbc.co.uk"));
    assert_eq!(
        w("https://en.m.wikipedia.org/wiki/X").as_deref(),
        Some("wikipedia.org")
    );
    assert_eq!(
        w("http://www.abc.net.au/news").as_deref(),
        Some("abc.net.au")
    );
    assert_eq!(
        w("https://foo.github.io/x").as_deref(),
        Some("foo.github.io")
    );
    assert_eq!(w("HTTP://WWW.Example.COM.").as_deref(), Some("example.com"));
    // IP hosts stand for themselves, ports left out.
    assert_eq!(w("http://192.0.2.7:8080/a").as_deref(), Some("192.0.2.7"));
    assert_eq!(
        w("http://[2001:db8::1]/a").as_deref(),
        Some("[2001:db8::1]")
    );
    // Hosts without a registrable part stand for themselves.
    assert_eq!(w("http://localhost/a").as_deref(), Some("localhost"));
    assert_eq!(w("http://co.uk/").as_deref(), Some("co.uk"));
    // No URL, or no host.
    assert_eq!(w(""), None);
    assert_eq!(w("/relative/path"), None);
    assert_eq!(w("mailto:someone@example.org"), None);
    assert_eq!(w("urn:uuid:12345678"), None);
}

#[test]
fn wikipedia_links_and_articles() {
    assert!(links_to_wikipedia("https://en.wikipedia.org/wiki/Bee"));
    assert!(links_to_wikipedia("https://en.m.wikipedia.org/wiki/Bee"));
    assert!(links_to_wikipedia("http://wikipedia.org/"));
    assert!(links_to_wikipedia("https://DE.Wikipedia.org/"));
    assert!(!links_to_wikipedia("https://notwikipedia.org/wiki/Bee"));
    assert!(!links_to_wikipedia(
        "https://wikipedia.org.evil.example/wiki/Bee"
    ));
    assert!(!links_to_wikipedia(
        "https://commons.wikimedia.org/wiki/Bee"
    ));
    let a = |u: &str| wikipedia_article(u);
    assert_eq!(
        a("https://en.wikipedia.org/wiki/Hurricane_Katrina"),
        Some((Some("en".into()), "Hurricane Katrina".into()))
    );
    // Percent-encoding, lower-case first letter, the mobile site, index.php links.
    assert_eq!(
        a("https://fr.m.wikipedia.org/wiki/%C3%A9tienne_Mougeotte"),
        Some((Some("fr".into()), "Étienne Mougeotte".into()))
    );
    assert_eq!(
        a("https://en.wikipedia.org/w/index.php?title=Now_and_Then,_Here_and_There&action=edit"),
        Some((Some("en".into()), "Now and Then, Here and There".into()))
    );
    assert_eq!(
        a("https://en.wikipedia.org/wiki/100%25_Pure"),
        Some((Some("en".into()), "100% Pure".into()))
    );
    assert_eq!(a("https://en.wikipedia.org/"), None);
    assert_eq!(a("https://en.wikipedia.org/wiki/"), None);
}

fn page(n: &str, url: Option<&str>, links: Option<Vec<&str>>) -> Document {
    let mut d = Document::new(n, n, "");
    d.origin.url = url.map(Into::into);
    d.links = links.map(|l| l.into_iter().map(Link::new).collect());
    d
}

fn case(bytes: Range<usize>) -> ReuseCase {
    ReuseCase {
        suspicious: bytes.clone(),
        source: 0..1,
        suspicious_bytes: bytes,
        source_bytes: 0..1,
        score: 1.0,
        profile: ReuseProfile {
            kind: ReuseKind::Content,
            ..crate::profile("a b c", "a b c", 5, 5)
        },
    }
}

fn deliver(
    study: &mut WebStudy,
    n: usize,
    doc: &Document,
    text: &str,
    source: &Document,
    cases: &[ReuseCase],
) {
    study
        .pair(&PairResult {
            suspicious: (n, doc),
            source: (100, source),
            texts: (text, ""),
            support: 1,
            cases,
        })
        .unwrap();
}

#[test]
fn attribution_is_checked_from_the_links() {
    let text = "one two three four five six seven eight";
    let article = {
        let mut d = Document::new(1, "Hurricane Katrina", "");
        d.origin.url = Some("https://en.wikipedia.org/w/index.php?oldid=1".into());
        d
    };
    let pages = [
        // Links to the article, percent-encoded, on the mobile site.
        page(
            "a",
            Some("https://a.example.com/1"),
            Some(vec!["https://en.m.wikipedia.org/wiki/Hurricane%20Katrina"]),
        ),
        // Links to wikipedia.org, another article.
        page(
            "b",
            Some("https://b.example.com/1"),
            Some(vec![
                "https://en.wikipedia.org/wiki/Flood",
                "https://x.org/",
            ]),
        ),
        // Links to the article, but in another language's Wikipedia.
        page(
            "c",
            Some("https://c.example.com/1"),
            Some(vec!["https://de.wikipedia.org/wiki/Hurricane_Katrina"]),
        ),
        // No link to Wikipedia.
        page(
            "d",
            Some("https://d.example.com/1"),
            Some(vec!["https://example.org/"]),
        ),
        // A WET record: links not known.
        page("e", Some("https://e.example.com/1"), None),
        // No links at all (known).
        page("f", Some("https://f.example.com/1"), Some(vec![])),
    ];
    let mut study = WebStudy::builder().build();
    for (i, p) in pages.iter().enumerate() {
        study.examine(p);
        deliver(&mut study, i, p, text, &article, &[case(0..7)]);
    }
    let got: Vec<_> = (0..6).map(|i| study.attribution(i).unwrap()).collect();
    assert_eq!(
        got,
        [
            Attribution::Article,
            Attribution::Wikipedia,
            Attribution::Wikipedia,
            Attribution::None,
            Attribution::Unknown,
            Attribution::None
        ]
    );
    let s = study.summary();
    assert_eq!(
        (
            s.linking_wikipedia,
            s.linking_article,
            s.attribution_unknown
        ),
        (3, 1, 1)
    );
}

#[test]
fn websites_count_pages_reuse_and_words_once() {
    let text = "Alpha beta gamma delta epsilon zeta eta theta";
    let article = Document::new(1, "Greek alphabet", "");
    let mut study = WebStudy::builder().build();
    let pages = [
        page("1", Some("https://www.example.co.uk/a"), Some(vec![])),
        page("2", Some("https://shop.example.co.uk/b"), Some(vec![])),
        page("3", Some("https://example.co.uk/c"), Some(vec![])),
        page("4", Some("http://192.0.2.1/"), Some(vec![])),
        page("5", None, None),
    ];
    for p in &pages {
        study.examine(p);
    }
    // Page 0: two overlapping passages ("Alpha beta gamma" and "gamma delta"), then in a second
    // pair one inside them: characters and words counted once.
    deliver(
        &mut study,
        0,
        &pages[0],
        text,
        &article,
        &[case(0..16), case(11..22)],
    );
    deliver(&mut study, 0, &pages[0], text, &article, &[case(6..10)]);
    // Page 1: a passage starting inside a word: that word is not counted.
    deliver(&mut study, 1, &pages[1], text, &article, &[case(2..10)]);
    // A pair without passages changes nothing.
    deliver(&mut study, 2, &pages[2], text, &article, &[]);
    let sites = study.websites();
    assert_eq!(sites.len(), 2);
    let uk = &sites[0];
    assert_eq!(uk.domain, "example.co.uk");
    assert_eq!((uk.pages, uk.reusing_pages), (3, 2));
    // "Alpha beta gamma delta" (22 chars, 4 words) + "pha beta" (8 chars, 1 word).
    assert_eq!((uk.reused_chars, uk.reused_words), (30, 5));
    assert!((uk.share() - 2.0 / 3.0).abs() < 1e-12);
    assert_eq!(
        (
            sites[1].domain.as_str(),
            sites[1].pages,
            sites[1].reusing_pages
        ),
        ("192.0.2.1", 1, 0)
    );
    let s = study.summary();
    assert_eq!(
        (s.pages, s.pages_without_url, s.websites, s.reusing_websites),
        (4, 1, 2, 1)
    );
    assert_eq!(s.websites_half_reusing, 1);
    assert_eq!(s.reused_articles, 1);
    assert_eq!(
        s.pages_per_website,
        [
            Bucket {
                min: 1,
                max: 1,
                websites: 1
            },
            Bucket {
                min: 2,
                max: 2,
                websites: 0
            },
            Bucket {
                min: 3,
                max: 5,
                websites: 1
            }
        ]
    );
    let mut tsv = Vec::new();
    write_websites(&mut tsv, &sites).unwrap();
    assert_eq!(
        String::from_utf8(tsv).unwrap(),
        format!(
            "{WEBSITES_HEADER}\nexample.co.uk\t3\t2\t0.6667\t30\t5\t0\t0\t0\n192.0.2.1\t1\t0\t0.0000\t0\t0\t0\t0\t0\n"
        )
    );
}

#[test]
fn buckets_follow_a_1_2_5_series() {
    let b = buckets([1, 1, 2, 3, 5, 6, 10, 11, 20, 21, 50, 51, 1000, 0]);
    let bounds: Vec<(u64, u64, u64)> = b.iter().map(|b| (b.min, b.max, b.websites)).collect();
    assert_eq!(
        bounds,
        [
            (1, 1, 2),
            (2, 2, 1),
            (3, 5, 2),
            (6, 10, 2),
            (11, 20, 2),
            (21, 50, 2),
            (51, 100, 1),
            (101, 200, 0),
            (201, 500, 0),
            (501, 1000, 1)
        ]
    );
    assert!(buckets([]).is_empty());
    assert!(buckets([u64::MAX]).len() < 70);
}

fn write(dir: &Path, name: &str, text: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn site_values_errors_name_the_file_and_line() {
    let dir = tempfile::tempdir().unwrap();
    let err = |text: &str| {
        let path = write(dir.path(), "v.csv", text);
        SiteValues::read(&path).unwrap_err().to_string()
    };
    assert!(
        err("a.com,1\nb.com\n").ends_with("v.csv:2: 1 fields, not 2 (domain,value in US dollars)")
    );
    assert!(err("a.com,1,2\n").ends_with("v.csv:1: 3 fields, not 2 (domain,value in US dollars)"));
    assert!(
        err("a.com,1\nb.com,-3\n").contains("v.csv:2: the value \"-3\" is not a finite amount")
    );
    assert!(err("a.com,1\nb.com,NaN\n").contains("v.csv:2:"));
    assert!(
        err("www.a.com,1\n\na.com,2\n")
            .ends_with("v.csv:3: the website a.com is listed twice (lines 1 and 3)")
    );
    assert!(err("a.com,1\n\"b.com,2\n").contains("v.csv:2:"));
    let missing = SiteValues::read(&dir.path().join("none.csv"))
        .unwrap_err()
        .to_string();
    assert!(missing.contains("none.csv"), "{missing}");
    // A header, a byte-order mark, CRLF, a URL, quoted fields: all fine.
    let path = write(
        dir.path(),
        "ok.csv",
        "\u{feff}domain,value\r\nhttps://www.a.com/x,10\r\n\"b.co.uk\",\"2.5\"\r\n",
    );
    let v = SiteValues::read(&path).unwrap();
    assert_eq!(
        (v.len(), v.get("a.com"), v.get("b.co.uk")),
        (2, Some(10.0), Some(2.5))
    );
}

#[test]
fn page_views_read_csv_and_dump_lines() {
    let dir = tempfile::tempdir().unwrap();
    let csv = write(
        dir.path(),
        "views.csv",
        "title,views\n\"Now and Then, Here and There\",120\nhurricane_Katrina,30\nHurricane Katrina,12\n",
    );
    let dump = write(
        dir.path(),
        "pageviews-20240101-000000",
        "en Hurricane_Katrina 1000 0\nen.m Hurricane_Katrina 500 0\nen.wikipedia Caf%C3%A9 7 0\nde Hurricane_Katrina 99 0\nen.b Hurricane_Katrina 5 0\nen.m.wikipedia Albedo 3 0\n",
    );
    let views = PageViews::new(vec![csv, dump], "en");
    let lines = views.check().unwrap();
    assert_eq!((lines.lines, lines.other_wikis), (7, 2));
    let wanted: BTreeSet<String> = [
        "Hurricane Katrina",
        "Now and Then, Here and There",
        "Café",
        "Missing",
    ]
    .into_iter()
    .map(String::from)
    .collect();
    let (found, _) = views.views_of(&wanted).unwrap();
    assert_eq!(found.get("Hurricane Katrina"), Some(&1542));
    assert_eq!(found.get("Now and Then, Here and There"), Some(&120));
    assert_eq!(found.get("Café"), Some(&7));
    assert_eq!(found.len(), 3);

    let err = |name: &str, text: &str| {
        let path = write(dir.path(), name, text);
        PageViews::new(vec![path], "en")
            .check()
            .unwrap_err()
            .to_string()
    };
    assert!(
        err("a.csv", "A,1\nB,many\n")
            .ends_with("a.csv:2: the view count \"many\" is not a whole number")
    );
    assert!(err("b.csv", "A,1\nB\n").contains("b.csv:2: 1 fields, not 2"));
    assert!(err("c.csv", "A,1\n,4\n").ends_with("c.csv:2: the title is empty"));
    assert!(err("d", "en A 1 0\nen B 2\n").contains("d:2: 3 space-separated fields, not 4"));
    assert!(
        err("e", "en A 1 0\nen B x 0\n")
            .contains("e:2: the view count \"x\" is not a whole number")
    );
    assert!(err("f", "en A 1 0\nen B 1 0 extra\n").contains("f:2: 5 space-separated fields"));
    // Bytes that are not UTF-8.
    let path = dir.path().join("g.csv");
    std::fs::write(&path, b"A,1\n\xff,2\n").unwrap();
    let e = PageViews::new(vec![path], "en")
        .check()
        .unwrap_err()
        .to_string();
    assert!(e.ends_with("g.csv:2: not UTF-8"), "{e}");
}

#[test]
fn revenue_arithmetic() {
    let site = |domain: &str, pages, reusing| Website {
        domain: domain.into(),
        pages,
        reusing_pages: reusing,
        ..Website::default()
    };
    let websites = [
        site("a.com", 4, 3),
        site("b.com", 10, 1),
        site("c.com", 2, 1),
        site("d.com", 5, 0),
    ];
    let dir = tempfile::tempdir().unwrap();
    let values = write(
        dir.path(),
        "values.csv",
        "a.com,1000\nb.com,500\nd.com,99999\n",
    );
    let views = write(dir.path(), "views.csv", "Bee,2500\nWasp,1500\nAnt,100000\n");
    let articles: BTreeSet<String> = ["Bee", "Wasp", "Moth"]
        .into_iter()
        .map(String::from)
        .collect();
    let inputs = RevenueInputs {
        site_values: Some(SiteValues::read(&values).unwrap()),
        page_views: Some(PageViews::new(vec![views], "en")),
        cpm: Some(2.0),
    };
    let r = revenue(&websites, &articles, &inputs).unwrap();
    let a = r.site_value.unwrap();
    // 1000 * 3/4 + 500 * 1/10; c.com reuses but has no value; d.com reuses nothing.
    assert!((a.usd - 800.0).abs() < 1e-9, "{}", a.usd);
    assert_eq!((a.websites, a.websites_without_value), (2, 1));
    let b = r.lower_bound.unwrap();
    // Only a.com (75%) and c.com (50%, no value) have at least half.
    assert!((b.usd - 750.0).abs() < 1e-9);
    assert_eq!((b.websites, b.websites_without_value), (1, 1));
    let c = r.page_views.unwrap();
    assert_eq!(
        (c.monthly_views, c.reused_articles, c.articles_with_views),
        (4000, 3, 2)
    );
    assert_eq!(c.usd, Some(8.0)); // 4000 / 1000 * 2 USD
    // Without a CPM the views are given, no estimate.
    let no_cpm = RevenueInputs {
        cpm: None,
        ..inputs
    };
    let c = revenue(&websites, &articles, &no_cpm)
        .unwrap()
        .page_views
        .unwrap();
    assert_eq!((c.usd, c.monthly_views), (None, 4000));
    assert!(c.assumptions.contains("No CPM was given"));
}

#[test]
fn add_range_counts_new_characters_only() {
    let text = "ab cd éf gh";
    let mut ranges = Vec::new();
    assert_eq!(add_range(&mut ranges, 0..5, text), (5, 2));
    assert_eq!(add_range(&mut ranges, 3..9, text), (3, 1)); // " éf" is new; 'é' is two bytes
    assert_eq!(add_range(&mut ranges, 0..9, text), (0, 0));
    assert_eq!(ranges, vec![Range { start: 0, end: 9 }]);
    assert_eq!(add_range(&mut ranges, 10..100, text), (2, 1)); // "gh", clipped to the text
}
