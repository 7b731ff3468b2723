//! `dedup_inputs`: any input file as `textreuse dedup` reads it. The fuzzed bytes are written
//! plain or compressed (gzip, zstd, bzip2, by the target) under one of several names (declaring
//! a format or not) and read with `open_reader` and with `Inputs` on 1 and 2 threads.
//!
//! Properties: the compression is the one the file starts with; decompression gives back the
//! bytes written; the format is the declared one, else the one `Format::detect` names for the
//! first bytes; a plain-text document is the bytes without a byte-order mark, or `NotUtf8` at
//! the first invalid byte; every error names the file; 1 and 2 threads yield the same items
//! (a plain or bzip2 dump is read in parallel on 2); no panic for any format (dump, JSON Lines,
//! text, WARC, Parquet).
#![no_main]

#[path = "common.rs"]
mod common;

use std::io::{Read, Write};
use std::path::{Path, PathBuf};

use libfuzzer_sys::fuzz_target;
use textreuse_corpus::input::{Compression, Format, open_reader};
use textreuse_corpus::{InputError, Inputs, Source};

const NAMES: &[&str] = &[
    "in",
    "in.jsonl",
    "in.txt",
    "in.xml",
    "in.warc",
    "in.parquet",
    "in.dat",
    "in.jsonl.gz",
    "in.wet.zst",
    "in.xml.bz2",
    "in.txt.gz",
    "in.gz",
];

/// An item as a comparable string (`Source` has no `PartialEq`).
fn show(item: &Result<Source, InputError>) -> String {
    match item {
        Ok(s) => format!("{s:?}"),
        Err(e) => format!("error: {e}"),
    }
}

fn compress(how: u8, content: &[u8]) -> (Compression, Vec<u8>) {
    match how % 4 {
        0 => (Compression::None, content.to_vec()),
        1 => {
            let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
            e.write_all(content).unwrap();
            (Compression::Gzip, e.finish().unwrap())
        }
        2 => (Compression::Zstd, zstd::encode_all(content, 1).unwrap()),
        _ => {
            let mut e = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::fast());
            e.write_all(content).unwrap();
            (Compression::Bzip2, e.finish().unwrap())
        }
    }
}

/// The decompressed bytes of `file` (as far as they decode).
fn decompressed(file: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    if let Ok(mut o) = open_reader(Box::new(std::io::Cursor::new(file.to_vec())), None) {
        let _ = o.reader.read_to_end(&mut out);
    }
    out
}

fuzz_target!(|data: &[u8]| {
    common::tolerate_caught_panics();
    let Some((&flags, content)) = data.split_first() else {
        return;
    };
    let name = NAMES[usize::from(flags >> 2) % NAMES.len()];
    let (mut compression, file) = compress(flags, content);
    if compression == Compression::None {
        // Plain bytes that start like a compressed stream are read as one.
        compression = Compression::detect(&file[..file.len().min(4)]);
    }
    let path: PathBuf = common::dir().join(name);
    std::fs::write(&path, &file).unwrap();

    // Recognition and decompression.
    let declared = Format::from_name(Path::new(name));
    for named in [Some(Path::new(name)), None] {
        let Ok(mut opened) = open_reader(Box::new(std::io::Cursor::new(file.clone())), named)
        else {
            continue;
        };
        assert_eq!(opened.compression, compression);
        let mut bytes = Vec::new();
        let read = opened.reader.read_to_end(&mut bytes);
        if flags % 4 != 0 || compression == Compression::None {
            // What we compressed decompresses to what we wrote; plain bytes stay as they are.
            read.as_ref().unwrap();
            assert!(bytes == content, "{compression:?} round trip");
        }
        let want = match named.and_then(Format::from_name) {
            Some(f) => f,
            None if read.is_ok() => Format::detect(&bytes[..bytes.len().min(64)]),
            None => continue,
        };
        assert_eq!(opened.format, want);
        if named.is_some() {
            if let Some(d) = declared {
                assert_eq!(opened.format, d);
            }
        }
    }

    // Every input reader, on 1 and 2 threads.
    let mut runs = Vec::new();
    for threads in [1, 2] {
        let mut items = Vec::new();
        for item in Inputs::new([&path]).threads(threads) {
            if let Err(e) = &item {
                assert_eq!(e.path(), path.as_path(), "{e}");
            }
            if let Ok(Source::Text(doc)) = &item
                && doc.origin.record.is_none()
            {
                // Plain text (the only documents without a record number): the whole file,
                // without a byte-order mark.
                let plain = decompressed(&file);
                let plain = plain.strip_prefix("\u{feff}".as_bytes()).unwrap_or(&plain);
                assert_eq!(doc.id, 1u64);
                assert!(
                    doc.text.as_bytes() == plain,
                    "plain text differs from the file"
                );
            }
            if let Err(InputError::NotUtf8 { offset, .. }) = &item {
                let plain = decompressed(&file);
                let e = std::str::from_utf8(&plain).unwrap_err();
                assert_eq!(*offset, e.valid_up_to() as u64);
            }
            items.push(show(&item));
        }
        runs.push(items);
    }
    assert_eq!(runs[0], runs[1], "1 and 2 threads differ");
});
