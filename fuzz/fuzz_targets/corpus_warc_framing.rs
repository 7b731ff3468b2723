//! `corpus_warc_framing`: the framing of WARC files, plain or gzipped record by record, after
//! damage: cut at any byte, junk or whitespace after the last record. Fuzzed records (WET
//! `conversion`, `text/plain` `resource`, and the skipped `warcinfo` and `request`, any body) are
//! written whole, then damaged, and read through `Inputs`. Properties:
//!
//! * whole records before the damage are documents, in order, with their id, record number and
//!   text (the body as it is);
//! * a file cut at a record boundary (a gzip member boundary), or followed by whitespace only
//!   (plain files), reads without error;
//! * any other damage is exactly one error, the last item: it names the record being read when
//!   the input failed and a byte offset (decompressed) inside that record or the junk, so that
//!   a file cut in a record header, in a body or in a gzip member never ends silently (a gzip
//!   file cut so early that its first 64 bytes do not decompress is an I/O error as it is
//!   opened, and junk alone that starts with a UTF-16 or UTF-32 byte-order mark is refused as
//!   the file is opened).
//!
//! `dedup_warc` checks what valid files give and that arbitrary bytes give at most one error;
//! this target checks where the error is, and that there is one.
#![no_main]

#[path = "common.rs"]
mod common;

use std::io::Write;

use libfuzzer_sys::arbitrary::{self, Arbitrary};
use libfuzzer_sys::fuzz_target;
use textreuse_corpus::{DocId, InputError, Inputs, Source};

#[derive(Arbitrary, Debug, Clone, Copy, PartialEq)]
enum Kind {
    Conversion,
    PlainResource,
    Warcinfo,
    Request,
}

#[derive(Arbitrary, Debug)]
struct Record {
    kind: Kind,
    body: Vec<u8>,
}

#[derive(Arbitrary, Debug)]
enum Damage {
    None,
    /// Keep this many bytes (modulo the file's length) of the file as written.
    Cut(u32),
    /// Bytes after the last record (plain: kept from forming a record; gzip: from forming a
    /// member).
    Junk(Vec<u8>),
    /// ASCII whitespace after the last record: `0..4` picks space, tab, CR, LF.
    Whitespace(Vec<u8>),
}

#[derive(Arbitrary, Debug)]
struct Input {
    records: Vec<Record>,
    gzip: bool,
    damage: Damage,
}

/// The numbers that follow `"byte "` in an error message.
fn byte_offsets(message: &str) -> Vec<u64> {
    message
        .split("byte ")
        .skip(1)
        .filter_map(|s| {
            let digits: String = s.chars().take_while(char::is_ascii_digit).collect();
            digits.parse().ok()
        })
        .collect()
}

