//! bzip2 decompression as a plain [`Read`], on the dump reader's decoders.
use std::io::{self, Read};

use crate::Error;
use crate::source::{self, Bz2Parallel, Bz2Seq, Source};

/// Decompresses bzip2 data (one stream or several, concatenated) on `threads` threads with
/// the same decoders as [`DumpReader`](crate::DumpReader): with `threads > 1` block by block in
/// parallel, whether the input is one stream or many (see the crate docs, "Performance"); with
/// 1 on the calling thread. The bytes are those of `bzip2 -dc`, in order.
///
/// Unlike the dump reader, which skips a damaged stream and goes on, the decoder ends at the
/// first damage: the output up to the fault is delivered (as from `bzip2 -dc`, that includes
/// what the decoder made of a corrupt block before its checksum failed), then `read` returns an
/// [`io::ErrorKind::InvalidData`] error whose source is the [`Error`] naming the damaged
/// compressed range, and every later `read` returns `Ok(0)`. (Records of a line-oriented format
/// cut by the damage could not be trusted, so nothing after it is guessed at.) Input that is
/// not bzip2 at all fails the same way at the first `read`.
///
/// ```
/// use std::io::{Read, Write};
/// use textreuse_wikidump::Bz2Decoder;
///
/// let text = "{\"id\": 1, \"text\": \"A line of JSON.\"}\n".repeat(1000);
/// let mut compressed = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::best());
/// compressed.write_all(text.as_bytes())?;
/// let compressed = compressed.finish()?;
///
/// let mut out = String::new();
/// Bz2Decoder::new(std::io::Cursor::new(compressed), 2).read_to_string(&mut out)?;
/// assert_eq!(out, text);
/// # Ok::<(), std::io::Error>(())
/// ```
pub struct Bz2Decoder {
    source: Box<dyn Source>,
    buf: Vec<u8>,
    at: usize,
    done: bool,
}

impl Bz2Decoder {
    /// A decoder of `reader`'s bytes on `threads` threads (0 counts as 1). The reader is moved
    /// to the decoding threads, hence `'static`: give it a `File` or an owned buffer.
    pub fn new<R: Read + Send + 'static>(reader: R, threads: usize) -> Bz2Decoder {
        let source: Box<dyn Source> = if threads > 1 {
            Box::new(Bz2Parallel::new(Vec::new(), reader, threads))
        } else {
            Box::new(Bz2Seq::new(reader, 0))
        };
        Bz2Decoder {
            source,
            buf: Vec::with_capacity(source::CHUNK),
            at: 0,
            done: false,
        }
    }
}

impl Read for Bz2Decoder {
    fn read(&mut self, out: &mut [u8]) -> io::Result<usize> {
        while self.at == self.buf.len() {
            if self.done || out.is_empty() {
                return Ok(0);
            }
            self.buf.clear();
            self.at = 0;
            match self.source.fill(&mut self.buf) {
                Ok(0) => self.done = true,
                Ok(_) => {}
                Err(err) => {
                    self.done = true;
                    return Err(match err {
                        Error::Io { source, .. } => source,
                        other => io::Error::new(io::ErrorKind::InvalidData, other),
                    });
                }
            }
        }
        let n = out.len().min(self.buf.len() - self.at);
        out[..n].copy_from_slice(&self.buf[self.at..self.at + n]);
        self.at += n;
        Ok(n)
    }
}

impl std::fmt::Debug for Bz2Decoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bz2Decoder")
            .field("done", &self.done)
            .finish_non_exhaustive()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::io::Write;

    fn compress(data: &[u8], level: u32) -> Vec<u8> {
        let mut enc = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::new(level));
        enc.write_all(data).unwrap();
        enc.finish().unwrap()
    }

    /// Lines of varied text, enough for several 100 kB blocks at level 1.
    fn lines(n: usize) -> Vec<u8> {
        let mut out = Vec::new();
        let mut x = 0x9E37_79B9_7F4A_7C15u64;
        for i in 0..n {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            writeln!(
                out,
                "{{\"id\": {i}, \"text\": \"word{} and word{}\"}}",
                x % 977,
                x % 131
            )
            .unwrap();
        }
        out
    }

    fn decode(data: &[u8], threads: usize) -> (Vec<u8>, Option<io::Error>) {
        let mut dec = Bz2Decoder::new(io::Cursor::new(data.to_vec()), threads);
        let mut out = Vec::new();
        let mut buf = vec![0u8; 4096];
        loop {
            match dec.read(&mut buf) {
                Ok(0) => return (out, None),
                Ok(n) => out.extend_from_slice(&buf[..n]),
                Err(e) => {
                    // Nothing after the error.
                    assert_eq!(dec.read(&mut buf).unwrap(), 0);
                    return (out, Some(e));
                }
            }
        }
    }

    #[test]
    fn single_and_multiple_streams_at_every_thread_count() {
        let text = lines(40_000);
        let one = compress(&text, 1);
        let mut many = compress(&text[..text.len() / 3], 1);
        many.extend(compress(&text[text.len() / 3..], 9));
        for data in [&one, &many] {
            for threads in [1, 2, 3] {
                let (out, err) = decode(data, threads);
                assert!(err.is_none(), "{err:?}");
                assert!(out == text, "threads {threads}: {} bytes", out.len());
            }
        }
    }

    #[test]
    fn damage_ends_the_output_with_an_error_naming_the_stream() {
        let text = lines(40_000);
        let mut data = compress(&text, 1);
        let mid = data.len() / 2;
        data[mid] ^= 0x55;
        let mut outs = Vec::new();
        for threads in [1, 2] {
            let (out, err) = decode(&data, threads);
            let err = err.expect("damage is an error");
            assert_eq!(err.kind(), io::ErrorKind::InvalidData);
            let inner = err.get_ref().unwrap().downcast_ref::<Error>().unwrap();
            assert!(
                matches!(
                    inner,
                    Error::Bzip2 {
                        compressed_offset: 0,
                        ..
                    }
                ),
                "{inner}"
            );
            // The text up to the damaged block (then, as from `bzip2 -dc`, what the decoder
            // made of that block before its CRC failed), and not all of it.
            let same = out.iter().zip(&text).take_while(|(a, b)| a == b).count();
            assert!(same < text.len() && same > 0);
            outs.push(out);
        }
        assert_eq!(outs[0], outs[1], "the same output at both thread counts");
    }

    #[test]
    fn input_that_is_not_bzip2_is_an_error() {
        for threads in [1, 2] {
            let (out, err) = decode(b"plain text, not compressed\n", threads);
            assert!(out.is_empty());
            assert_eq!(err.unwrap().kind(), io::ErrorKind::InvalidData);
        }
        let (out, err) = decode(b"", 2);
        assert!(out.is_empty() && err.is_none());
    }
}
