//! The vector file formats: word2vec text and binary, GloVe text, fastText `.vec`.

use std::io::{BufRead, Write};

use crate::{EmbedError, Embeddings};

/// A word-vector file format.
///
/// * [`Format::Word2VecText`]: a header line `count dim`, then one line per word: the word and
///   `dim` numbers, separated by spaces (word2vec's `-binary 0`, gensim's `binary=False`).
/// * [`Format::FastText`]: fastText's `.vec` files, which are word2vec text (fastText writes a
///   space after the last number; any run of spaces or tabs separates fields here).
/// * [`Format::Word2VecBinary`]: the header line `count dim`, then per word: the word, one
///   space, `dim` little-endian `f32`s, and an optional newline (word2vec writes it, gensim
///   does not; both are read).
/// * [`Format::Glove`]: GloVe's text files, word2vec text without the header line; the
///   dimension is the first line's number count.
///
/// Words must be UTF-8. Numbers must be finite. Blank lines in text formats are skipped.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[non_exhaustive]
pub enum Format {
    /// word2vec text (header `count dim`).
    Word2VecText,
    /// word2vec binary (header `count dim`, little-endian `f32`s).
    Word2VecBinary,
    /// GloVe text (no header).
    Glove,
    /// fastText `.vec` (word2vec text).
    FastText,
}

impl Format {
    /// The formats, in the order of their names.
    pub const ALL: [Format; 4] = [
        Format::Word2VecText,
        Format::Word2VecBinary,
        Format::Glove,
        Format::FastText,
    ];

    /// The format's name (`word2vec`, `word2vec-binary`, `glove`, `fasttext`).
    pub fn as_str(self) -> &'static str {
        match self {
            Format::Word2VecText => "word2vec",
            Format::Word2VecBinary => "word2vec-binary",
            Format::Glove => "glove",
            Format::FastText => "fasttext",
        }
    }

    /// The format named `name` (see [`Format::as_str`]).
    pub fn from_name(name: &str) -> Option<Format> {
        Format::ALL.into_iter().find(|f| f.as_str() == name)
    }

    /// Guesses the format from the first bytes of a file (a few KiB are enough): a first line
    /// of two integers is a header, and the bytes after it are binary if they hold a byte that
    /// text never has (a control byte other than tab, newline and carriage return, or invalid
    /// UTF-8 before the last 3 bytes); without a header the file is GloVe. Word2vec text and
    /// fastText `.vec` are the same format and detect as [`Format::Word2VecText`].
    pub fn detect(prefix: &[u8]) -> Format {
        let end = prefix
            .iter()
            .position(|&b| b == b'\n')
            .unwrap_or(prefix.len());
        let header = String::from_utf8_lossy(&prefix[..end]);
        let fields: Vec<&str> = header.split_ascii_whitespace().collect();
        let is_header = fields.len() == 2 && fields.iter().all(|f| f.parse::<u64>().is_ok());
        if !is_header {
            return Format::Glove;
        }
        let rest = &prefix[(end + 1).min(prefix.len())..];
        let control = rest
            .iter()
            .any(|&b| b < 0x20 && !matches!(b, b'\t' | b'\n' | b'\r'));
        let invalid = match std::str::from_utf8(rest) {
            Ok(_) => false,
            // A multi-byte character cut by the end of the prefix is not a sign of binary.
            Err(e) => e.error_len().is_some() || e.valid_up_to() + 3 < rest.len(),
        };
        if control || invalid {
            Format::Word2VecBinary
        } else {
            Format::Word2VecText
        }
    }
}