fuzz_target!(|input: Input| {
    // Each record as plain bytes, and where it starts in the (decompressed) stream.
    let mut plain: Vec<Vec<u8>> = Vec::new();
    for (i, r) in input.records.iter().enumerate() {
        let (warc_type, content_type) = match r.kind {
            Kind::Conversion => ("conversion", "text/plain"),
            Kind::PlainResource => ("resource", "text/plain"),
            Kind::Warcinfo => ("warcinfo", "application/warc-fields"),
            Kind::Request => ("request", "application/http; msgtype=request"),
        };
        let mut record = format!(
            "WARC/1.0\r\nWARC-Type: {warc_type}\r\nWARC-Record-ID: <urn:uuid:{i:036}>\r\n\
             WARC-Date: 2024-01-01T00:00:00Z\r\nContent-Type: {content_type}\r\n\
             Content-Length: {}\r\n\r\n",
            r.body.len()
        )
        .into_bytes();
        record.extend_from_slice(&r.body);
        record.extend_from_slice(b"\r\n\r\n");
        plain.push(record);
    }
    let starts: Vec<u64> = plain
        .iter()
        .scan(0u64, |at, r| {
            let s = *at;
            *at += r.len() as u64;
            Some(s)
        })
        .collect();
    let plain_len: u64 = plain.iter().map(|r| r.len() as u64).sum();
    // A file without records is plain whatever `gzip` says (compression is recognized by the
    // first bytes).
    let gzip = input.gzip && !plain.is_empty();
    // The file's pieces: one per record (a gzip member or the plain record).
    let pieces: Vec<Vec<u8>> = if gzip {
        plain
            .iter()
            .map(|r| {
                let mut e = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
                e.write_all(r).unwrap();
                e.finish().unwrap()
            })
            .collect()
    } else {
        plain.clone()
    };
    let mut file: Vec<u8> = pieces.concat();
    let n = plain.len();

    // What must come out: `whole` records read in full, then an error (with the range its
    // offset must fall in) or not, or (gzip cut in a member's trailer) possibly one more record.
    let (whole, may_read_one_more, error): (usize, bool, Option<(u64, u64)>) = match &input.damage {
        Damage::None => (n, false, None),
        Damage::Cut(k) if !file.is_empty() => {
            let k = *k as usize % file.len();
            file.truncate(k);
            // The piece the cut falls in, and whether it falls at its start.
            let mut at = 0;
            let mut j = 0;
            while at + pieces[j].len() <= k {
                at += pieces[j].len();
                j += 1;
            }
            if at == k {
                (j, false, None)
            } else {
                let end = starts[j] + plain[j].len() as u64;
                if gzip {
                    (j, true, Some((starts[j], end)))
                } else {
                    (j, false, Some((starts[j], starts[j] + (k - at) as u64)))
                }
            }
        }
        Damage::Cut(_) => (n, false, None),
        Damage::Whitespace(w) => {
            let ws: Vec<u8> = w.iter().map(|b| b" \t\r\n"[*b as usize % 4]).collect();
            file.extend_from_slice(&ws);
            if gzip && !ws.is_empty() {
                (n, false, Some((plain_len, plain_len)))
            } else {
                (n, false, None)
            }
        }
        Damage::Junk(junk) => {
            let mut junk = junk.clone();
            if gzip {
                if junk.first() == Some(&0x1f) {
                    junk.insert(0, b'x');
                }
            } else if let Some(i) = junk.iter().position(|b| !b.is_ascii_whitespace()) {
                // A record starts with `WARC/` (case matters): this junk never does.
                if junk[i] == b'W' {
                    junk.insert(i, b'x');
                }
            }
            let error = if junk.is_empty() {
                None
            } else if gzip {
                Some((plain_len, plain_len))
            } else if junk.iter().all(u8::is_ascii_whitespace) {
                None
            } else {
                Some((plain_len, plain_len + junk.len() as u64))
            };
            file.extend_from_slice(&junk);
            (n, false, error)
        }
    };

    let path = common::dir().join(if gzip { "in.warc.gz" } else { "in.warc" });
    std::fs::write(&path, &file).unwrap();
    let items: Vec<Result<Source, InputError>> = Inputs::new([&path]).collect();

    // Documents first, then at most one error, which is last.
    let docs: Vec<_> = items
        .iter()
        .take_while(|i| i.is_ok())
        .map(|i| match i {
            Ok(Source::Text(doc)) => doc,
            other => panic!("not a text document: {other:?}"),
        })
        .collect();
    let errors = &items[docs.len()..];
    assert!(errors.len() <= 1, "items after an error: {items:?}");

    // The records that carry text among those read.
    let read = docs.last().map_or(0, |d| d.origin.record.unwrap() as usize);
    let texts: Vec<usize> = (0..n)
        .filter(|&i| {
            matches!(
                input.records[i].kind,
                Kind::Conversion | Kind::PlainResource
            )
        })
        .collect();
    let want: Vec<usize> = texts.iter().copied().filter(|&i| i < whole).collect();
    let got = docs.len();
    let one_more = may_read_one_more
        && got == want.len() + 1
        && texts.get(want.len()) == Some(&whole)
        && read == whole + 1;
    assert!(
        got == want.len() || one_more,
        "{got} documents, want {} of {n} records read whole (damage {:?}); {items:?}",
        want.len(),
        input.damage
    );
    for (doc, &i) in docs.iter().zip(&texts) {
        let id = format!("<urn:uuid:{i:036}>");
        assert_eq!(doc.id, DocId::from(id.as_str()));
        assert_eq!(doc.origin.record, Some(i as u64 + 1));
        assert_eq!(doc.text, String::from_utf8_lossy(&input.records[i].body));
    }

    match (error, errors.first()) {
        (None, None) => {}
        (Some((lo, hi)), Some(Err(InputError::Line { line, message, .. }))) => {
            // The record being read: the one after the whole ones (or after the one more).
            let being_read = if one_more { whole + 2 } else { whole + 1 } as u64;
            assert!(
                *line == being_read || (may_read_one_more && *line == whole as u64 + 2),
                "error names record {line}, want {being_read}: {message}"
            );
            let offsets = byte_offsets(message);
            assert!(
                offsets.iter().any(|o| (lo..=hi).contains(o)),
                "no byte offset in {lo}..={hi} in {message:?} (damage {:?})",
                input.damage
            );
        }
        // A gzip file whose first 64 bytes do not decompress (cut in its first member) is an
        // error of the file as it is opened (format sniffing), before any record.
        (Some(_), Some(Err(InputError::Io { source, .. })))
            if gzip
                && whole == 0
                && got == 0
                && source.kind() == std::io::ErrorKind::UnexpectedEof => {}
        // Junk alone that starts with a UTF-16 or UTF-32 byte-order mark: refused as it is opened.
        (Some(_), Some(Err(InputError::Encoding { .. }))) if n == 0 => {}
        (want, got) => panic!(
            "want an error at {want:?}, got {got:?} (damage {:?}, {n} records)",
            input.damage
        ),
    }
});
