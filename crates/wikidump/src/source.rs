//! Byte sources for the XML scanner: plain input, and bzip2 input decoded on the calling thread
//! ([`Bz2Seq`]) or on several threads ([`Bz2Parallel`]) with the same output and the same errors.
//!
//! bzip2 input is cut into *segments*: a segment starts at the beginning of the input or at a
//! stream start (the stream magic `BZh[1-9]` followed by the block magic `0x314159265359`,
//! byte-aligned, as every non-empty bzip2 stream begins) and runs to the next stream start or the
//! end of the input. Both paths find the starts with [`next_start`] and decode each segment on
//! its own with a [`Segment`], which holds the rules for damage: a corrupt or cut-off stream
//! yields its output up to the fault and one [`Error::Bzip2`] naming the stream's compressed
//! range; bytes after a stream's end that are not another stream are one [`Error::Bzip2Junk`].
//! Both paths then hand the reader pieces that end at the same output offsets (multiples of
//! [`CHUNK`], or an error, or the end), so the reader sees the same input at any thread count.
use std::io::{self, Read};
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::thread;

use bzip2::{Decompress, Status};
use crossbeam_channel::{Receiver, Sender, bounded};

use crate::Error;

/// Size of one read from the underlying input, and the reader's fill unit: every [`Source`]
/// fills up to the next multiple of `CHUNK` of its output (fewer bytes only before an error or
/// at the end), so the reader's view does not depend on how the output was produced.
pub(crate) const CHUNK: usize = 1 << 20;
/// Decoded pieces the parallel path's output channel holds before the resolver waits for the
/// reader; also, in MiB, the most output of one block a worker hands on (a 900 kB block of text
/// gives about 1 MiB; only bombs of long runs give more).
const JOB_PIECES: usize = 8;

/// Where the scanner gets decompressed XML from. `fill` appends bytes to `out` up to the next
/// multiple of [`CHUNK`] of the total output, and returns how many; fewer only when the next
/// call returns an error or the input ends; 0 only at the end. An `Err` is a fault; unless it is
/// fatal the source goes on after it.
pub(crate) trait Source: Send {
    fn fill(&mut self, out: &mut Vec<u8>) -> Result<usize, Error>;
}

/// Bytes to the next multiple of [`CHUNK`] after `total` bytes of output.
fn to_boundary(total: u64) -> usize {
    CHUNK - (total % CHUNK as u64) as usize
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

/// The first stream start at or after `from` in `buf`, and how far `buf` has been classified:
/// `(Some(at), at)`, or `(None, to)` when no position in `from..to` starts a stream. A position
/// needs 10 bytes to be classified, so without `eof` the last 9 bytes wait for more input; at
/// `eof` they are classified too (and start no stream: too short).
fn next_start(buf: &[u8], from: usize, eof: bool) -> (Option<usize>, usize) {
    let limit = if eof {
        buf.len()
    } else {
        buf.len().saturating_sub(9)
    };
    if from >= limit {
        return (None, from);
    }
    for p in memchr::memmem::find_iter(&buf[from..], b"BZh") {
        let at = from + p;
        if at >= limit {
            break;
        }
        if is_stream_start(buf, at) {
            return (Some(at), at);
        }
    }
    (None, limit)
}

/// Appends up to `max` bytes from `r` to `out`, reading until `max` bytes or the end of input;
/// retries on `Interrupted`. On an error the bytes read before it stay in `out`.
fn read_up_to<R: Read + ?Sized>(r: &mut R, out: &mut Vec<u8>, max: usize) -> io::Result<usize> {
    r.take(max as u64).read_to_end(out)
}

/// Uncompressed input, read as it is.
pub(crate) struct Plain<R> {
    inner: R,
    total: u64,
    pending: Option<Error>,
    done: bool,
}

impl<R> Plain<R> {
    pub(crate) fn new(inner: R) -> Self {
        Plain {
            inner,
            total: 0,
            pending: None,
            done: false,
        }
    }
}

impl<R: Read + Send> Source for Plain<R> {
    fn fill(&mut self, out: &mut Vec<u8>) -> Result<usize, Error> {
        if let Some(err) = self.pending.take() {
            return Err(err);
        }
        if self.done {
            return Ok(0);
        }
        let want = to_boundary(self.total);
        let start = out.len();
        let res = read_up_to(&mut self.inner, out, want);
        let got = out.len() - start;
        self.total += got as u64;
        match res {
            Ok(n) if n < want => self.done = true,
            Ok(_) => {}
            Err(source) => {
                self.done = true;
                let err = Error::Io {
                    what: "input".into(),
                    source,
                };
                if got == 0 {
                    return Err(err);
                }
                self.pending = Some(err);
            }
        }
        Ok(got)
    }
}

/// Why [`Segment::feed`] returned.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Progress {
    /// `room` bytes were written: call again with the rest of the input.
    Full,
    /// All input was consumed: give more, or, when it ran to the segment's end, call
    /// [`Segment::finish`].
    Input,
}