impl std::fmt::Display for Format {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

/// Reads word vectors in `format` from `reader`.
///
/// ```
/// use textreuse_embed::{Format, read};
///
/// let text = "2 3\nriver 0.5 -1 2\nmill 1e-3 0 0.25\n";
/// let e = read(text.as_bytes(), Format::Word2VecText)?;
/// assert_eq!(e.get("mill"), Some(&[0.001, 0.0, 0.25][..]));
/// let bad = read("2 3\nriver 0.5 -1\n".as_bytes(), Format::Word2VecText).unwrap_err();
/// assert_eq!(bad.to_string(), "malformed vector file at line 2 (byte 4): 2 numbers after the word, expected 3");
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn read<R: BufRead>(reader: R, format: Format) -> Result<Embeddings, EmbedError> {
    let mut r = Counting {
        inner: reader,
        offset: 0,
    };
    match format {
        Format::Word2VecBinary => read_binary(&mut r),
        Format::Word2VecText | Format::FastText | Format::Glove => {
            read_text(&mut r, format != Format::Glove)
        }
    }
}

/// Writes `embeddings` in `format` to `writer`, numbers in the shortest form that reads back to
/// the same `f32` (so [`read`] of the output gives equal embeddings), and returns the writer.
pub fn write<W: Write>(embeddings: &Embeddings, format: Format, mut w: W) -> std::io::Result<W> {
    if format != Format::Glove {
        writeln!(w, "{} {}", embeddings.len(), embeddings.dim())?;
    }
    for (word, vector) in embeddings.iter() {
        if format == Format::Word2VecBinary {
            w.write_all(word.as_bytes())?;
            w.write_all(b" ")?;
            for x in vector {
                w.write_all(&x.to_le_bytes())?;
            }
            w.write_all(b"\n")?;
        } else {
            w.write_all(word.as_bytes())?;
            for x in vector {
                write!(w, " {x}")?;
            }
            w.write_all(b"\n")?;
        }
    }
    w.flush()?;
    Ok(w)
}

/// A reader that counts the bytes consumed.
struct Counting<R> {
    inner: R,
    offset: u64,
}

impl<R: BufRead> Counting<R> {
    /// The next line without its terminator into `buf`; false at the end.
    fn line(&mut self, buf: &mut Vec<u8>) -> Result<bool, EmbedError> {
        buf.clear();
        let n = self.inner.read_until(b'\n', buf)?;
        self.offset += n as u64;
        if buf.last() == Some(&b'\n') {
            buf.pop();
        }
        if buf.last() == Some(&b'\r') {
            buf.pop();
        }
        Ok(n > 0)
    }
}

fn malformed(line: u64, offset: u64, what: impl Into<String>) -> EmbedError {
    EmbedError::Malformed {
        line,
        offset,
        what: what.into(),
    }
}

/// Parses the header line `count dim`.
fn header(buf: &[u8], offset: u64) -> Result<(u64, usize), EmbedError> {
    let bad = || malformed(1, offset, "expected a header line 'count dim'");
    let text = std::str::from_utf8(buf).map_err(|_| bad())?;
    let mut fields = text.split_ascii_whitespace();
    let (Some(count), Some(dim), None) = (fields.next(), fields.next(), fields.next()) else {
        return Err(bad());
    };
    let (Ok(count), Ok(dim)) = (count.parse::<u64>(), dim.parse::<usize>()) else {
        return Err(bad());
    };
    if dim == 0 || dim > 1 << 20 {
        return Err(malformed(
            1,
            offset,
            format!("dimension {dim} in the header is out of range (1 to 2^20)"),
        ));
    }
    Ok((count, dim))
}

fn read_text<R: BufRead>(r: &mut Counting<R>, has_header: bool) -> Result<Embeddings, EmbedError> {
    let mut buf = Vec::new();
    let mut line = 0u64;
    let mut expected: Option<(u64, usize)> = None;
    if has_header {
        let start = r.offset;
        if !r.line(&mut buf)? {
            return Err(malformed(
                1,
                0,
                "the file is empty (expected a header line)",
            ));
        }
        line = 1;
        expected = Some(header(&buf, start)?);
    }
    let mut embeddings: Option<Embeddings> = None;
    let mut values: Vec<f32> = Vec::new();
    let mut records = 0u64;
    loop {
        let start = r.offset;
        if !r.line(&mut buf)? {
            break;
        }
        line += 1;
        let text = std::str::from_utf8(&buf).map_err(|e| {
            malformed(
                line,
                start,
                format!("not UTF-8 at byte {} of the line", e.valid_up_to()),
            )
        })?;
        let mut fields = text.split_ascii_whitespace();
        let Some(word) = fields.next() else {
            continue; // blank line
        };
        values.clear();
        for (i, f) in fields.enumerate() {
            match f.parse::<f32>() {
                Ok(x) if x.is_finite() => values.push(x),
                _ => {
                    return Err(malformed(
                        line,
                        start,
                        format!("value {} of {word:?} is {f:?}, not a finite number", i + 1),
                    ));
                }
            }
        }
        let dim = match (&embeddings, expected) {
            (Some(e), _) => e.dim(),
            (None, Some((_, dim))) => dim,
            (None, None) => values.len(),
        };
        if values.is_empty() {
            return Err(malformed(
                line,
                start,
                format!("no numbers after the word {word:?}"),
            ));
        }
        if values.len() != dim {
            return Err(malformed(
                line,
                start,
                format!("{} numbers after the word, expected {dim}", values.len()),
            ));
        }
        let e = match &mut embeddings {
            Some(e) => e,
            None => embeddings.insert(Embeddings::new(dim)?),
        };
        records += 1;
        if let Some((count, _)) = expected
            && records > count
        {
            return Err(malformed(
                line,
                start,
                format!("more words than the {count} of the header"),
            ));
        }
        e.push(word, &values)?;
    }
    if let Some((count, dim)) = expected {
        if records < count {
            return Err(malformed(
                line + 1,
                r.offset,
                format!("the file ends after {records} of the header's {count} words"),
            ));
        }
        return Ok(embeddings.unwrap_or(Embeddings::new(dim)?));
    }
    embeddings.ok_or_else(|| malformed(1, 0, "no vectors (a GloVe file has at least one line)"))
}

fn read_binary<R: BufRead>(r: &mut Counting<R>) -> Result<Embeddings, EmbedError> {
    let mut buf = Vec::new();
    if !r.line(&mut buf)? {
        return Err(malformed(
            0,
            0,
            "the file is empty (expected a header line)",
        ));
    }
    let (count, dim) = header(&buf, 0).map_err(|e| match e {
        EmbedError::Malformed { offset, what, .. } => malformed(0, offset, what),
        e => e,
    })?;
    let mut e = Embeddings::new(dim)?;
    let mut bytes = vec![0u8; 4 * dim];
    let mut values = vec![0f32; dim];
    for record in 1..=count {
        // Skips the newline word2vec writes after each vector (and any before the first word).
        loop {
            let available = r.inner.fill_buf()?;
            match available.first() {
                Some(b'\n') => {
                    r.inner.consume(1);
                    r.offset += 1;
                }
                _ => break,
            }
        }
        let start = r.offset;
        buf.clear();
        let n = r.inner.read_until(b' ', &mut buf)?;
        r.offset += n as u64;
        if buf.last() != Some(&b' ') {
            return Err(malformed(
                record,
                start,
                format!(
                    "the file ends after {} of the header's {count} words",
                    record - 1
                ),
            ));
        }
        buf.pop();
        let word = std::str::from_utf8(&buf)
            .map_err(|_| malformed(record, start, "the word is not UTF-8"))?;
        if word.is_empty() || word.bytes().any(|b| b == b'\n') {
            return Err(malformed(record, start, format!("bad word {word:?}")));
        }
        let got = read_full(&mut r.inner, &mut bytes)?;
        r.offset += got as u64;
        if got < bytes.len() {
            return Err(malformed(
                record,
                start,
                format!(
                    "the vector of {word:?} is cut off: {got} of {} bytes",
                    bytes.len()
                ),
            ));
        }
        for (v, b) in values.iter_mut().zip(bytes.chunks_exact(4)) {
            *v = f32::from_le_bytes([b[0], b[1], b[2], b[3]]);
        }
        if let Some(i) = values.iter().position(|x| !x.is_finite()) {
            return Err(malformed(
                record,
                start,
                format!(
                    "value {} of {word:?} is {}, not a finite number",
                    i + 1,
                    values[i]
                ),
            ));
        }
        e.push(word, &values)?;
    }
    // Only newlines may follow the last record.
    loop {
        let available = r.inner.fill_buf()?;
        let Some(&b) = available.first() else {
            break;
        };
        if b != b'\n' {
            return Err(malformed(
                count + 1,
                r.offset,
                format!("more data after the header's {count} words"),
            ));
        }
        r.inner.consume(1);
        r.offset += 1;
    }
    Ok(e)
}

/// Reads until `buf` is full or the end; returns the bytes read.
fn read_full<R: std::io::Read>(r: &mut R, buf: &mut [u8]) -> std::io::Result<usize> {
    let mut got = 0;
    while got < buf.len() {
        match r.read(&mut buf[got..]) {
            Ok(0) => break,
            Ok(n) => got += n,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => {}
            Err(e) => return Err(e),
        }
    }
    Ok(got)
}

#[cfg(test)]
mod tests {
    use super::{Format, read, write};
    use crate::{EmbedError, Embeddings};
    use proptest::prelude::*;

