//! Byte sources for the XML scanner: plain input, sequential bzip2, and parallel decompression of
//! multistream bzip2 with the output kept in input order.
use std::io::{self, Read};
use std::thread;

use crossbeam_channel::{Receiver, Sender, bounded};

use crate::Error;

/// Size of one read from the underlying input and of one decoded chunk handed to the scanner.
const CHUNK: usize = 1 << 20;
/// Compressed bytes per parallel job: a job is cut at the last stream start after this many bytes.
const TARGET_JOB: usize = 1 << 20;
/// If this many compressed bytes go by without a stream boundary, the rest of the input is
/// decoded sequentially (on the splitter thread) instead of buffering an ever-growing job.
const MAX_JOB: usize = 32 << 20;

/// Where the scanner gets decompressed XML from. `fill` appends bytes to `out` and returns how many
/// (0 at the end). An `Err` is a decoding fault; the source may still have more data after it
/// (multistream), and returns 0 once nothing more can be decoded.
pub(crate) trait Source: Send {
    fn fill(&mut self, out: &mut Vec<u8>) -> Result<usize, Error>;
}

/// Whether `head` starts like a bzip2 stream (`BZh` and a block size digit).
pub(crate) fn is_bzip2(head: &[u8]) -> bool {
    head.len() >= 4 && &head[..3] == b"BZh" && (b'1'..=b'9').contains(&head[3])
}

/// Whether a bzip2 stream with at least one block starts at `at`: `BZh[1-9]` followed by the
/// block magic 0x314159265359 (which is byte-aligned only for a stream's first block).
fn is_stream_start(buf: &[u8], at: usize) -> bool {
    buf.len() >= at + 10
        && is_bzip2(&buf[at..])
        && buf[at + 4..at + 10] == [0x31, 0x41, 0x59, 0x26, 0x53, 0x59]
}

/// Uncompressed input, read as it is.
pub(crate) struct Plain<R> {
    pub(crate) inner: R,
    pub(crate) done: bool,
}

impl<R: Read + Send> Source for Plain<R> {
    fn fill(&mut self, out: &mut Vec<u8>) -> Result<usize, Error> {
        if self.done {
            return Ok(0);
        }
        let n = read_append(&mut self.inner, out, CHUNK).map_err(|source| {
            self.done = true;
            Error::Io {
                what: "input".into(),
                source,
            }
        })?;
        if n == 0 {
            self.done = true;
        }
        Ok(n)
    }
}

/// Appends up to `max` bytes from `r` to `out`; retries on `Interrupted`.
fn read_append<R: Read + ?Sized>(r: &mut R, out: &mut Vec<u8>, max: usize) -> io::Result<usize> {
    let start = out.len();
    out.resize(start + max, 0);
    let res = loop {
        match r.read(&mut out[start..]) {
            Err(e) if e.kind() == io::ErrorKind::Interrupted => {}
            other => break other,
        }
    };
    let n = *res.as_ref().unwrap_or(&0);
    out.truncate(start + n);
    res
}

/// Counts the bytes read through it, to name compressed offsets in errors.
struct Counting<R> {
    inner: R,
    count: u64,
}

impl<R: Read> Read for Counting<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let n = self.inner.read(buf)?;
        self.count += n as u64;
        Ok(n)
    }
}

/// Sequential bzip2 decoding on the calling thread (all concatenated streams).
pub(crate) struct Bz2Seq<R: Read> {
    decoder: bzip2::read::MultiBzDecoder<Counting<R>>,
    base: u64,
    done: bool,
}

impl<R: Read> Bz2Seq<R> {
    /// `base` is the compressed offset of the first byte `inner` yields.
    pub(crate) fn new(inner: R, base: u64) -> Self {
        Bz2Seq {
            decoder: bzip2::read::MultiBzDecoder::new(Counting { inner, count: 0 }),
            base,
            done: false,
        }
    }
}

impl<R: Read + Send> Source for Bz2Seq<R> {
    fn fill(&mut self, out: &mut Vec<u8>) -> Result<usize, Error> {
        if self.done {
            return Ok(0);
        }
        match read_append(&mut self.decoder, out, CHUNK) {
            Ok(0) => {
                self.done = true;
                Ok(0)
            }
            Ok(n) => Ok(n),
            Err(e) => {
                self.done = true;
                Err(Error::Bzip2 {
                    compressed_offset: self.base + self.decoder.get_ref().count,
                    message: e.to_string(),
                })
            }
        }
    }
}

/// One unit of decoded output, in input order.
struct Decoded {
    data: Vec<u8>,
    error: Option<Error>,
}

