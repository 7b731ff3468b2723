//! Golden tests on real Wikipedia paragraphs (see `testdata/shingle/README.md`).
//!
//! `golden-sentences.txt` holds the expected sentences of `golden-paragraphs.txt`, one per line,
//! each checked by hand. After an intended rule change, regenerate it with
//! `TEXTREUSE_BLESS=1 cargo test -p textreuse-shingle --test lib golden` and review the diff.
use textreuse_hash::fingerprint;
use textreuse_shingle::{
    CharOffsets, CharShingles, char_shingle_count, char_shingle_fingerprints, sentences, words,
};

const PARAGRAPHS: &str = include_str!("../../../testdata/shingle/golden-paragraphs.txt");
const SENTENCES_PATH: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../../testdata/shingle/golden-sentences.txt"
);
const ARTICLES: &str = include_str!("../../../testdata/shingle/wiki-articles.txt");

#[test]
fn golden_sentences() {
    let got: Vec<&str> = sentences(PARAGRAPHS).map(|s| s.as_str()).collect();
    let got = got.join("\n") + "\n";
    if std::env::var_os("TEXTREUSE_BLESS").is_some() {
        std::fs::write(SENTENCES_PATH, &got).expect("write golden file");
    }
    let expected = std::fs::read_to_string(SENTENCES_PATH).expect("read golden file");
    for (i, (g, e)) in got.lines().zip(expected.lines()).enumerate() {
        assert_eq!(g, e, "sentence {i} differs");
    }
    assert_eq!(got.lines().count(), expected.lines().count());
}

#[test]
fn hard_cases_from_wikipedia() {
    let split =
        |text: &'static str| -> Vec<&'static str> { sentences(text).map(|s| s.as_str()).collect() };
    // Every one of these sentences appears in the golden paragraphs.
    for whole in [
        "The U.S. Congress selected Huntsville as the site for the first Constitutional Convention of Alabama after it was approved to become the 22nd state.",
        "On a tactical level, while propaganda of the deed was a tactic used by anarchists in the 19th century (e.g. the Nihilist movement), some contemporary anarchists espouse alternative direct action methods such as nonviolence, counter-economics and anti-state cryptography to bring about an anarchist society.",
        "Globally, autism is estimated to affect 21.7 million people as of 2013.",
        "The second oldest written evidence of a camera obscura (after Mozi c. 400 BC) can be found in Aristotle's documentation of such a device in 350\u{a0}BC in Problemata.",
        "St. Stephens, now abandoned, served as the territorial capital from 1817 to 1819.",
        "L. Susan Brown claims that \"as anarchism is a political philosophy that opposes all relationships of power, it is inherently feminist\".",
        "A great brigand becomes a ruler of a Nation.\"",
        "(Rust International was acquired in 2000 by Washington Group International, which was in turn acquired by San-Francisco based URS Corporation in 2007.)",
    ] {
        assert!(PARAGRAPHS.contains(whole), "fixture lacks {whole:?}");
        assert!(
            sentences(PARAGRAPHS).any(|s| s.as_str() == whole),
            "not split as one sentence: {whole:?}"
        );
    }
    assert_eq!(
        split("assassination of Dr. Martin Luther King, Jr.. On March 30, 1981, the show moved."),
        [
            "assassination of Dr. Martin Luther King, Jr..",
            "On March 30, 1981, the show moved."
        ]
    );
}

#[test]
fn shingle_known_answers() {
    // Pinned values: these must never change (they are merged across machines and versions).
    // They equal textreuse_hash::fingerprint of the shingle bytes, checked below as well.
    let text = "The U.S. Congress selected Huntsville";
    let mut fps = Vec::new();
    assert_eq!(char_shingle_fingerprints(text, 12, &mut fps), 26);
    assert_eq!(fps[0], fingerprint(b"The U.S. Con"));
    assert_eq!(fps[25], fingerprint(b"d Huntsville"));
    let pinned = [fps[0], fps[1], fps[25]];
    assert_eq!(
        pinned,
        [
            0x4100_0754_23e7_250d,
            0x0499_de62_11b2_bc6e,
            0x68a3_f14d_b96d_6493
        ],
        "shingle fingerprints changed: {pinned:#x?}"
    );
    let greek = "ironic juxtaposition with κλέος kleos";
    let g: Vec<u64> = CharShingles::new(greek, 12)
        .map(|s| s.fingerprint)
        .collect();
    assert_eq!(
        g.last().copied(),
        Some(fingerprint(" κλέος kleos".as_bytes()))
    );
}

#[test]
fn articles_invariants() {
    let offsets = CharOffsets::new(ARTICLES);
    let mut fps = Vec::new();
    let mut prev_end = 0;
    let mut total = 0;
    for s in sentences(ARTICLES) {
        assert!(ARTICLES[prev_end..s.span.start].trim().is_empty());
        prev_end = s.span.end;
        let n = char_shingle_fingerprints(s.as_str(), 12, &mut fps);
        assert_eq!(n, char_shingle_count(s.as_str(), 12));
        let chars = offsets.to_char(s.span.end) - offsets.to_char(s.span.start);
        assert_eq!(chars, s.as_str().chars().count());
        total += 1;
    }
    assert!(ARTICLES[prev_end..].trim().is_empty());
    assert!(total > 1000, "only {total} sentences");
    assert!(words(ARTICLES).count() > 25_000);
}