    fn sample() -> Embeddings {
        let mut e = Embeddings::new(3).unwrap();
        e.push("river", &[0.5, -1.25, 3.0e-7]).unwrap();
        e.push("mill", &[1.0 / 3.0, 0.0, -0.0]).unwrap();
        e.push("café", &[f32::MAX, f32::MIN_POSITIVE, -2.5])
            .unwrap();
        e
    }

    #[test]
    fn every_format_reads_back_identical_vectors() {
        let e = sample();
        for format in Format::ALL {
            let bytes = write(&e, format, Vec::new()).unwrap();
            assert_eq!(Format::detect(&bytes) == format, format != Format::FastText);
            let back = read(&bytes[..], format).unwrap();
            assert_eq!(back, e, "{format}");
            // Bit-identical, -0.0 included.
            let bits =
                |e: &Embeddings| e.as_slice().iter().map(|x| x.to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&back), bits(&e));
        }
    }

    #[test]
    fn foreign_writers_variants() {
        // fastText writes a space after the last number; GloVe files have no header;
        // gensim's binary files have no newline after each vector; CRLF line ends.
        let ft = "2 2\r\na 1 2 \r\nb 3 4 \r\n";
        let glove = "a 1 2\nb 3 4\n";
        let mut bin = b"2 2\n".to_vec();
        for (w, v) in [("a", [1f32, 2.0]), ("b", [3.0, 4.0])] {
            bin.extend_from_slice(w.as_bytes());
            bin.push(b' ');
            for x in v {
                bin.extend_from_slice(&x.to_le_bytes());
            }
        }
        let want = read(glove.as_bytes(), Format::Glove).unwrap();
        assert_eq!(read(ft.as_bytes(), Format::FastText).unwrap(), want);
        assert_eq!(read(&bin[..], Format::Word2VecBinary).unwrap(), want);
        assert_eq!(Format::detect(&bin), Format::Word2VecBinary);
        assert_eq!(Format::detect(glove.as_bytes()), Format::Glove);
    }