/// Parallel bzip2 decoding. A splitter thread reads the compressed input, cuts it at bzip2 stream
/// starts (from the multistream index when given, else by scanning for the stream and block
/// magic), and hands groups of whole streams to `threads` workers. The consumer takes the results
/// in input order through a queue of one-shot channels, so at most about `3 * threads` jobs are in
/// memory at once. Input without stream boundaries (a single-stream file) is decoded
/// sequentially on the splitter thread, which still overlaps decompression with parsing.
pub(crate) struct Bz2Parallel {
    order: Receiver<Receiver<Decoded>>,
    pending_error: Option<Error>,
    done: bool,
}

impl Bz2Parallel {
    /// Starts the splitter and the workers. `prefix` holds bytes already read from `inner`
    /// (format sniffing); `index` holds sorted stream offsets from a multistream index.
    pub(crate) fn new<R: Read + Send + 'static>(
        prefix: Vec<u8>,
        inner: R,
        threads: usize,
        index: Option<Vec<u64>>,
    ) -> Self {
        let threads = threads.max(1);
        let (work_tx, work_rx) = bounded::<(u64, Vec<u8>, Sender<Decoded>)>(threads);
        let (order_tx, order_rx) = bounded::<Receiver<Decoded>>(2 * threads);
        for _ in 0..threads {
            let work_rx = work_rx.clone();
            thread::spawn(move || {
                for (offset, bytes, reply) in work_rx {
                    let _ = reply.send(decode_job(offset, &bytes));
                }
            });
        }
        thread::spawn(move || {
            let mut splitter = Splitter {
                work_tx,
                order_tx,
                index: index.unwrap_or_default(),
                next_index: 0,
            };
            splitter.run(prefix, inner);
        });
        Bz2Parallel {
            order: order_rx,
            pending_error: None,
            done: false,
        }
    }
}

impl Source for Bz2Parallel {
    fn fill(&mut self, out: &mut Vec<u8>) -> Result<usize, Error> {
        if let Some(err) = self.pending_error.take() {
            return Err(err);
        }
        loop {
            if self.done {
                return Ok(0);
            }
            let Ok(slot) = self.order.recv() else {
                self.done = true;
                return Ok(0);
            };
            let Ok(decoded) = slot.recv() else {
                // A worker died (it cannot panic on bad input; this is a bug or an abort).
                self.done = true;
                return Err(Error::Bzip2 {
                    compressed_offset: 0,
                    message: "decompression worker stopped".into(),
                });
            };
            let n = decoded.data.len();
            out.extend_from_slice(&decoded.data);
            match decoded.error {
                Some(err) if n == 0 => return Err(err),
                Some(err) => {
                    self.pending_error = Some(err);
                    return Ok(n);
                }
                None if n == 0 => continue,
                None => return Ok(n),
            }
        }
    }
}

/// Decodes one group of whole bzip2 streams. Each stream is decoded on its own, so a corrupt
/// stream costs only its own pages: the error is recorded and decoding goes on with the next.
fn decode_job(offset: u64, bytes: &[u8]) -> Decoded {
    let mut data = Vec::with_capacity(bytes.len() * 5);
    let mut error = None;
    let mut starts: Vec<usize> = memchr::memmem::find_iter(bytes, b"BZh")
        .filter(|&at| at == 0 || is_stream_start(bytes, at))
        .collect();
    if starts.first() != Some(&0) {
        starts.insert(0, 0);
    }
    for (i, &start) in starts.iter().enumerate() {
        let end = starts.get(i + 1).copied().unwrap_or(bytes.len());
        let mut decoder = bzip2::read::MultiBzDecoder::new(&bytes[start..end]);
        if let Err(e) = decoder.read_to_end(&mut data)
            && error.is_none()
        {
            error = Some(Error::Bzip2 {
                compressed_offset: offset + start as u64,
                message: format!("in the bzip2 stream starting here: {e}"),
            });
        }
    }
    Decoded { data, error }
}

struct Splitter {
    work_tx: Sender<(u64, Vec<u8>, Sender<Decoded>)>,
    order_tx: Sender<Receiver<Decoded>>,
    index: Vec<u64>,
    next_index: usize,
}

impl Splitter {
    /// Sends one job to the workers; false when the consumer has gone away.
    fn send_job(&self, offset: u64, bytes: Vec<u8>) -> bool {
        let (tx, rx) = bounded(1);
        self.order_tx.send(rx).is_ok() && self.work_tx.send((offset, bytes, tx)).is_ok()
    }

    /// Sends already decoded output; false when the consumer has gone away.
    fn send_decoded(&self, decoded: Decoded) -> bool {
        let (tx, rx) = bounded(1);
        let _ = tx.send(decoded);
        self.order_tx.send(rx).is_ok()
    }

