//! Property tests: spans in bounds, on char boundaries and slicing back to the reported text;
//! sentences covering the text in order; shingle counts; idempotent normalization; deterministic
//! fingerprints.
use proptest::prelude::*;
use textreuse_hash::fingerprint;
use textreuse_shingle::{
    CharOffsets, CharShingles, Digits, Normalize, Punctuation, SentenceSplitter,
    char_shingle_count, char_shingle_fingerprints, chunks, dedup_fingerprints, long_sentences,
    normalize, paragraphs, sentences, words,
};

/// Text that exercises the splitter: prose-like tokens, abbreviations, terminators of several
/// scripts, quotes, brackets, line breaks, plus arbitrary Unicode.
fn texty() -> impl Strategy<Value = String> {
    let token = prop_oneof![
        Just("The".to_string()),
        Just("U.S.".to_string()),
        Just("Dr.".to_string()),
        Just("e.g.".to_string()),
        Just("No. 5".to_string()),
        Just("3.5".to_string()),
        Just("E.".to_string()),
        Just("...".to_string()),
        Just("…".to_string()),
        Just(".\"".to_string()),
        Just(".)".to_string()),
        Just("?!".to_string()),
        Just("。".to_string()),
        Just("।".to_string()),
        Just("\n".to_string()),
        Just("\n\n".to_string()),
        Just(" \u{a0}".to_string()),
        Just("(".to_string()),
        "[a-zA-Z]{1,8}",
        any::<String>(),
    ];
    prop::collection::vec(token, 0..40).prop_map(|v| v.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    #[test]
    fn sentences_cover_text_in_order(text in texty(), line_breaks in any::<bool>()) {
        let splitter = SentenceSplitter::builder().line_breaks(line_breaks).build().unwrap();
        let mut prev = 0;
        for s in splitter.split(&text) {
            prop_assert!(s.span.start >= prev && s.span.start < s.span.end && s.span.end <= text.len());
            prop_assert!(text.is_char_boundary(s.span.start) && text.is_char_boundary(s.span.end));
            prop_assert_eq!(&text[s.span.clone()], s.as_str());
            prop_assert!(text[prev..s.span.start].chars().all(char::is_whitespace));
            prop_assert_eq!(s.as_str().trim(), s.as_str());
            prev = s.span.end;
        }
        prop_assert!(text[prev..].chars().all(char::is_whitespace));
    }

    #[test]
    fn shingle_counts_and_fingerprints(text in any::<String>(), len in 1usize..20) {
        let chars = text.chars().count();
        let expect = chars.saturating_sub(len - 1);
        prop_assert_eq!(char_shingle_count(&text, len), expect);
        let mut fast = Vec::new();
        prop_assert_eq!(char_shingle_fingerprints(&text, len, &mut fast), expect);
        let shingles: Vec<_> = CharShingles::new(&text, len).collect();
        prop_assert_eq!(shingles.len(), expect);
        let starts: Vec<usize> = text.char_indices().map(|(i, _)| i).chain([text.len()]).collect();
        for (k, s) in shingles.iter().enumerate() {
            prop_assert_eq!(s.span.clone(), starts[k]..starts[k + len]);
            prop_assert_eq!(s.fingerprint, fingerprint(text[s.span.clone()].as_bytes()));
            prop_assert_eq!(s.fingerprint, fast[k]);
        }
        let mut again = Vec::new();
        char_shingle_fingerprints(&text, len, &mut again);
        prop_assert_eq!(&again, &fast);
        let distinct = dedup_fingerprints(&mut again);
        prop_assert!(distinct <= expect && (expect == 0 || distinct >= 1));
    }

    #[test]
    fn ascii_shingles_match_windows(text in "[ -~]{0,80}", len in 1usize..20) {
        let mut fast = Vec::new();
        char_shingle_fingerprints(&text, len, &mut fast);
        let naive: Vec<u64> = text.as_bytes().windows(len).map(fingerprint).collect();
        prop_assert_eq!(fast, naive);
    }

    /// Runs of ASCII broken by chars of 2, 3 and 4 bytes: exercises the switch between the
    /// fixed-width byte windows and the general path, and the windows at the end of the text.
    #[test]
    fn mostly_ascii_shingles_match_char_windows(
        text in "([ -~]{0,30}[é€😀\u{a0}]{0,2}){0,6}",
        len in 1usize..20,
    ) {
        let mut fast = Vec::new();
        let n = char_shingle_fingerprints(&text, len, &mut fast);
        let starts: Vec<usize> = text.char_indices().map(|(i, _)| i).chain([text.len()]).collect();
        let naive: Vec<u64> = starts
            .windows(len + 1)
            .map(|w| fingerprint(&text.as_bytes()[w[0]..w[len]]))
            .collect();
        prop_assert_eq!(n, naive.len());
        prop_assert_eq!(fast, naive);
    }

    #[test]
    fn normalization_is_idempotent(
        text in any::<String>(),
        lower in any::<bool>(),
        collapse in any::<bool>(),
        digits in 0u8..3,
        punct in 0u8..3,
    ) {
        let mut opts = Normalize::new();
        opts.lowercase(lower).collapse_whitespace(collapse);
        opts.digits([Digits::Keep, Digits::Remove, Digits::Zero][digits as usize]);
        opts.punctuation([Punctuation::Keep, Punctuation::Remove, Punctuation::Space][punct as usize]);
        let mut once = String::new();
        normalize(&text, &opts, &mut once);
        let mut twice = String::new();
        normalize(&once, &opts, &mut twice);
        prop_assert_eq!(&once, &twice);
        if collapse {
            prop_assert_eq!(once.trim(), once.as_str());
            prop_assert!(!once.contains("  "));
        }
    }

    #[test]
    fn words_paragraphs_chunks_spans(text in texty(), min_words in 0usize..12) {
        let mut prev = 0;
        for w in words(&text) {
            prop_assert!(w.span.start >= prev && w.span.end <= text.len());
            prop_assert_eq!(&text[w.span.clone()], w.as_str());
            prop_assert!(w.as_str().chars().all(char::is_alphanumeric));
            prev = w.span.end;
        }
        let paras: Vec<_> = paragraphs(&text).collect();
        let mut prev = 0;
        for p in &paras {
            prop_assert!(p.start >= prev && p.start < p.end && p.end <= text.len());
            prop_assert!(text[prev..p.start].chars().all(char::is_whitespace));
            prev = p.end;
        }
        let cs: Vec<_> = chunks(&text, min_words).collect();
        let total_words: usize = cs.iter().map(|c| c.words).sum();
        prop_assert_eq!(total_words, words(&text).count());
        let mut next_para = 0;
        for (i, c) in cs.iter().enumerate() {
            prop_assert_eq!(c.paragraphs.start, next_para);
            next_para = c.paragraphs.end;
            prop_assert_eq!(c.span.start, paras[c.paragraphs.start].start);
            prop_assert_eq!(c.span.end, paras[c.paragraphs.end - 1].end);
            if cs.len() > 1 || i > 0 {
                prop_assert!(c.words >= min_words);
            }
        }
        prop_assert_eq!(next_para, paras.len());
        let mut long = Vec::new();
        long_sentences(&text, 3, 2, &mut long);
        for s in &long {
            prop_assert!(s.words >= 3);
            prop_assert_eq!(&text[s.sentence.span.clone()], s.sentence.as_str());
        }
    }

    #[test]
    fn char_offsets_agree_with_char_indices(text in any::<String>()) {
        let offsets = CharOffsets::new(&text);
        for (ci, (bi, _)) in text.char_indices().enumerate() {
            prop_assert_eq!(offsets.to_char(bi), ci);
        }
        prop_assert_eq!(offsets.to_char(text.len()), text.chars().count());
    }
}

#[test]
fn sentences_are_deterministic_and_fused() {
    let text = "One. Two? Three!";
    let mut it = sentences(text);
    assert_eq!(it.by_ref().count(), 3);
    assert!(it.next().is_none());
    assert!(it.next().is_none());
}