enum SegState {
    /// A stream header is expected at `pos`.
    Header,
    /// Inside the stream that began at `stream`.
    Decoding(Box<Decompress>),
    /// Bytes from `from` to the segment's end are not bzip2 data.
    Junk { from: u64 },
    /// The stream that began at `stream` is damaged; the rest of the segment is skipped.
    Failed { message: String },
}

/// Decoding of one segment (compressed bytes from one stream start to the next): its streams
/// one after the other (a segment normally holds one; empty streams have no block magic and so
/// do not start segments), then the verdict on its end. The output is a function of the
/// segment's bytes alone, however they are sliced when fed, and so is the error.
struct Segment {
    /// Absolute compressed offset of the next byte to feed.
    pos: u64,
    /// Absolute compressed offset of the current stream's header.
    stream: u64,
    state: SegState,
}

impl Segment {
    fn new(start: u64) -> Self {
        Segment {
            pos: start,
            stream: start,
            state: SegState::Header,
        }
    }

    /// Decodes `input`, the segment's next bytes (`last`: they run to the segment's end),
    /// appending at most `room` bytes to `out`. Returns how many bytes of `input` it consumed.
    fn feed(
        &mut self,
        input: &[u8],
        last: bool,
        out: &mut Vec<u8>,
        mut room: usize,
    ) -> (usize, Progress) {
        let mut used = 0;
        loop {
            let rest = &input[used..];
            match &mut self.state {
                SegState::Header => {
                    if rest.is_empty() || (rest.len() < 4 && !last) {
                        return (used, Progress::Input);
                    }
                    if is_bzip2(rest) {
                        self.stream = self.pos;
                        self.state = SegState::Decoding(Box::new(Decompress::new(false)));
                    } else {
                        self.state = SegState::Junk { from: self.pos };
                    }
                }
                SegState::Junk { .. } | SegState::Failed { .. } => {
                    self.pos += rest.len() as u64;
                    return (input.len(), Progress::Input);
                }
                SegState::Decoding(dec) => {
                    if room == 0 {
                        return (used, Progress::Full);
                    }
                    let len = out.len();
                    out.resize(len + room, 0);
                    let (in0, out0) = (dec.total_in(), dec.total_out());
                    let res = dec.decompress(rest, &mut out[len..]);
                    let read = (dec.total_in() - in0) as usize;
                    let wrote = (dec.total_out() - out0) as usize;
                    out.truncate(len + wrote);
                    used += read;
                    self.pos += read as u64;
                    room -= wrote;
                    match res {
                        Ok(Status::StreamEnd) => self.state = SegState::Header,
                        Ok(_) if room == 0 => return (used, Progress::Full),
                        Ok(_) if used == input.len() => return (used, Progress::Input),
                        // Room and input left, yet no progress: never seen from libbzip2, but
                        // a loop here would hang the reader.
                        Ok(_) if read == 0 && wrote == 0 => {
                            self.state = SegState::Failed {
                                message: "the decoder made no progress".into(),
                            };
                        }
                        Ok(_) => {}
                        Err(e) => {
                            self.state = SegState::Failed {
                                message: match e {
                                    bzip2::Error::Data => {
                                        "corrupt data (bad block or checksum)".into()
                                    }
                                    bzip2::Error::DataMagic => "no bzip2 stream header".into(),
                                    other => other.to_string(),
                                },
                            };
                        }
                    }
                }
            }
        }
    }

