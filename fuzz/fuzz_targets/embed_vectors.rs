//! Word-vector files (`--vectors`) from arbitrary bytes, in every format: reading gives an error
//! or embeddings whose vectors all have the file's dimension and finite values; what was read
//! writes and reads back, in the same format, to equal embeddings; format detection never
//! panics.
#![no_main]

use libfuzzer_sys::fuzz_target;
use textreuse_embed::{Format, read, write};

fuzz_target!(|data: &[u8]| {
    let _ = Format::detect(data);
    for format in Format::ALL {
        let Ok(e) = read(data, format) else {
            continue;
        };
        assert!(e.dim() >= 1);
        assert_eq!(e.as_slice().len(), e.len() * e.dim());
        assert!(e.as_slice().iter().all(|x| x.is_finite()));
        for (i, (word, vector)) in e.iter().enumerate() {
            assert_eq!(vector.len(), e.dim());
            assert_eq!(
                e.index_of(word),
                Some(i as u32),
                "{word:?} is not the first of its name"
            );
        }
        // A GloVe file has no header: without a word it has no dimension to read back.
        if format == Format::Glove && e.is_empty() {
            continue;
        }
        let bytes = write(&e, format, Vec::new()).unwrap();
        let again = read(&bytes[..], format)
            .unwrap_or_else(|err| panic!("{format}: what was read does not read back: {err}"));
        assert_eq!(again, e, "{format}: round trip changed the embeddings");
    }
});
