//! Sentence records: the JSON Lines that `textreuse sentences` writes, one object per kept
//! sentence, and that the Spark backend of the Python package reads inside its tasks.
//!
//! A record holds what a cluster member shows (`doc`, `title`, the sentence `text`, its
//! character offsets, the document's provenance) plus the sentence id `seq << 32 | idx` and its
//! shingle count as written, so the Spark job can filter, sign and cluster without the
//! documents and still write the lines `textreuse dedup` writes. Both sides use this one type,
//! so the format is defined once:
//!
//! ```
//! use std::borrow::Cow;
//! use textreuse_dedup::records::SentenceRecord;
//!
//! let line = r#"{"id":4294967298,"doc":12,"title":"Mill","idx":2,"start":40,"end":58,"shingles":7,"text":"The mill is old."}"#;
//! let record = SentenceRecord::parse(line)?;
//! assert_eq!((record.id >> 32, record.idx), (1, 2));
//! assert!(matches!(record.text, Cow::Borrowed(_))); // no escapes: no copy
//! assert_eq!(serde_json::to_string(&record)?, line);
//! let member = record.into_member();
//! assert_eq!((member.doc.to_string(), member.start, member.end), ("12".into(), 40, 58));
//! # Ok::<(), serde_json::Error>(())
//! ```
//!
//! `doc` is the document id as the input wrote it, a JSON number or a string;
//! `"doc_is_string": true` marks a string id for readers (Spark's JSON reader with `doc` as a
//! string column) that cannot tell `"12"` from `12`. `source`, `record`, `revision` and
//! `timestamp` and `url` are left out when the document has none.
use std::borrow::Cow;
use std::fs::File;
use std::io::{self, BufRead, BufReader, Seek, SeekFrom};
use std::path::Path;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::Member;
use textreuse_corpus::input::{Compression, open_file};
use textreuse_corpus::{DocId, Document, Origin};
use textreuse_shingle::units::KeptSentence;

/// One sentence record (see the [module docs](self)). Strings borrow from the parsed line when
/// it needs no unescaping.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct SentenceRecord<'a> {
    /// The sentence id, `seq << 32 | idx`.
    pub id: u64,
    /// The document id.
    #[serde(deserialize_with = "doc_id")]
    pub doc: Cow<'a, DocId>,
    /// Whether `doc` is a string (written only when true).
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub doc_is_string: bool,
    /// The input the document was read from.
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub source: Option<Cow<'a, str>>,
    /// The document's 1-based record (line, row) in that input.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub record: Option<u64>,
    /// Dumps: the revision id.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub revision: Option<u64>,
    /// Dumps: the revision's timestamp.
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub timestamp: Option<Cow<'a, str>>,
    /// A link to the document (a dump revision's permanent link, a WARC record's URI).
    #[serde(borrow, default, skip_serializing_if = "Option::is_none")]
    pub url: Option<Cow<'a, str>>,
    /// The document title.
    #[serde(borrow)]
    pub title: Cow<'a, str>,
    /// The sentence's index among all sentences of its document (kept or not).
    pub idx: u32,
    /// The sentence's start in the document text, in characters.
    pub start: u64,
    /// Its end (exclusive), in characters.
    pub end: u64,
    /// Its number of shingles as written (the sentence filter's measure).
    pub shingles: u64,
    /// The sentence as written.
    #[serde(borrow)]
    pub text: Cow<'a, str>,
    /// `textreuse sentences --band-keys`: the band keys as 16 hex digits each.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub band_keys: Option<Vec<String>>,
}

impl<'a> SentenceRecord<'a> {
    /// Parses one line (without its line end). A string `doc` without `"doc_is_string": true`
    /// that is an integer in decimal digits is that integer (as Spark's `to_json` writes a
    /// document id kept in a string column).
    pub fn parse(line: &'a str) -> Result<SentenceRecord<'a>, serde_json::Error> {
        let mut record: SentenceRecord<'a> = serde_json::from_str(line)?;
        if let DocId::Str(s) = record.doc.as_ref()
            && !record.doc_is_string
            && let Some(n) = decimal(s)
        {
            record.doc = Cow::Owned(DocId::Int(n));
        }
        Ok(record)
    }

    /// The cluster member this sentence is (no similarities yet), as stage 6 of `textreuse
    /// dedup` builds it.
    pub fn into_member(self) -> Member {
        Member {
            id: self.id,
            doc: self.doc.into_owned(),
            title: self.title.into_owned(),
            text: self.text.into_owned(),
            origin: Origin {
                source: self.source.map(|s| Arc::from(s.as_ref())),
                record: self.record,
                revision: self.revision,
                timestamp: self.timestamp.map(|s| Arc::from(s.as_ref())),
                url: self.url.map(|s| Arc::from(s.as_ref())),
            },
            start: self.start,
            end: self.end,
            similarity: None,
            jaccard: None,
        }
    }

    /// The record of a kept sentence of `doc` ([`KeptSentences`](textreuse_shingle::units::KeptSentences)),
    /// under the sentence id `id` (usually `sentence.id`).
    pub fn of_sentence(
        doc: &'a Document,
        sentence: &KeptSentence<'a>,
        id: u64,
    ) -> SentenceRecord<'a> {
        SentenceRecord {
            id,
            doc: Cow::Borrowed(&doc.id),
            doc_is_string: matches!(doc.id, DocId::Str(_)),
            source: doc.origin.source.as_deref().map(Cow::Borrowed),
            record: doc.origin.record,
            revision: doc.origin.revision,
            timestamp: doc.origin.timestamp.as_deref().map(Cow::Borrowed),
            url: doc.origin.url.as_deref().map(Cow::Borrowed),
            title: Cow::Borrowed(&doc.title),
            idx: sentence.idx,
            start: sentence.chars.start,
            end: sentence.chars.end,
            shingles: sentence.shingles as u64,
            text: Cow::Borrowed(sentence.text),
            band_keys: None,
        }
    }