    /// The verdict once all the segment's bytes, up to absolute `end`, were fed (`at_eof`: the
    /// input ends there, rather than another stream starting).
    fn finish(self, end: u64, at_eof: bool) -> Option<Error> {
        match self.state {
            SegState::Header => None,
            SegState::Decoding(_) => Some(Error::Bzip2 {
                compressed_offset: self.stream,
                compressed_end: end,
                message: if at_eof {
                    "the input ends inside it (cut off)".into()
                } else {
                    "another stream starts before its end (cut off or damaged)".into()
                },
            }),
            SegState::Junk { from } => Some(Error::Bzip2Junk {
                compressed_offset: from,
                compressed_end: end,
            }),
            SegState::Failed { message } => Some(Error::Bzip2 {
                compressed_offset: self.stream,
                compressed_end: end,
                message,
            }),
        }
    }
}

/// bzip2 decoding on the calling thread: reads the compressed input a [`CHUNK`] at a time, finds
/// segment ends with [`next_start`] just ahead of decoding, and decodes segment by segment.
///
/// A segment that starts with a stream is decoded block by block with the parallel path's block
/// decoder ([`blocks::BlockDecoder`], about 0.27x libbz2-rs's CPU), on this thread: each
/// block's output is handed on once its CRC matched, the combined CRC is checked at the
/// end-of-stream record, and whatever that decoder refuses is settled so that the output and
/// the errors are those of libbz2-rs decoding the whole segment with a [`Segment`]: a block the
/// other decoder refuses is tried with libbz2-rs up to the next magics
/// ([`blocks::repair_block`]); when it is not a block, the stream is decoded again from its
/// header with a [`Segment`] that drops the output already handed on (its compressed bytes are
/// kept for that up to [`RETAIN_STREAM`]); in a longer stream, from the failing block on, its
/// bits moved to a byte boundary behind a stream header, as the parallel resolver does. (That
/// last way can differ in one case: input cut off within a few bits of where the decoder would
/// next decide may be reported as corrupt rather than cut off.)
pub(crate) struct Bz2Seq<R> {
    inner: R,
    /// Compressed bytes; `buf[0]` is at absolute offset `base`.
    buf: Vec<u8>,
    base: u64,
    /// Next byte of `buf` to feed to `seg`.
    pos: usize,
    /// The current segment's end (the next stream start), once found.
    end: Option<usize>,
    /// Positions of `buf` before this were checked for stream starts (none before `end`).
    scanned: usize,
    eof: bool,
    seg: Segment,
    total: u64,
    pending: Option<Error>,
    done: bool,
    /// Whether segments are decoded block by block (else with a [`Segment`] only).
    by_blocks: bool,
    /// The segment at `pos` has just begun: whether to decode it block by block is still open.
    fresh: bool,
    fast: Option<FastStream>,
    /// The block decoder and its buffers.
    blocks: blocks::BlockDecoder,
    wrapped: Option<Wrapped>,
    /// A decoded block's output not yet handed on.
    carry: Vec<u8>,
    carry_pos: usize,
    /// Output of `seg` to drop: what the blocks of its stream already handed on.
    skip: u64,
}

/// A stream decoded block by block.
struct FastStream {
    /// Absolute byte offset of its `BZh`.
    stream: u64,
    level: u8,
    /// Absolute bit where the next block or end-of-stream record begins.
    bit: u64,
    combined: u32,
    /// Output handed on so far.
    emitted: u64,
    /// The stream's compressed bytes are still in `buf` (`pos` stays at its start), so a
    /// failure can be settled by libbz2-rs decoding the stream again from its header.
    retained: bool,
}

/// How much of a stream's compressed bytes the sequential path keeps to settle a failure
/// exactly (every stream of a multistream dump, about 600 kB each, fits). Past it, a failure is
/// decoded from the failing block's bit on ([`Wrapped`]).
const RETAIN_STREAM: u64 = 8 << 20;

fn retain_stream() -> u64 {
    #[cfg(test)]
    if tests::RETAIN_NOTHING.get() {
        return 0;
    }
    RETAIN_STREAM
}

