//! `align_prepared_bytes`: `Prepared::decode` of damaged tokens must refuse them or give a
//! document that aligns without panicking. The input is a text, a 0 byte, then bytes that are
//! XORed into the tokens `Prepared::encode` wrote for that text (and also decoded as they are).
#![no_main]
use libfuzzer_sys::fuzz_target;
use textreuse_align::{Aligner, Prepared};

fuzz_target!(|data: &[u8]| {
    let cut = data.iter().position(|&b| b == 0).unwrap_or(data.len());
    let Ok(text) = std::str::from_utf8(&data[..cut]) else {
        return;
    };
    let damage = data.get(cut + 1..).unwrap_or(&[]);
    let aligner = Aligner::builder().min_passage_len(1).build().unwrap();
    let prepared = aligner.prepare(text);
    let mut bytes = Vec::new();
    prepared.encode(&mut bytes);
    assert!(Prepared::decode(text, &bytes).is_ok());
    for (i, d) in damage.iter().enumerate() {
        let at = i % bytes.len();
        bytes[at] ^= d;
    }
    let other = aligner.prepare("a copy of some text. And another sentence here.");
    for b in [&bytes[..], damage] {
        if let Ok(doc) = Prepared::decode(text, b) {
            aligner.align_prepared(&doc, &prepared);
            aligner.align_prepared(&prepared, &doc);
            aligner.align_prepared(&other, &doc);
        }
    }
});
