//! The stored form of a document: its id, title, origin and (optionally) text, in a small
//! binary record; and the stable hash its id is looked up by.
use std::sync::Arc;

use textreuse_corpus::{DocId, Document, Origin};
use textreuse_hash::fingerprint;

const ID_STR: u8 = 1;
const SOURCE: u8 = 2;
const RECORD: u8 = 4;
const REVISION: u8 = 8;
const TIMESTAMP: u8 = 16;
const TEXT: u8 = 32;

/// The stable 64-bit hash of a document id (fixed by our own hash, the same on every machine):
/// [`fingerprint`] of a tag byte and the id's bytes.
pub(crate) fn id_hash(id: &DocId) -> u64 {
    let mut bytes = Vec::with_capacity(24);
    match id {
        DocId::Int(i) => {
            bytes.push(0);
            bytes.extend_from_slice(&i.to_le_bytes());
        }
        DocId::Str(s) => {
            bytes.push(1);
            bytes.extend_from_slice(s.as_bytes());
        }
    }
    fingerprint(&bytes)
}

/// LEB128: 7 bits a byte, low first (a record is mostly short strings and small numbers).
fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

fn put_str(out: &mut Vec<u8>, s: &str) {
    put_varint(out, s.len() as u64);
    out.extend_from_slice(s.as_bytes());
}

/// Appends the record of `doc` to `out` (with its text when `text` is true).
pub(crate) fn encode(doc: &Document, text: bool, out: &mut Vec<u8>) {
    let o = &doc.origin;
    let mut flags = 0;
    if matches!(doc.id, DocId::Str(_)) {
        flags |= ID_STR;
    }
    for (present, flag) in [
        (o.source.is_some(), SOURCE),
        (o.record.is_some(), RECORD),
        (o.revision.is_some(), REVISION),
        (o.timestamp.is_some(), TIMESTAMP),
        (text, TEXT),
    ] {
        if present {
            flags |= flag;
        }
    }
    out.push(flags);
    match &doc.id {
        DocId::Str(s) => put_str(out, s),
        // Zigzag, so that small negative ids stay short too.
        DocId::Int(i) => {
            let z = ((*i << 1) ^ (*i >> 127)) as u128;
            put_varint(out, z as u64);
            put_varint(out, (z >> 64) as u64);
        }
    }
    put_str(out, &doc.title);
    if let Some(s) = &o.source {
        put_str(out, s);
    }
    if let Some(r) = o.record {
        put_varint(out, r);
    }
    if let Some(r) = o.revision {
        put_varint(out, r);
    }
    if let Some(t) = &o.timestamp {
        put_str(out, t);
    }
    if text {
        put_str(out, &doc.text);
    }
}

/// A stored document, borrowed from its segment.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct StoredDoc<'a> {
    /// Its id, as the input wrote it.
    pub id: DocId,
    /// Its title.
    pub title: &'a str,
    /// The input it was read from.
    pub source: Option<&'a str>,
    /// Its record (line or row) in that input.
    pub record: Option<u64>,
    /// Dumps: its revision id.
    pub revision: Option<u64>,
    /// Dumps: its timestamp.
    pub timestamp: Option<&'a str>,
    /// Its text, when the index stores texts.
    pub text: Option<&'a str>,
}

impl StoredDoc<'_> {
    /// Its [`Origin`].
    pub fn origin(&self) -> Origin {
        Origin {
            source: self.source.map(Arc::from),
            record: self.record,
            revision: self.revision,
            timestamp: self.timestamp.map(Arc::from),
            url: None,
        }
    }

    /// An owned [`Document`] (with an empty text when none is stored).
    pub fn to_document(&self) -> Document {
        Document {
            id: self.id.clone(),
            title: self.title.to_string(),
            text: self.text.unwrap_or_default().to_string(),
            origin: self.origin(),
            links: None,
        }
    }
}

struct Reader<'a> {
    bytes: &'a [u8],
    pos: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        let end = self.pos.checked_add(n)?;
        let s = self.bytes.get(self.pos..end)?;
        self.pos = end;
        Some(s)
    }

    fn u64(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let b = self.take(1)?[0];
            v |= ((b & 0x7F) as u64) << shift;
            if b & 0x80 == 0 {
                return Some(v);
            }
        }
        None
    }

    fn str(&mut self) -> Option<&'a str> {
        let n = usize::try_from(self.u64()?).ok()?;
        std::str::from_utf8(self.take(n)?).ok()
    }
}

/// Decodes a record written by [`encode`]; `None` if it is damaged.
pub(crate) fn decode(bytes: &[u8]) -> Option<StoredDoc<'_>> {
    let mut r = Reader { bytes, pos: 0 };
    let flags = r.take(1)?[0];
    let id = if flags & ID_STR != 0 {
        DocId::from(r.str()?)
    } else {
        let z = r.u64()? as u128 | (r.u64()? as u128) << 64;
        DocId::Int((z >> 1) as i128 ^ -((z & 1) as i128))
    };
    let title = r.str()?;
    let source = if flags & SOURCE != 0 {
        Some(r.str()?)
    } else {
        None
    };
    let record = if flags & RECORD != 0 {
        Some(r.u64()?)
    } else {
        None
    };
    let revision = if flags & REVISION != 0 {
        Some(r.u64()?)
    } else {
        None
    };
    let timestamp = if flags & TIMESTAMP != 0 {
        Some(r.str()?)
    } else {
        None
    };
    let text = if flags & TEXT != 0 {
        Some(r.str()?)
    } else {
        None
    };
    Some(StoredDoc {
        id,
        title,
        source,
        record,
        revision,
        timestamp,
        text,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn records_round_trip() {
        let mut doc = Document::new("doc-7", "Title", "Some text é.");
        doc.origin = Origin {
            source: Some("a.jsonl".into()),
            record: Some(3),
            revision: None,
            timestamp: Some("2016-08-01T12:00:00Z".into()),
            url: None,
        };
        for text in [false, true] {
            let mut out = Vec::new();
            encode(&doc, text, &mut out);
            let back = decode(&out).unwrap();
            assert_eq!(back.id, doc.id);
            assert_eq!(back.title, "Title");
            assert_eq!(back.origin(), doc.origin);
            assert_eq!(back.text, text.then_some("Some text é."));
            // Every truncation is reported, never a panic.
            for n in 0..out.len() {
                assert!(decode(&out[..n]).is_none());
            }
        }
        for id in [-5i128, 0, 1, 127, 128, i64::MIN as i128, u64::MAX as i128] {
            let mut out = Vec::new();
            encode(&Document::new(DocId::Int(id), "", ""), false, &mut out);
            assert_eq!(decode(&out).unwrap().id, DocId::Int(id));
        }
    }

    #[test]
    fn id_hashes_tell_kinds_apart() {
        assert_ne!(id_hash(&DocId::from(7u64)), id_hash(&DocId::from("7")));
        assert_eq!(id_hash(&DocId::from(7u64)), id_hash(&DocId::from(7i64)));
    }
}