/// The rest of a segment decoded by a [`Segment`] from a bit that is not byte-aligned: the
/// stream's bits from there, moved to a byte boundary behind a stream header.
struct Wrapped {
    /// Absolute byte offset of the real stream's `BZh` (the errors name it).
    stream: u64,
    shift: u32,
    /// Shifted bytes not yet fed.
    input: Vec<u8>,
    fed: u64,
}

/// Compressed bytes a block can take, with its magic, CRC and the next magic.
const MAX_BLOCK_BYTES: usize = (blocks::MAX_BLOCK_BITS / 8) as usize + 24;

impl<R: Read> Bz2Seq<R> {
    /// `base` is the compressed offset of the first byte `inner` yields, a segment start.
    pub(crate) fn new(inner: R, base: u64) -> Self {
        Bz2Seq {
            inner,
            buf: Vec::new(),
            base,
            pos: 0,
            end: None,
            scanned: 1,
            eof: false,
            seg: Segment::new(base),
            total: 0,
            pending: None,
            done: false,
            by_blocks: true,
            fresh: true,
            fast: None,
            blocks: blocks::BlockDecoder::new(),
            wrapped: None,
            carry: Vec::new(),
            carry_pos: 0,
            skip: 0,
        }
    }

    /// Decoding with a [`Segment`] (libbz2-rs) only: the reference the block-by-block decoding
    /// is checked against.
    #[cfg(test)]
    pub(crate) fn reference(inner: R, base: u64) -> Self {
        Bz2Seq {
            by_blocks: false,
            ..Bz2Seq::new(inner, base)
        }
    }

    /// Reads another chunk of compressed input, first dropping what was fed.
    fn read_more(&mut self) -> Result<(), Error> {
        if self.pos >= CHUNK || (self.pos > 0 && self.pos * 2 >= self.buf.len()) {
            self.buf.drain(..self.pos);
            self.base += self.pos as u64;
            self.scanned -= self.pos;
            self.end = self.end.map(|e| e - self.pos);
            self.pos = 0;
        }
        let n = read_up_to(&mut self.inner, &mut self.buf, CHUNK).map_err(|source| Error::Io {
            what: "compressed input".into(),
            source,
        })?;
        if n < CHUNK {
            self.eof = true;
        }
        Ok(())
    }

    /// [`Bz2Seq::read_more`]; on an error, ends the input with it as the fault. True when
    /// `fill` must return.
    fn read_failed(&mut self, fault: &mut Option<Error>) -> bool {
        match self.read_more() {
            Ok(()) => false,
            Err(err) => {
                self.done = true;
                *fault = Some(err);
                true
            }
        }
    }

    /// Where the bytes that may be decoded now end (an index of `buf`), and whether that is
    /// the segment's end.
    fn limit(&mut self) -> (usize, bool) {
        if self.end.is_none() {
            let (found, scanned) = next_start(&self.buf, self.scanned, self.eof);
            self.end = found;
            self.scanned = scanned;
        }
        match self.end {
            Some(e) => (e, true),
            None if self.eof => (self.buf.len(), true),
            None => (self.scanned.clamp(self.pos, self.buf.len()), false),
        }
    }

    /// Moves on past the segment that ends at `limit`, given its verdict. True when `fill` must
    /// return (a fault, or the end of the input).
    fn next_segment(
        &mut self,
        limit: usize,
        verdict: Option<Error>,
        fault: &mut Option<Error>,
    ) -> bool {
        let at_eof = self.end.is_none();
        self.pos = limit;
        self.seg = Segment::new(self.base + limit as u64);
        self.fresh = true;
        self.skip = 0;
        if at_eof {
            self.done = true;
        } else {
            self.end = None;
            self.scanned = self.pos + 1;
        }
        *fault = verdict;
        fault.is_some() || self.done
    }

