//! `Bz2Decoder` (the dump reader's block decoders as a plain `Read`) against libbz2-rs on every
//! bundled bzip2 file, intact and damaged.
use std::io::{self, Read};
use std::path::PathBuf;

use textreuse_wikidump::{Bz2Decoder, Error};

use crate::support::{bz2, data, lang, multistream, xml};

/// Every bundled bzip2 file: the two English samples and the other languages' slices.
fn bundled() -> Vec<PathBuf> {
    let mut files = vec![
        data("enwiki-sample-206.xml.bz2"),
        data("enwiki-part-201.xml.bz2"),
    ];
    let mut langs: Vec<PathBuf> = std::fs::read_dir(lang(""))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "bz2"))
        .collect();
    langs.sort();
    assert!(langs.len() >= 8, "{langs:?}");
    files.extend(langs);
    files
}

/// What libbz2-rs (the `bzip2` crate's default backend) makes of `compressed`, all streams.
fn reference(compressed: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    bzip2::read::MultiBzDecoder::new(compressed)
        .read_to_end(&mut out)
        .unwrap();
    out
}

/// `Bz2Decoder` on `threads` threads: the bytes, and the error that ended them, if any.
fn decode(compressed: &[u8], threads: usize) -> (Vec<u8>, Option<io::Error>) {
    let mut dec = Bz2Decoder::new(io::Cursor::new(compressed.to_vec()), threads);
    let mut out = Vec::new();
    let err = dec.read_to_end(&mut out).err();
    (out, err)
}

/// Each bundled file as it is (one stream of 900 kB blocks, or several streams), its XML again
/// in level-1 blocks (five times as many block boundaries), and as a multistream dump of 10
/// pages a stream: the same bytes as libbz2-rs at one, two and three threads.
#[test]
fn every_bundled_file_decodes_as_libbz2_rs_does() {
    for path in bundled() {
        let file = std::fs::read(&path).unwrap();
        let want = reference(&file);
        let mut forms = vec![("as bundled", file), ("level 1", bz2(&want))];
        if path.starts_with(data("")) {
            let name = path.file_name().unwrap().to_str().unwrap();
            let text = xml(name);
            if text.windows(12).any(|w| w == b"</mediawiki>") {
                forms.push(("multistream", multistream(&text, 10).0));
            }
        }
        for (form, compressed) in &forms {
            let want = reference(compressed);
            for threads in [1, 2, 3] {
                let (got, err) = decode(compressed, threads);
                assert!(err.is_none(), "{path:?} {form} at {threads}: {err:?}");
                assert!(
                    got == want,
                    "{path:?} {form} at {threads}: {} bytes, want {}",
                    got.len(),
                    want.len()
                );
            }
        }
    }
}

/// A bundled sample damaged in one of its blocks (16 bytes flipped), or cut off: an error at
/// every thread count, naming the stream, after the same bytes at every thread count, which
/// begin with the text before the damaged block (all of it when only the end-of-stream CRC is
/// cut).
#[test]
fn damaged_bundled_samples_are_an_error_at_every_thread_count() {
    let file = std::fs::read(data("enwiki-sample-206.xml.bz2")).unwrap();
    let text = reference(&file);
    let mut cases = Vec::new();
    for at in [100, file.len() / 3, file.len() / 2, file.len() - 200] {
        let mut bad = file.clone();
        for b in &mut bad[at..at + 16] {
            *b ^= 0x5a;
        }
        cases.push((format!("flipped at {at}"), at, bad));
    }
    for cut in [file.len() / 2, file.len() - 3] {
        cases.push((format!("cut at {cut}"), cut, file[..cut].to_vec()));
    }
    for (case, at, bad) in cases {
        let mut outs = Vec::new();
        for threads in [1, 2] {
            let (out, err) = decode(&bad, threads);
            let err = err.unwrap_or_else(|| panic!("{case} at {threads}: no error"));
            assert_eq!(err.kind(), io::ErrorKind::InvalidData, "{case}");
            let inner = err.get_ref().unwrap().downcast_ref::<Error>().unwrap();
            assert!(
                matches!(
                    inner,
                    Error::Bzip2 {
                        compressed_offset: 0,
                        ..
                    }
                ),
                "{case}: {inner}"
            );
            outs.push(out);
        }
        assert!(
            outs[0] == outs[1],
            "{case}: not the same bytes at 1 and 2 threads"
        );
        // A 900 kB block compresses to about 250 kB: the blocks before the damage come out whole.
        let whole = (at / 250_000).saturating_sub(1) * 900_000;
        let same = outs[0]
            .iter()
            .zip(&text)
            .take_while(|(a, b)| a == b)
            .count();
        assert!(
            same >= whole,
            "{case}: {same} bytes as the text, want {whole}"
        );
    }
}