    fn run<R: Read>(&mut self, prefix: Vec<u8>, mut inner: R) {
        // `pending` holds compressed bytes not yet sent, starting at absolute offset `base`;
        // `cuts` holds stream starts inside it (relative, > 0); `scanned` how far we looked.
        let mut pending = prefix;
        let mut base = 0u64;
        let mut cuts: Vec<usize> = Vec::new();
        let mut scanned = 0usize;
        let use_index = !self.index.is_empty();
        loop {
            let eof = match read_append(&mut inner, &mut pending, CHUNK) {
                Ok(n) => n == 0,
                Err(e) => {
                    // Decode what we have, then report the read error.
                    if !pending.is_empty() && !self.send_job(base, std::mem::take(&mut pending)) {
                        return;
                    }
                    self.send_decoded(Decoded {
                        data: Vec::new(),
                        error: Some(Error::Io {
                            what: "compressed input".into(),
                            source: e,
                        }),
                    });
                    return;
                }
            };
            // Find new stream starts.
            if use_index {
                let end = base + pending.len() as u64;
                while self.next_index < self.index.len() && self.index[self.next_index] < end {
                    let at = self.index[self.next_index];
                    self.next_index += 1;
                    if at > base {
                        cuts.push((at - base) as usize);
                    }
                }
            } else {
                let from = scanned.max(1);
                let finder = memchr::memmem::Finder::new(b"BZh");
                for pos in finder.find_iter(&pending[from..]) {
                    let at = from + pos;
                    if at + 10 > pending.len() {
                        break;
                    }
                    if is_stream_start(&pending, at) {
                        cuts.push(at);
                    }
                }
                scanned = pending.len().saturating_sub(9).max(from);
            }
            if eof {
                if cuts.is_empty() && pending.len() > TARGET_JOB {
                    // One big stream: stream its output rather than decoding it in one piece.
                    self.sequential(base, pending, inner);
                } else if !pending.is_empty() {
                    self.send_job(base, pending);
                }
                return;
            }
            if pending.len() >= TARGET_JOB {
                if let Some(&cut) = cuts.last() {
                    let rest = pending.split_off(cut);
                    let job = std::mem::replace(&mut pending, rest);
                    if !self.send_job(base, job) {
                        return;
                    }
                    base += cut as u64;
                    scanned = scanned.saturating_sub(cut);
                    cuts.clear();
                } else if pending.len() >= MAX_JOB {
                    // No stream boundary in sight: a single-stream file (or a huge stream).
                    // Decode the rest sequentially here, in order.
                    self.sequential(base, pending, inner);
                    return;
                }
            }
        }
    }

    fn sequential<R: Read>(&self, base: u64, pending: Vec<u8>, inner: R) {
        let mut seq = Bz2Seq::new(io::Cursor::new(pending).chain(inner), base);
        loop {
            let mut data = Vec::with_capacity(CHUNK);
            match read_append(&mut seq.decoder, &mut data, CHUNK) {
                Ok(0) => return,
                Ok(_) => {
                    if !self.send_decoded(Decoded { data, error: None }) {
                        return;
                    }
                }
                Err(e) => {
                    let compressed_offset = base + seq.decoder.get_ref().count;
                    self.send_decoded(Decoded {
                        data,
                        error: Some(Error::Bzip2 {
                            compressed_offset,
                            message: e.to_string(),
                        }),
                    });
                    return;
                }
            }
        }
    }
}

/// Reads the stream offsets of a multistream index (`offset:page_id:title` lines, itself
/// bzip2-compressed or plain), sorted and de-duplicated.
pub(crate) fn read_index(path: &std::path::Path) -> Result<Vec<u64>, Error> {
    let file = std::fs::File::open(path).map_err(|source| Error::Io {
        what: path.display().to_string(),
        source,
    })?;
    let mut head = io::BufReader::new(file);
    let mut text = String::new();
    let peek = io::BufRead::fill_buf(&mut head).map_err(|source| Error::Io {
        what: path.display().to_string(),
        source,
    })?;
    let res = if is_bzip2(peek) {
        bzip2::read::MultiBzDecoder::new(head).read_to_string(&mut text)
    } else {
        head.read_to_string(&mut text)
    };
    res.map_err(|e| Error::Index(format!("{}: {e}", path.display())))?;
    let mut offsets = Vec::new();
    for (i, line) in text.lines().enumerate() {
        if line.is_empty() {
            continue;
        }
        let off = line
            .split(':')
            .next()
            .and_then(|s| s.parse::<u64>().ok())
            .ok_or_else(|| {
                Error::Index(format!(
                    "{} line {}: expected offset:page_id:title",
                    path.display(),
                    i + 1
                ))
            })?;
        offsets.push(off);
    }
    offsets.sort_unstable();
    offsets.dedup();
    Ok(offsets)
}