    /// One step of block-by-block decoding: the next block into `carry`, or the stream's end,
    /// or the switch to a [`Segment`]. False when more input is needed first.
    fn fast_step(&mut self, limit: usize, last: bool) -> bool {
        let Some(f) = self.fast.as_mut() else {
            return true;
        };
        let rel = f.bit - self.base * 8;
        if !last && limit < (rel / 8) as usize + MAX_BLOCK_BYTES {
            return false;
        }
        let buf = &self.buf[..limit];
        match blocks::bits(buf, rel, 48) {
            Some(blocks::BLOCK_MAGIC) => {
                let crc = blocks::bits(buf, rel + 48, 32);
                // The block's output goes to `carry` (all handed on by now), reusing its memory.
                let mut out = std::mem::take(&mut self.carry);
                let decoded = match self.blocks.decode(buf, rel, f.level, &mut out) {
                    Some(end) => Some((out, end)),
                    None => blocks::repair_block(buf, rel, limit as u64 * 8, f.level),
                };
                if let (Some(crc), Some((out, end))) = (crc, decoded) {
                    f.combined = f.combined.rotate_left(1) ^ crc as u32;
                    f.bit = self.base * 8 + end;
                    f.emitted += out.len() as u64;
                    if f.retained && f.bit / 8 - f.stream > retain_stream() {
                        f.retained = false;
                    }
                    if !f.retained {
                        self.pos = (end / 8) as usize;
                    }
                    self.carry = out;
                    self.carry_pos = 0;
                    return true;
                }
            }
            Some(blocks::END_MAGIC) => match blocks::bits(buf, rel + 48, 32) {
                Some(stored) if stored == u64::from(f.combined) => {
                    let tail = (f.bit + 80).div_ceil(8);
                    self.pos = (tail - self.base) as usize;
                    self.seg = Segment::new(tail);
                    self.fast = None;
                    return true;
                }
                Some(_) => {
                    // libbz2-rs fails at this record, after all the output before it.
                    self.pos = (rel / 8) as usize;
                    self.seg = Segment {
                        pos: self.base + self.pos as u64,
                        stream: f.stream,
                        state: SegState::Failed {
                            message: "corrupt data (bad block or checksum)".into(),
                        },
                    };
                    self.fast = None;
                    return true;
                }
                None => {}
            },
            _ => {}
        }
        // Not a block here: libbz2-rs from the stream's header (dropping the output the blocks
        // handed on), or from this bit.
        if f.retained {
            self.pos = (f.stream - self.base) as usize;
            self.seg = Segment::new(f.stream);
            self.skip = f.emitted;
        } else {
            self.pos = (rel / 8) as usize;
            let mut input = b"BZh".to_vec();
            input.push(f.level);
            self.wrapped = Some(Wrapped {
                stream: f.stream,
                shift: (rel % 8) as u32,
                input,
                fed: 0,
            });
            self.seg = Segment::new(0);
        }
        self.fast = None;
        true
    }
}