    /// The record of a cluster member (`shingles`, which a member does not carry, given).
    pub fn of_member(member: &'a Member, shingles: u64) -> SentenceRecord<'a> {
        SentenceRecord {
            id: member.id,
            doc: Cow::Borrowed(&member.doc),
            doc_is_string: matches!(member.doc, DocId::Str(_)),
            source: member.origin.source.as_deref().map(Cow::Borrowed),
            record: member.origin.record,
            revision: member.origin.revision,
            timestamp: member.origin.timestamp.as_deref().map(Cow::Borrowed),
            url: member.origin.url.as_deref().map(Cow::Borrowed),
            title: Cow::Borrowed(&member.title),
            idx: member.idx(),
            start: member.start,
            end: member.end,
            shingles,
            text: Cow::Borrowed(&member.text),
            band_keys: None,
        }
    }
}

/// The byte ranges a file of records can be read in, for splitting one file over several
/// workers: pieces of about `split` bytes (at least 1) covering an uncompressed file, each read
/// by [`read_lines`] as the lines that *start* in it; a compressed file (gzip, zstd, bzip2) is
/// one range, `(0, u64::MAX)`, read whole. An empty file has no range.
pub fn file_ranges(path: &Path, split: u64) -> io::Result<Vec<(u64, u64)>> {
    let mut file = File::open(path)?;
    let len = file.metadata()?.len();
    let mut head = [0u8; 4];
    let n = io::Read::read(&mut file, &mut head)?;
    if Compression::detect(&head[..n]) != Compression::None {
        return Ok(vec![(0, u64::MAX)]);
    }
    let split = split.max(1);
    Ok((0..len)
        .step_by(split as usize)
        .map(|start| (start, (start + split).min(len)))
        .collect())
}

/// Calls `f(line, offset)` for every non-empty line of `path` that starts at a byte offset in
/// `[start, end)`, in order, without its line end (`\n` or `\r\n`); `offset` is where the
/// line starts. The ranges of [`file_ranges`] thus read every line exactly once. A compressed
/// file is decompressed (offsets count decompressed bytes) and must be read as one range. An
/// error of `f` stops the reading and is returned.
pub fn read_lines(
    path: &Path,
    start: u64,
    end: u64,
    mut f: impl FnMut(&[u8], u64) -> io::Result<()>,
) -> io::Result<()> {
    let mut reader: Box<dyn BufRead> = if start == 0 {
        open_file(path)
            .map_err(|e| io::Error::new(io::ErrorKind::InvalidData, e.to_string()))?
            .reader
    } else {
        Box::new(BufReader::with_capacity(1 << 20, File::open(path)?))
    };
    let mut at = 0u64;
    let mut line = Vec::new();
    if start > 0 {
        // The line that holds byte `start - 1` belongs to the range before.
        let mut file = BufReader::with_capacity(1 << 20, File::open(path)?);
        file.seek(SeekFrom::Start(start - 1))?;
        at = start - 1 + file.read_until(b'\n', &mut line)? as u64;
        reader = Box::new(file);
    }
    while at < end {
        line.clear();
        let n = reader.read_until(b'\n', &mut line)?;
        if n == 0 {
            break;
        }
        let mut text = &line[..];
        if let Some(rest) = text.strip_suffix(b"\n") {
            text = rest.strip_suffix(b"\r").unwrap_or(rest);
        }
        if !text.is_empty() {
            f(text, at)?;
        }
        at += n as u64;
    }
    Ok(())
}

/// A JSON integer's value (-2^63 to 2^64 - 1) written in decimal digits.
fn decimal(s: &str) -> Option<i128> {
    let digits = s.strip_prefix('-').unwrap_or(s);
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    let n: i128 = s.parse().ok()?;
    (i128::from(i64::MIN)..=i128::from(u64::MAX))
        .contains(&n)
        .then_some(n)
}

/// `doc`: a JSON integer (-2^63 to 2^64 - 1) or string.
fn doc_id<'de, 'a, D: serde::Deserializer<'de>>(d: D) -> Result<Cow<'a, DocId>, D::Error> {
    struct Visitor;
    impl serde::de::Visitor<'_> for Visitor {
        type Value = DocId;
        fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str("a document id: an integer or a string")
        }
        fn visit_u64<E>(self, v: u64) -> Result<DocId, E> {
            Ok(DocId::from(v))
        }
        fn visit_i64<E>(self, v: i64) -> Result<DocId, E> {
            Ok(DocId::from(v))
        }
        fn visit_str<E>(self, v: &str) -> Result<DocId, E> {
            Ok(DocId::from(v))
        }
    }
    d.deserialize_any(Visitor).map(Cow::Owned)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn string_ids_escapes_and_provenance_round_trip() {
        let line = r#"{"id":5,"doc":"a\"b","doc_is_string":true,"source":"x.jsonl","record":3,"revision":9,"timestamp":"2016-08-01T12:00:00Z","title":"T\u00e9","idx":5,"start":0,"end":4,"shingles":0,"text":"a\nb"}"#;
        let r = SentenceRecord::parse(line).unwrap();
        assert_eq!(*r.doc, DocId::from("a\"b"));
        assert_eq!(r.text, "a\nb");
        assert_eq!(r.title, "Té");
        let member = r.clone().into_member();
        assert_eq!(member.origin.record, Some(3));
        let back = SentenceRecord::of_member(&member, 0);
        assert_eq!(back, r);
        // Serialized again it reads back the same (serde_json writes é as is).
        let again = serde_json::to_string(&back).unwrap();
        assert_eq!(SentenceRecord::parse(&again).unwrap(), r);
    }

    #[test]
    fn ranges_read_every_line_once() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("r.jsonl");
        let text = "alpha\nbeta\r\n\ngamma delta\nepsilon";
        std::fs::write(&path, text).unwrap();
        let whole = lines(&path, 0, u64::MAX);
        let expected = [
            (0, "alpha"),
            (6, "beta"),
            (13, "gamma delta"),
            (25, "epsilon"),
        ];
        assert_eq!(whole, expected.map(|(at, s)| (at, s.to_string())));
        for split in 1..=text.len() as u64 + 1 {
            let mut got = Vec::new();
            for (start, end) in file_ranges(&path, split).unwrap() {
                got.extend(lines(&path, start, end));
            }
            assert_eq!(got, whole, "split {split}");
        }
        // A compressed file is one range.
        let gz = dir.path().join("r.jsonl.gz");
        let mut enc = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        io::Write::write_all(&mut enc, text.as_bytes()).unwrap();
        std::fs::write(&gz, enc.finish().unwrap()).unwrap();
        assert_eq!(file_ranges(&gz, 4).unwrap(), [(0, u64::MAX)]);
        assert_eq!(lines(&gz, 0, u64::MAX), whole);
        let empty = dir.path().join("empty");
        std::fs::write(&empty, "").unwrap();
        assert!(file_ranges(&empty, 4).unwrap().is_empty());
    }

    fn lines(path: &Path, start: u64, end: u64) -> Vec<(u64, String)> {
        let mut out = Vec::new();
        read_lines(path, start, end, |line, at| {
            out.push((at, String::from_utf8(line.to_vec()).unwrap()));
            Ok(())
        })
        .unwrap();
        out
    }

    #[test]
    fn bad_records_are_errors() {
        for line in [
            "",
            "{}",
            r#"{"id":1,"doc":1.5,"title":"","idx":0,"start":0,"end":0,"shingles":0,"text":""}"#,
            r#"{"id":-1,"doc":1,"title":"","idx":0,"start":0,"end":0,"shingles":0,"text":""}"#,
            r#"{"id":1,"doc":null,"title":"","idx":0,"start":0,"end":0,"shingles":0,"text":""}"#,
        ] {
            assert!(SentenceRecord::parse(line).is_err(), "{line}");
        }
        let digits =
            r#"{"id":1,"doc":"12","title":"","idx":0,"start":0,"end":0,"shingles":0,"text":""}"#;
        assert_eq!(
            *SentenceRecord::parse(digits).unwrap().doc,
            DocId::from(12u64)
        );
        let string = r#"{"id":1,"doc":"12","doc_is_string":true,"title":"","idx":0,"start":0,"end":0,"shingles":0,"text":""}"#;
        assert_eq!(
            *SentenceRecord::parse(string).unwrap().doc,
            DocId::from("12")
        );
        let negative =
            r#"{"id":1,"doc":-7,"title":"","idx":0,"start":0,"end":0,"shingles":0,"text":""}"#;
        assert_eq!(
            *SentenceRecord::parse(negative).unwrap().doc,
            DocId::from(-7i64)
        );
    }
}