    fn error(text: &[u8], format: Format) -> (u64, u64, String) {
        match read(text, format) {
            Err(EmbedError::Malformed { line, offset, what }) => (line, offset, what),
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn malformed_files_say_what_and_where() {
        let w = Format::Word2VecText;
        assert_eq!(
            error(b"", w).2,
            "the file is empty (expected a header line)"
        );
        assert_eq!(error(b"a 1 2\n", w).2, "expected a header line 'count dim'");
        assert_eq!(
            error(b"1 2\na 1 x\n", w),
            (
                2,
                4,
                "value 2 of \"a\" is \"x\", not a finite number".into()
            )
        );
        assert_eq!(error(b"1 2\na 1 NaN\n", w).0, 2);
        assert_eq!(
            error(b"2 2\na 1 2\n", w),
            (
                3,
                10,
                "the file ends after 1 of the header's 2 words".into()
            )
        );
        assert_eq!(
            error(b"1 2\na 1 2\nb 1 2\n", w).2,
            "more words than the 1 of the header"
        );
        assert_eq!(error(b"1 2\na 1 2\xff\n", w).0, 2);
        assert_eq!(
            error(b"a 1 2\nb 1\n", Format::Glove),
            (2, 6, "1 numbers after the word, expected 2".into())
        );
        assert_eq!(error(b"", Format::Glove).0, 1);
        assert_eq!(
            error(b"\nword\n", Format::Glove),
            (2, 1, "no numbers after the word \"word\"".into())
        );
        assert_eq!(
            error(b"1 0\n", w).2,
            "dimension 0 in the header is out of range (1 to 2^20)"
        );
        let b = Format::Word2VecBinary;
        assert_eq!(
            error(b"2 1\na \x00\x00\x80\x3f\n", b),
            (
                2,
                11,
                "the file ends after 1 of the header's 2 words".into()
            )
        );
        assert_eq!(
            error(b"1 2\na \x00\x00\x80\x3f", b),
            (1, 4, "the vector of \"a\" is cut off: 4 of 8 bytes".into())
        );
        assert_eq!(
            error(b"1 1\na \x00\x00\xc0\x7f", b).2,
            "value 1 of \"a\" is NaN, not a finite number"
        );
        assert_eq!(
            error(b"1 1\na \x00\x00\x80\x3fxyz", b).2,
            "more data after the header's 1 words"
        );
        assert_eq!(
            error(b"1 1\n\xff \x00\x00\x80\x3f", b).2,
            "the word is not UTF-8"
        );
    }

    proptest! {
        /// Any bytes: an error or embeddings, never a panic.
        #[test]
        fn arbitrary_bytes_never_panic(bytes in proptest::collection::vec(any::<u8>(), 0..200)) {
            for format in Format::ALL {
                let _ = read(&bytes[..], format);
            }
            let _ = Format::detect(&bytes);
        }

        /// Round trips of random vectors through every format.
        #[test]
        fn round_trips(vectors in proptest::collection::vec(proptest::collection::vec(-1e30f32..1e30, 4), 1..20)) {
            let mut e = Embeddings::new(4).unwrap();
            for (i, v) in vectors.iter().enumerate() {
                e.push(&format!("w{i}"), v).unwrap();
            }
            for format in Format::ALL {
                let bytes = write(&e, format, Vec::new()).unwrap();
                prop_assert_eq!(&read(&bytes[..], format).unwrap(), &e);
            }
        }
    }
}