impl<R: Read + Send> Source for Bz2Seq<R> {
    fn fill(&mut self, out: &mut Vec<u8>) -> Result<usize, Error> {
        if let Some(err) = self.pending.take() {
            return Err(err);
        }
        if self.done {
            return Ok(0);
        }
        let want = to_boundary(self.total);
        let start = out.len();
        let mut fault = None;
        loop {
            let room = want - (out.len() - start);
            if self.carry_pos < self.carry.len() {
                if room == 0 {
                    break;
                }
                let n = room.min(self.carry.len() - self.carry_pos);
                out.extend_from_slice(&self.carry[self.carry_pos..self.carry_pos + n]);
                self.carry_pos += n;
                continue;
            }
            let (limit, last) = self.limit();
            if self.fresh {
                // A segment that starts with a stream is decoded block by block.
                if !last && limit < self.pos + 10 {
                    if self.read_failed(&mut fault) {
                        break;
                    }
                    continue;
                }
                self.fresh = false;
                if self.by_blocks && is_stream_start(&self.buf[..limit], self.pos) {
                    let stream = self.base + self.pos as u64;
                    self.fast = Some(FastStream {
                        stream,
                        level: self.buf[self.pos + 3],
                        bit: (stream + 4) * 8,
                        combined: 0,
                        emitted: 0,
                        retained: true,
                    });
                }
            }
            if self.fast.is_some() {
                if room == 0 {
                    break;
                }
                if !self.fast_step(limit, last) && self.read_failed(&mut fault) {
                    break;
                }
                continue;
            }
            if let Some(w) = self.wrapped.as_mut() {
                // Shift the bytes up to `limit` (one byte short of it while the next is
                // unknown), feed them, and at the segment's end take the verdict.
                let upto = if last || w.shift == 0 {
                    limit
                } else {
                    limit.saturating_sub(1).max(self.pos)
                };
                let bytes = &self.buf[self.pos..limit];
                blocks::push_shifted(bytes, upto - self.pos, w.shift, &mut w.input);
                self.pos = upto;
                let at_end = last && upto == limit;
                let (used, progress) = self.seg.feed(&w.input, at_end, out, room);
                w.input.drain(..used);
                w.fed += used as u64;
                match progress {
                    Progress::Full => break,
                    Progress::Input if at_end => {
                        let w = self.wrapped.take().expect("wrapped");
                        let end = self.base + limit as u64;
                        let at_eof = self.end.is_none();
                        let seg = std::mem::replace(&mut self.seg, Segment::new(0));
                        let verdict = seg
                            .finish(w.fed, at_eof)
                            .map(|err| blocks::wrapped_error(err, w.stream, end));
                        if self.next_segment(limit, verdict, &mut fault) {
                            break;
                        }
                    }
                    Progress::Input => {
                        if self.read_failed(&mut fault) {
                            break;
                        }
                    }
                }
                continue;
            }
            let (used, progress) = if self.skip > 0 {
                let mut dropped = std::mem::take(&mut self.carry);
                dropped.clear();
                let n = self.skip.min(CHUNK as u64) as usize;
                let fed = self
                    .seg
                    .feed(&self.buf[self.pos..limit], last, &mut dropped, n);
                self.skip -= dropped.len() as u64;
                self.carry = dropped;
                self.carry_pos = self.carry.len();
                fed
            } else {
                self.seg.feed(&self.buf[self.pos..limit], last, out, room)
            };
            self.pos += used;
            match progress {
                Progress::Full if self.skip > 0 => {}
                Progress::Full => break,
                Progress::Input if last => {
                    let end = self.base + limit as u64;
                    let at_eof = self.end.is_none();
                    let seg = std::mem::replace(&mut self.seg, Segment::new(0));
                    let verdict = seg.finish(end, at_eof);
                    if self.next_segment(limit, verdict, &mut fault) {
                        break;
                    }
                }
                Progress::Input => {
                    if self.read_failed(&mut fault) {
                        break;
                    }
                }
            }
        }
        let got = out.len() - start;
        self.total += got as u64;
        match fault {
            Some(err) if got == 0 => Err(err),
            Some(err) => {
                self.pending = Some(err);
                Ok(got)
            }
            None => Ok(got),
        }
    }
}

/// One unit of a parallel job's output, in order.
enum Piece {
    Data(Vec<u8>),
    Error(Error),
    /// The job is complete (a job channel closed without it means its worker died).
    Done,
}

/// Decoded bytes produced by the workers and not yet taken by the reader, and the most there
/// ever were (what the bounds on jobs and pieces are for; checked by the tests).
#[derive(Default)]
struct InFlight {
    now: AtomicUsize,
    peak: AtomicUsize,
}

impl InFlight {
    fn add(&self, n: usize) {
        let now = self.now.fetch_add(n, Ordering::Relaxed) + n;
        self.peak.fetch_max(now, Ordering::Relaxed);
    }

    fn sub(&self, n: usize) {
        self.now.fetch_sub(n, Ordering::Relaxed);
    }
}

/// Parallel bzip2 decoding, block by block ([`blocks`]): a splitter thread reads the compressed
/// input, finds the segment starts and the candidate blocks in each segment, and hands each
/// candidate to one of `threads` workers; a resolver thread takes the verdicts in input order
/// and sends the output on through one bounded channel of pieces. Memory: a few compressed
/// blocks and at most 8 MiB of output per job in flight (about `3 * threads` jobs), whatever the
/// data decompresses to.
pub(crate) struct Bz2Parallel {
    order: Receiver<Receiver<Piece>>,
    current: Option<Receiver<Piece>>,
    carry: Vec<u8>,
    carry_pos: usize,
    total: u64,
    pending: Option<Error>,
    done: bool,
    in_flight: Arc<InFlight>,
}

