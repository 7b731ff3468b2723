//! Sentences, words and shingles of arbitrary UTF-8 keep their invariants: spans in bounds, on
//! char boundaries, slicing back to the reported text; sentences in order, separated only by
//! whitespace; shingle counts `max(0, chars - L + 1)`; fingerprints equal to
//! `textreuse_hash::fingerprint` of the shingle bytes; normalization idempotent.
#![no_main]

use libfuzzer_sys::fuzz_target;
use textreuse_hash::fingerprint;
use textreuse_shingle::{
    CharOffsets, CharShingles, Normalize, Punctuation, SentenceSplitter, char_shingle_count,
    char_shingle_fingerprints, normalize, words,
};

fuzz_target!(|data: &[u8]| {
    let Some((&flags, rest)) = data.split_first() else {
        return;
    };
    let Ok(text) = std::str::from_utf8(rest) else {
        return;
    };
    let splitter = SentenceSplitter::builder()
        .line_breaks(flags & 1 != 0)
        .build()
        .unwrap();
    let offsets = CharOffsets::new(text);
    let mut prev = 0;
    let mut fps = Vec::new();
    let len = usize::from(flags >> 4) + 1;
    for s in splitter.split(text) {
        assert!(prev <= s.span.start && s.span.start < s.span.end && s.span.end <= text.len());
        assert!(text.is_char_boundary(s.span.start) && text.is_char_boundary(s.span.end));
        assert_eq!(&text[s.span.clone()], s.as_str());
        assert!(text[prev..s.span.start].chars().all(char::is_whitespace));
        assert_eq!(s.as_str().trim(), s.as_str());
        let chars = s.as_str().chars().count();
        assert_eq!(
            offsets.to_char(s.span.end) - offsets.to_char(s.span.start),
            chars
        );
        let n = char_shingle_fingerprints(s.as_str(), len, &mut fps);
        assert_eq!(n, chars.saturating_sub(len - 1));
        assert_eq!(n, char_shingle_count(s.as_str(), len));
        for (sh, &fp) in CharShingles::new(s.as_str(), len).zip(&fps) {
            assert_eq!(sh.fingerprint, fp);
            assert_eq!(fp, fingerprint(s.as_str()[sh.span].as_bytes()));
        }
        prev = s.span.end;
    }
    assert!(text[prev..].chars().all(char::is_whitespace));
    let mut prev = 0;
    for w in words(text) {
        assert!(prev <= w.span.start && w.span.start < w.span.end);
        assert_eq!(&text[w.span.clone()], w.as_str());
        prev = w.span.end;
    }
    let mut opts = Normalize::new();
    opts.punctuation(if flags & 2 != 0 {
        Punctuation::Remove
    } else {
        Punctuation::Keep
    });
    let (mut once, mut twice) = (String::new(), String::new());
    normalize(text, &opts, &mut once);
    normalize(&once, &opts, &mut twice);
    assert_eq!(once, twice);
});
