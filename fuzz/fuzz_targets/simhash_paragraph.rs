//! Wang's paragraph fingerprints on arbitrary text: every fingerprint fits in `b` bits, paragraph
//! indices ascend, the set equals the per-paragraph list's, the same text gives the same answer
//! with a used scratch, and the set's similarity to itself is 1 (to the empty set 0).
#![no_main]

use libfuzzer_sys::fuzz_target;
use textreuse_simhash::{
    Fallback, FingerprintSet, ParagraphFingerprinter, ParagraphMethod, ParagraphScratch,
    set_similarity,
};

fuzz_target!(|data: &[u8]| {
    let Some((&params, rest)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(rest);
    let bits = u32::from(params % 64) + 1;
    let fallback =
        [Fallback::Document, Fallback::Paragraph, Fallback::Skip][usize::from(params >> 6) % 3];
    let fp = ParagraphFingerprinter::builder()
        .method(ParagraphMethod::Wang)
        .bits(bits)
        .min_sentence_words(usize::from(params >> 4) % 4 + 1)
        .sentences_per_paragraph(usize::from(params >> 2) % 3 + 1)
        .fallback(fallback)
        .build()
        .unwrap();
    let list = fp.fingerprint_text(&text);
    assert!(list.iter().all(|p| bits == 64 || p.fingerprint < 1 << bits));
    assert!(list.windows(2).all(|w| w[0].paragraph < w[1].paragraph));
    let mut scratch = ParagraphScratch::default();
    let _ = fp.fingerprint_set_with(
        "A warm-up document; of a few words.\n\nAnother one.",
        &mut scratch,
    );
    let set = fp.fingerprint_set_with(&text, &mut scratch);
    assert_eq!(
        set,
        list.iter()
            .map(|p| p.fingerprint)
            .collect::<FingerprintSet>()
    );
    if set.is_empty() {
        assert_eq!(set_similarity(&set, &set), 0.0);
    } else {
        assert_eq!(set_similarity(&set, &set), 1.0);
    }
});