impl Bz2Parallel {
    /// Starts the splitter and the workers. `prefix` holds bytes already read from `inner`
    /// (format sniffing).
    pub(crate) fn new<R: Read + Send + 'static>(prefix: Vec<u8>, inner: R, threads: usize) -> Self {
        let threads = threads.max(1);
        let in_flight = Arc::new(InFlight::default());
        let (work_tx, work_rx) = bounded::<blocks::BlockJob>(threads);
        let (order_tx, order_rx) = bounded::<Receiver<Piece>>(2 * threads);
        for _ in 0..threads {
            let work_rx = work_rx.clone();
            thread::spawn(move || {
                let mut decoder = blocks::BlockDecoder::new();
                for job in work_rx {
                    blocks::decode_block(job, &mut decoder);
                }
            });
        }
        let splitter_flight = Arc::clone(&in_flight);
        thread::spawn(move || {
            let splitter = Splitter {
                work_tx,
                order_tx,
                in_flight: splitter_flight,
                threads,
            };
            splitter.run(prefix, inner);
        });
        Bz2Parallel {
            order: order_rx,
            current: None,
            carry: Vec::new(),
            carry_pos: 0,
            total: 0,
            pending: None,
            done: false,
            in_flight,
        }
    }

    /// The next piece in input order; `None` at the end.
    fn next_piece(&mut self) -> Option<Piece> {
        loop {
            let current = match &self.current {
                Some(c) => c,
                None => {
                    self.current = Some(self.order.recv().ok()?);
                    continue;
                }
            };
            match current.recv() {
                Ok(Piece::Done) => self.current = None,
                Ok(piece) => return Some(piece),
                Err(_) => {
                    // A worker stopped without finishing its job: it cannot panic on bad input,
                    // so this is a bug or an abort; say so rather than lose data silently.
                    self.current = None;
                    return Some(Piece::Error(Error::Io {
                        what: "compressed input".into(),
                        source: io::Error::other("a bzip2 decompression thread stopped"),
                    }));
                }
            }
        }
    }

    /// The most decoded bytes that were waiting in jobs at once.
    #[cfg(test)]
    fn peak_in_flight(&self) -> usize {
        self.in_flight.peak.load(Ordering::Relaxed)
    }
}

impl Source for Bz2Parallel {
    fn fill(&mut self, out: &mut Vec<u8>) -> Result<usize, Error> {
        if let Some(err) = self.pending.take() {
            return Err(err);
        }
        let want = to_boundary(self.total);
        let mut got = 0;
        while got < want && !self.done {
            if self.carry_pos < self.carry.len() {
                let n = (want - got).min(self.carry.len() - self.carry_pos);
                out.extend_from_slice(&self.carry[self.carry_pos..self.carry_pos + n]);
                self.carry_pos += n;
                got += n;
                continue;
            }
            match self.next_piece() {
                Some(Piece::Data(data)) => {
                    self.in_flight.sub(data.len());
                    self.carry = data;
                    self.carry_pos = 0;
                }
                Some(Piece::Error(err)) => {
                    if err.is_fatal() {
                        self.done = true;
                    }
                    if got == 0 {
                        return Err(err);
                    }
                    self.pending = Some(err);
                    break;
                }
                Some(Piece::Done) | None => self.done = true,
            }
        }
        self.total += got as u64;
        Ok(got)
    }
}

/// Sends a piece, counting its bytes in flight; false when the reader has gone away.
fn send(reply: &Sender<Piece>, piece: Piece, in_flight: &InFlight) -> bool {
    let n = match &piece {
        Piece::Data(d) => d.len(),
        _ => 0,
    };
    in_flight.add(n);
    if reply.send(piece).is_err() {
        in_flight.sub(n);
        return false;
    }
    true
}

struct Splitter {
    work_tx: Sender<blocks::BlockJob>,
    order_tx: Sender<Receiver<Piece>>,
    in_flight: Arc<InFlight>,
    threads: usize,
}

impl Splitter {
    fn run<R: Read + Send>(&self, prefix: Vec<u8>, inner: R) {
        blocks::split(self, 0, prefix, inner, false, self.threads);
    }
}

mod blocks;
#[cfg(test)]
mod tests;
