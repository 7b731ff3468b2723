//! `align_pair`: an arbitrary UTF-8 document pair; every passage must be non-empty, in bounds and
//! on char boundaries of its document, with a score in 0..=1 and consistent character offsets.
#![no_main]
use libfuzzer_sys::fuzz_target;
use textreuse_align::Aligner;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    // Split at a char boundary near the first 0 byte (or the middle) into source and suspicious;
    // the suspicious text repeats part of the source so that passages actually occur.
    let mut cut = text.find('\0').unwrap_or(text.len() / 2);
    while !text.is_char_boundary(cut) {
        cut -= 1;
    }
    let (source, rest) = text.split_at(cut);
    let suspicious = format!("{rest} {source}");
    let aligner = Aligner::builder().min_passage_len(1).build().unwrap();
    for p in aligner.align(source, &suspicious) {
        assert!(p.source.start < p.source.end && p.source.end <= source.len());
        assert!(p.suspicious.start < p.suspicious.end && p.suspicious.end <= suspicious.len());
        assert!(source.is_char_boundary(p.source.start) && source.is_char_boundary(p.source.end));
        assert!(
            suspicious.is_char_boundary(p.suspicious.start)
                && suspicious.is_char_boundary(p.suspicious.end)
        );
        assert!((0.0..=1.0 + 1e-9).contains(&p.score), "{}", p.score);
        let (s, t) = p.char_ranges(source, &suspicious);
        assert_eq!(s.len(), source[p.source.clone()].chars().count());
        assert_eq!(t.start, suspicious[..p.suspicious.start].chars().count());
    }
});
