//! Parallel decoding of one bzip2 stream, block by block.
//!
//! A bzip2 stream is a header (`BZh1`..`BZh9`), blocks, and an end-of-stream record. Each block
//! begins with the 48-bit magic `0x314159265359` and its CRC-32, at any bit offset; the
//! end-of-stream record is the magic `0x177245385090` and the combined CRC of the blocks. A block
//! decodes on its own, so a large stream can be decoded on several threads: the splitter scans
//! the compressed bits for both magics (*candidates*) and hands each candidate block, the bits
//! from one candidate to the next, to a worker. The worker wraps those bits in a stream of their
//! own (a header, the block shifted to a byte boundary, an end-of-stream record carrying the
//! block's CRC) and decodes it with the same decoder as the sequential path, which checks the
//! block's CRC and that the block ends exactly at the next candidate.
//!
//! A magic can also occur by chance inside compressed data. The [`resolve`] thread takes the
//! results in input order, folds the verified block CRCs into the combined CRC checked at the
//! end-of-stream record, and repairs what a false candidate breaks: a block that does not decode
//! is tried again together with the candidates after it (a real block is at most
//! [`MAX_BLOCK_BITS`] long). When no span decodes, the stream is damaged at that block, and the
//! rest of the segment is decoded sequentially from there, so the output and the error are those
//! of the sequential path (a corrupt block is decoded by the same decoder from the same bits).
//! Each block's output is checked by its CRC before any of it is handed on.
use std::collections::VecDeque;

use super::*;

/// The block magic, 0x314159265359 (the digits of pi).
pub(super) const BLOCK_MAGIC: u64 = 0x3141_5926_5359;
/// The end-of-stream magic, 0x177245385090 (the digits of the square root of pi).
pub(super) const END_MAGIC: u64 = 0x1772_4538_5090;
const MASK48: u64 = (1 << 48) - 1;
/// More compressed bits than any block can take: 900,000 symbols of at most 20 bits, the
/// selectors and the tables.
pub(super) const MAX_BLOCK_BITS: u64 = 24 << 20;
/// Output of one block a worker hands to the resolver; a larger block (only bombs of long runs
/// come near: a 900 kB block can hold about 46 MB) is decoded again by the resolver, streaming.
const MAX_BLOCK_OUTPUT: usize = JOB_PIECES * CHUNK;

fn max_block_output() -> usize {
    #[cfg(test)]
    {
        let small = tests_hook::MAX_BLOCK_OUTPUT.load(std::sync::atomic::Ordering::Relaxed);
        if small > 0 {
            return small;
        }
    }
    MAX_BLOCK_OUTPUT
}

/// What a candidate position holds, if it is real.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Mark {
    Block,
    End,
}

/// `n` (at most 57) bits of `buf` from bit `bit`, MSB first; `None` past the end.
pub(super) fn bits(buf: &[u8], bit: u64, n: u32) -> Option<u64> {
    let first = (bit / 8) as usize;
    let last = (bit + u64::from(n)).div_ceil(8) as usize;
    if n == 0 || last > buf.len() {
        return if n == 0 { Some(0) } else { None };
    }
    let mut v = 0u64;
    for &b in &buf[first..last] {
        v = (v << 8) | u64::from(b);
    }
    let have = (last - first) as u32 * 8;
    let skip = (bit % 8) as u32;
    Some((v >> (have - skip - n)) & ((1u64 << n) - 1))
}

/// Whether a byte can be the third byte of an 8-byte window holding a magic at bit offset 0..7
/// of its first byte: that byte lies inside the magic at every offset (bits `24 + s..32 + s`), so
/// only 16 of the 256 values need the full check.
const THIRD_BYTE: [bool; 256] = {
    let mut table = [false; 256];
    let mut s = 0;
    while s < 8 {
        table[((BLOCK_MAGIC >> (24 + s)) & 0xff) as usize] = true;
        table[((END_MAGIC >> (24 + s)) & 0xff) as usize] = true;
        s += 1;
    }
    table
};

/// The candidates in `buf` at bit positions `from..to` (relative to `buf[0]`), appended to
/// `out` in order. Every position needs 6 bytes from its first; the caller keeps `to` within
/// what `buf` holds.
fn scan(buf: &[u8], from: u64, to: u64, out: &mut Vec<(u64, Mark)>) {
    let mut byte = (from / 8) as usize;
    while (byte as u64) * 8 < to {
        if !buf.get(byte + 2).is_some_and(|&b| THIRD_BYTE[b as usize]) {
            byte += 1;
            continue;
        }
        let mut w = [0u8; 8];
        let have = buf.len().saturating_sub(byte).min(8);
        w[..have].copy_from_slice(&buf[byte..byte + have]);
        let window = u64::from_be_bytes(w);
        for shift in 0..8u64 {
            let at = byte as u64 * 8 + shift;
            if at < from || at >= to {
                continue;
            }
            let v = (window >> (16 - shift)) & MASK48;
            if v == BLOCK_MAGIC {
                out.push((at, Mark::Block));
            } else if v == END_MAGIC {
                out.push((at, Mark::End));
            }
        }
        byte += 1;
    }
}

/// A stream of its own holding `nbits` bits of `src` from bit `from`: the header for `level`,
/// those bits moved to a byte boundary, and, if `crc` is given, an end-of-stream record with that
/// combined CRC (the bits are one block with that CRC). Bits past the end of `src` are zeros.
fn wrap(level: u8, src: &[u8], from: u64, nbits: u64, crc: Option<u32>) -> Vec<u8> {
    let mut out = Vec::with_capacity((nbits / 8) as usize + 16);
    out.extend_from_slice(b"BZh");
    out.push(level);
    let mut w = BitWriter {
        out,
        cur: 0,
        used: 0,
    };
    let whole = nbits / 8;
    let shift = (from % 8) as u32;
    let start = (from / 8) as usize;
    let at = |i: usize| src.get(i).copied().unwrap_or(0);
    if shift == 0 {
        let end = (start + whole as usize).min(src.len());
        w.out.extend_from_slice(&src[start.min(end)..end]);
        w.out.resize(4 + whole as usize, 0);
    } else {
        for i in 0..whole as usize {
            let b = (at(start + i) << shift) | (at(start + i + 1) >> (8 - shift));
            w.out.push(b);
        }
    }
    let rest = (nbits % 8) as u32;
    if rest > 0 {
        let bit = from + whole * 8;
        let v = bits(src, bit, rest).unwrap_or(0);
        w.push(v, rest);
    }
    if let Some(crc) = crc {
        w.push(END_MAGIC, 48);
        w.push(u64::from(crc), 32);
    }
    w.finish()
}

/// Appends `n` bytes made of the bits of `bytes` from bit `shift` of its first byte (the bits
/// moved to a byte boundary); bits past `bytes` are zeros.
pub(super) fn push_shifted(bytes: &[u8], n: usize, shift: u32, out: &mut Vec<u8>) {
    if shift == 0 {
        out.extend_from_slice(&bytes[..n]);
        return;
    }
    for k in 0..n {
        let lo = bytes.get(k + 1).copied().unwrap_or(0);
        out.push((bytes[k] << shift) | (lo >> (8 - shift)));
    }
}

/// The error of a stream that was decoded, from a failing block on, as a wrapped stream of its
/// own (`err` is that stream's verdict), as the real stream's: at `stream`, up to `end`.
pub(super) fn wrapped_error(err: Error, stream: u64, end: u64) -> Error {
    Error::Bzip2 {
        compressed_offset: stream,
        compressed_end: end,
        message: match err {
            Error::Bzip2 { message, .. } => message,
            // Junk after the real end-of-stream record: the combined CRC (of the blocks before
            // the failing one too) cannot match, so this is not reached for a sound stream.
            _ => "corrupt data (bad block or checksum)".into(),
        },
    }
}

struct BitWriter {
    out: Vec<u8>,
    cur: u64,
    used: u32,
}

impl BitWriter {
    /// Appends the low `n` (at most 48) bits of `v`, MSB first.
    fn push(&mut self, v: u64, n: u32) {
        self.cur = (self.cur << n) | (v & ((1u64 << n) - 1));
        self.used += n;
        while self.used >= 8 {
            self.used -= 8;
            self.out.push((self.cur >> self.used) as u8);
        }
        self.cur &= (1u64 << self.used) - 1;
    }

    fn finish(mut self) -> Vec<u8> {
        if self.used > 0 {
            self.out.push((self.cur << (8 - self.used)) as u8);
        }
        self.out
    }
}

/// How a worker's block came out.
enum Decoded {
    /// The block decoded, its CRC checked, and it ended exactly where the next candidate begins.
    Block(Vec<u8>),
    /// More than [`MAX_BLOCK_OUTPUT`]: not kept; the resolver decodes it again, streaming.
    TooBig,
    /// Not a block from here to the next candidate.
    Failed,
}

/// A candidate block for a worker: the compressed bytes from the byte holding its first bit to
/// the byte holding its last, the bit it starts at in them, and its length in bits.
pub(super) struct BlockJob {
    level: u8,
    bytes: Vec<u8>,
    from: u64,
    nbits: u64,
    reply: Sender<Decoded>,
}

/// Decodes `stream` (a wrapped span) to its end. `sink` gets the output piece by piece and may
/// stop the decoding by returning false. True when the stream decoded completely and used all
/// its bytes (so the span was whole blocks and the CRCs matched).
fn decode_wrapped(stream: &[u8], mut sink: impl FnMut(&[u8]) -> bool) -> bool {
    let mut dec = Decompress::new(false);
    let mut buf = vec![0u8; CHUNK];
    loop {
        let (in0, out0) = (dec.total_in(), dec.total_out());
        let res = dec.decompress(&stream[in0 as usize..], &mut buf);
        let wrote = (dec.total_out() - out0) as usize;
        let read = dec.total_in() - in0;
        if wrote > 0 && !sink(&buf[..wrote]) {
            return false;
        }
        match res {
            Ok(Status::StreamEnd) => return dec.total_in() as usize == stream.len(),
            Ok(_) if read == 0 && wrote == 0 => return false,
            Ok(_) => {}
            Err(_) => return false,
        }
    }
}

/// Candidate blocks decoded by workers (tests check that large streams take this path).
#[cfg(test)]
pub(super) static BLOCKS_DECODED: AtomicUsize = AtomicUsize::new(0);

/// Panics of the workers' decoder caught (tests check the damage tests reach them).
#[cfg(test)]
pub(super) static PANICS_CAUGHT: AtomicUsize = AtomicUsize::new(0);

/// The block decoder of both paths: the `mibz2` crate's (pure Rust; its inverse BWT walks
/// twelve interleaved chains; 0.44x the CPU of the `lbzip2` crate's decoder, used before, on
/// Wikipedia XML, docs/performance.md), with its buffers (about 9 MB at the 900 kB
/// block size: the symbols, the move-to-front output, the T-vector and the walk's output) kept
/// from block to block. One for each decoding thread.
pub(super) struct BlockDecoder {
    scratch: mibz2::Scratch,
    syms: Vec<u16>,
    kernels: mibz2::Kernels,
}

impl BlockDecoder {
    /// A decoder with the fastest kernels this CPU has; its buffers grow with the first block.
    pub(super) fn new() -> Self {
        BlockDecoder {
            scratch: mibz2::Scratch::default(),
            syms: Vec::new(),
            kernels: mibz2::Kernels::detect(),
        }
    }

    /// Decodes the block whose magic is at bit `at` of `buf`, for block size digit `level`, into
    /// `out` (cleared first; its allocation is reused): the bit where the block ends, if it
    /// decoded and its CRC matched (else `out` holds nothing of use). Bits past `buf` do not
    /// exist (a block cut there does not decode). A panic of the decoder counts as not decoding
    /// (none is known; its buffers are then made anew).
    pub(super) fn decode(
        &mut self,
        buf: &[u8],
        at: u64,
        level: u8,
        out: &mut Vec<u8>,
    ) -> Option<u64> {
        use mibz2::block::Item;
        let level = u32::from(level.saturating_sub(b'0'));
        out.clear();
        let decoded = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let mut bits = mibz2::bits::Bits::at(buf, at);
            let item = mibz2::block::read_item(&mut bits, level, std::mem::take(&mut self.syms));
            let (end, cut) = (bits.bit_pos(), bits.overran());
            match item {
                Ok(Item::Block(symbols)) => {
                    let ok = !cut
                        && mibz2::decode_block(&symbols, self.kernels, &mut self.scratch, out)
                            .is_ok();
                    self.syms = symbols.syms;
                    ok.then_some(end)
                }
                Ok(Item::End(_)) => None,
                Err((_, syms)) => {
                    self.syms = syms;
                    None
                }
            }
        }));
        decoded.unwrap_or_else(|_| {
            #[cfg(test)]
            PANICS_CAUGHT.fetch_add(1, Ordering::Relaxed);
            *self = BlockDecoder::new();
            out.clear();
            None
        })
    }
}

/// The sequential path's second try at a block at bit `p` of `buf` that [`BlockDecoder`]
/// refused: libbz2-rs (the decoder of [`Segment`]) on the bits from `p` to each later candidate
/// magic before bit `limit`, within a block's reach, as a stream of its own with the CRC stored
/// at `p`. The output and the end of the first span that is one whole block; `None` when there
/// is none (the block is damaged).
pub(super) fn repair_block(buf: &[u8], p: u64, limit: u64, level: u8) -> Option<(Vec<u8>, u64)> {
    let crc = bits(buf, p + 48, 32)? as u32;
    let mut cands = Vec::new();
    let to = limit.min(p + MAX_BLOCK_BITS).min(buf.len() as u64 * 8);
    scan(buf, p + 1, to, &mut cands);
    for (end, _) in cands {
        let stream = wrap(level, buf, p, end - p, Some(crc));
        let mut out = Vec::new();
        if decode_wrapped(&stream, |piece| {
            out.extend_from_slice(piece);
            true
        }) {
            return Some((out, end));
        }
    }
    None
}

/// A worker's part: decode one candidate block with its [`BlockDecoder`]. Its output is taken only
/// if the block's CRC matched and the block ended exactly at the next candidate; anything else
/// is left to the resolver, which decodes with the sequential path's decoder.
pub(super) fn decode_block(job: BlockJob, decoder: &mut BlockDecoder) {
    #[cfg(test)]
    BLOCKS_DECODED.fetch_add(1, Ordering::Relaxed);
    let mut out = Vec::new();
    let verdict = match decoder.decode(&job.bytes, job.from, job.level, &mut out) {
        Some(end) if end == job.from + job.nbits => {
            if out.len() > max_block_output() {
                Decoded::TooBig
            } else {
                Decoded::Block(out)
            }
        }
        _ => Decoded::Failed,
    };
    let _ = job.reply.send(verdict);
}

/// What the splitter tells the resolver of one segment, in input order.
enum Msg {
    /// The segment's next compressed bytes (contiguous with the ones before).
    Bytes(Vec<u8>),
    /// A candidate at absolute bit `at`; for a block, the worker's verdict on the bits from `at`
    /// to the next candidate (or the segment's end).
    Candidate {
        at: u64,
        mark: Mark,
        verdict: Option<Receiver<Decoded>>,
    },
    /// The segment ends at absolute byte `end`; `at_eof`: the input ends there.
    End { end: u64, at_eof: bool },
}

/// The compressed bytes the resolver holds: `bytes[0]` is at absolute byte `offset`.
struct Window {
    offset: u64,
    bytes: VecDeque<u8>,
}

impl Window {
    /// Absolute bytes `from..to` (as far as held).
    fn get(&self, from: u64, to: u64) -> Vec<u8> {
        let a = (from.saturating_sub(self.offset) as usize).min(self.bytes.len());
        let b = (to.saturating_sub(self.offset) as usize).min(self.bytes.len());
        self.bytes.range(a..b.max(a)).copied().collect()
    }

    /// Forgets the bytes before absolute byte `to`.
    fn drop_before(&mut self, to: u64) {
        let n = (to.saturating_sub(self.offset) as usize).min(self.bytes.len());
        self.bytes.drain(..n);
        self.offset += n as u64;
    }

    fn end(&self) -> u64 {
        self.offset + self.bytes.len() as u64
    }
}

/// The resolver of one segment that starts with a stream (at absolute byte `base`, block size
/// digit `level`): reads the splitter's messages and sends the segment's output and error, in
/// order, to `tx`, as [`Bz2Seq`] would produce them.
fn resolve(base: u64, rx: Receiver<Msg>, tx: Sender<Piece>, flight: &InFlight) {
    let mut r = Resolver {
        base,
        level: b'9',
        rx,
        tx,
        flight,
        window: Window {
            offset: base,
            bytes: VecDeque::new(),
        },
        cands: VecDeque::new(),
        end: None,
        gone: false,
    };
    loop {
        // The segment's first bytes tell whether it starts a stream, and its block size.
        while r.window.end() < r.base + 10 && r.read() {}
        let head = r.window.get(r.base, r.base + 10);
        r.level = head.get(3).copied().unwrap_or(b'9');
        if is_stream_start(&head, 0) {
            r.run();
        } else {
            r.sequential(Segment::new(r.base), r.base * 8, false);
        }
        if r.gone {
            return;
        }
        // Anything left of the segment (after a repair or an error) is not needed.
        while r.read() {}
        let Some((end, at_eof)) = r.end.take() else {
            break;
        };
        if at_eof {
            break;
        }
        // Another stream starts at `end`: the next segment.
        r.window.drop_before(end);
        r.cands.clear();
        r.base = end;
    }
    let _ = r.tx.send(Piece::Done);
}

struct Resolver<'a> {
    base: u64,
    level: u8,
    rx: Receiver<Msg>,
    tx: Sender<Piece>,
    flight: &'a InFlight,
    window: Window,
    /// Candidates read and not yet passed: (bit, mark, verdict).
    cands: VecDeque<(u64, Mark, Option<Receiver<Decoded>>)>,
    /// The segment's end, once told.
    end: Option<(u64, bool)>,
    /// The reader has gone away.
    gone: bool,
}

impl Resolver<'_> {
    /// Reads one message; false when there are no more (the end was told, or the splitter went).
    fn read(&mut self) -> bool {
        if self.end.is_some() {
            return false;
        }
        match self.rx.recv() {
            Ok(msg) => self.take(msg),
            Err(_) => self.end = Some((self.window.end(), true)),
        }
        true
    }

    fn take(&mut self, msg: Msg) {
        match msg {
            Msg::Bytes(b) => self.window.bytes.extend(b),
            Msg::Candidate { at, mark, verdict } => self.cands.push_back((at, mark, verdict)),
            Msg::End { end, at_eof } => self.end = Some((end, at_eof)),
        }
    }

    /// Reads until `n` candidates are held or the end is known.
    fn want(&mut self, n: usize) {
        while self.cands.len() < n && self.read() {}
    }

    /// Hands a block's output on (the reader takes pieces of any size).
    fn emit(&mut self, data: Vec<u8>) -> bool {
        if self.gone || data.is_empty() {
            return !self.gone;
        }
        if !send(&self.tx, Piece::Data(data), self.flight) {
            self.gone = true;
        }
        !self.gone
    }

    /// The position where the candidate after the first held one starts, or the segment's end.
    fn next_after_first(&mut self) -> u64 {
        self.want(2);
        match self.cands.get(1) {
            Some(&(at, _, _)) => at,
            None => self.end.map_or(self.window.end(), |(e, _)| e) * 8,
        }
    }

    /// Whether the worker decoded the second held candidate as a whole block (its verdict is
    /// kept for later).
    fn next_is_a_block(&mut self) -> bool {
        let Some(rx) = self.cands.get_mut(1).and_then(|c| c.2.take()) else {
            return false;
        };
        let Ok(verdict) = rx.recv() else {
            return false;
        };
        let whole = matches!(verdict, Decoded::Block(_));
        let (tx, rx) = bounded(1);
        let _ = tx.send(verdict);
        if let Some(c) = self.cands.get_mut(1) {
            c.2 = Some(rx);
        }
        whole
    }

    /// The bits `from..to` as a wrapped single-block stream with the CRC stored at `from`.
    fn wrapped_block(&self, from: u64, to: u64) -> Option<Vec<u8>> {
        let first = from / 8;
        let bytes = self.window.get(first, to.div_ceil(8));
        let crc = bits(&bytes, from - first * 8 + 48, 32)? as u32;
        Some(wrap(
            self.level,
            &bytes,
            from - first * 8,
            to - from,
            Some(crc),
        ))
    }

    fn run(&mut self) {
        // Bit where the next block or end-of-stream record must begin; combined CRC so far.
        let first = (self.base + 4) * 8;
        let mut p = first;
        let mut combined = 0u32;
        loop {
            if self.gone {
                return;
            }
            self.want(1);
            while self.cands.front().is_some_and(|c| c.0 < p) {
                self.cands.pop_front();
                self.want(1);
            }
            if p > first {
                self.window.drop_before(p / 8);
            }
            let Some(&(at, mark, _)) = self.cands.front() else {
                return self.sequential_from(p);
            };
            if at != p {
                return self.sequential_from(p);
            }
            if mark == Mark::End {
                return self.stream_end(p, combined);
            }
            let end = self.next_after_first();
            let verdict = self.cands.front_mut().and_then(|c| c.2.take());
            let crc = bits(&self.window.get(p / 8, p / 8 + 11), p % 8 + 48, 32);
            let Some(crc) = crc else {
                return self.sequential_from(p);
            };
            match verdict.and_then(|v| v.recv().ok()) {
                Some(Decoded::Block(out)) => {
                    if !self.emit(out) {
                        return;
                    }
                    combined = combined.rotate_left(1) ^ crc as u32;
                    p = end;
                    continue;
                }
                Some(Decoded::TooBig) if self.verify_and_emit(p, end) => {
                    combined = combined.rotate_left(1) ^ crc as u32;
                    p = end;
                    continue;
                }
                _ => {}
            }
            // The block from `p` is longer than the next candidate says (a magic by chance
            // inside it), or damaged, or beyond the worker's decoder: try it with this decoder
            // to the next candidate and to each later one within a block's reach.
            let mut merged = None;
            let mut k = 1;
            loop {
                self.want(k + 1);
                let to = match self.cands.get(k) {
                    Some(&(at, _, _)) => at,
                    None => match self.end {
                        Some((e, _)) if k == self.cands.len() => e * 8,
                        _ => break,
                    },
                };
                if to - p > MAX_BLOCK_BITS {
                    break;
                }
                if self.verify_and_emit(p, to) {
                    merged = Some(to);
                    break;
                }
                if self.gone || k >= self.cands.len() || (k == 1 && self.next_is_a_block()) {
                    // A block decoded whole from the next candidate: that one was real, so the
                    // block from `p` is damaged, not cut by a false magic.
                    break;
                }
                k += 1;
            }
            match merged {
                Some(to) => {
                    combined = combined.rotate_left(1) ^ crc as u32;
                    p = to;
                }
                None => return self.sequential_from(p),
            }
        }
    }

    /// Decodes the bits `from..to` as one block: first to check it (output dropped), then, if
    /// it is whole, again to send the output. True if it was a block.
    fn verify_and_emit(&mut self, from: u64, to: u64) -> bool {
        let Some(stream) = self.wrapped_block(from, to) else {
            return false;
        };
        if !decode_wrapped(&stream, |_| true) {
            return false;
        }
        let (tx, flight) = (&self.tx, self.flight);
        let mut gone = false;
        decode_wrapped(&stream, |piece| {
            gone = !send(tx, Piece::Data(piece.to_vec()), flight);
            !gone
        });
        self.gone |= gone;
        true
    }

    /// The end-of-stream record at bit `p`: checks the combined CRC, then decodes the rest of
    /// the segment (normally nothing; else empty streams or junk) as the sequential path does.
    fn stream_end(&mut self, p: u64, combined: u32) {
        while self.window.end() < p / 8 + 11 && self.read() {}
        let stored = bits(&self.window.get(p / 8, p / 8 + 11), p % 8 + 48, 32);
        if stored == Some(u64::from(combined)) {
            let tail = (p + 80).div_ceil(8);
            return self.sequential(Segment::new(tail), tail * 8, false);
        }
        // The sequential decoder fails at this record, after all the output before it.
        while self.read() {}
        let (end, at_eof) = self.end.unwrap_or((self.window.end(), true));
        let message = if stored.is_some() {
            "corrupt data (bad block or checksum)"
        } else if at_eof {
            "the input ends inside it (cut off)"
        } else {
            "another stream starts before its end (cut off or damaged)"
        };
        let err = Error::Bzip2 {
            compressed_offset: self.base,
            compressed_end: end,
            message: message.into(),
        };
        let _ = send(&self.tx, Piece::Error(err), self.flight);
    }

    /// Decodes the rest of the segment from bit `p` on this thread, as the sequential path does
    /// from there: from the stream's start if no block was decoded yet, else the remaining bits
    /// wrapped in a stream of their own (the combined CRC so far is then of no use: a stream
    /// damaged at `p` fails before its end).
    fn sequential_from(&mut self, p: u64) {
        if p == (self.base + 4) * 8 {
            self.sequential(Segment::new(self.base), self.base * 8, false);
        } else {
            self.sequential(Segment::new(0), p, true);
        }
    }

    /// Feeds the segment's bytes from bit `p` to its end to `seg` as they arrive, sending its
    /// output and verdict. `wrapped`: the bits are moved to a byte boundary behind a stream
    /// header first (`p` need not be byte-aligned), and the errors name the real stream;
    /// otherwise `p` is byte-aligned and `seg` starts there.
    fn sequential(&mut self, mut seg: Segment, p: u64, wrapped: bool) {
        let shift = (p % 8) as u32;
        let mut next = p / 8;
        let mut input = Vec::new();
        if wrapped {
            input.extend_from_slice(b"BZh");
            input.push(self.level);
        }
        let mut fed = 0u64;
        loop {
            let at_end = self.end.is_some();
            let avail = self.window.end();
            let upto = if shift == 0 || at_end {
                avail
            } else {
                avail.saturating_sub(1)
            };
            if upto > next {
                let bytes = self.window.get(next, upto + 1);
                push_shifted(&bytes, (upto - next) as usize, shift, &mut input);
                next = upto;
                self.window.drop_before(next);
            }
            let mut used = 0;
            loop {
                let mut piece = Vec::new();
                let (n, progress) = seg.feed(&input[used..], at_end, &mut piece, CHUNK);
                used += n;
                if !piece.is_empty() && !send(&self.tx, Piece::Data(piece), self.flight) {
                    self.gone = true;
                    return;
                }
                if progress == Progress::Input {
                    break;
                }
            }
            input.drain(..used);
            fed += used as u64;
            if at_end {
                break;
            }
            self.read();
            // Workers' verdicts on the rest are not needed: drop them as they come.
            self.cands.clear();
        }
        let (end, at_eof) = self.end.unwrap_or((self.window.end(), true));
        let err = if wrapped {
            seg.finish(fed, at_eof)
                .map(|err| wrapped_error(err, self.base, end))
        } else {
            seg.finish(end, at_eof)
        };
        if let Some(err) = err {
            let _ = send(&self.tx, Piece::Error(err), self.flight);
        }
    }
}

/// The splitter's side: reads the segments of the input from absolute byte `base` (a stream
/// start; `buf` holds the bytes read from there so far) and queues each segment's blocks.
/// Returns when the input ends or the reader goes away.
pub(super) fn split<R: Read + Send>(
    splitter: &Splitter,
    mut base: u64,
    mut buf: Vec<u8>,
    mut inner: R,
    mut eof: bool,
    threads: usize,
) {
    let mut read_error = None;
    let (tx, rx) = bounded(JOB_PIECES);
    if splitter.order_tx.send(rx).is_err() {
        return;
    }
    let (mtx, mrx) = bounded::<Msg>(2 * threads + 2);
    let flight = Arc::clone(&splitter.in_flight);
    thread::spawn(move || resolve(base, mrx, tx, &flight));
    loop {
        // One segment from `base`, where `buf[0]` is (a stream start but perhaps for the first).
        let level = buf.get(3).copied().unwrap_or(b'9');
        // Bits of `buf` checked for candidates, bytes sent, the pending candidate block.
        let mut scanned = 32u64;
        let mut sent = 0usize;
        let mut open: Option<u64> = None;
        let mut found = Vec::new();
        let mut starts_scanned = 1usize;
        let mut seg_end: Option<usize> = None;
        loop {
            if seg_end.is_none() {
                let (next, upto) = next_start(&buf, starts_scanned, eof);
                starts_scanned = upto;
                seg_end = next;
            }
            let (limit_byte, last) = match seg_end {
                Some(e) => (e, true),
                None if eof => (buf.len(), true),
                None => (starts_scanned.min(buf.len().saturating_sub(11)), false),
            };
            let to = if last {
                (limit_byte as u64 * 8).saturating_sub(47)
            } else {
                limit_byte as u64 * 8
            };
            found.clear();
            if to > scanned {
                scan(&buf, scanned, to, &mut found);
                #[cfg(test)]
                tests_hook::add_false_candidates(&mut found);
                scanned = to;
            }
            // Bytes first, so the resolver holds what each candidate needs.
            let send_to = if last {
                limit_byte
            } else {
                limit_byte.min(buf.len())
            };
            if send_to > sent {
                if mtx.send(Msg::Bytes(buf[sent..send_to].to_vec())).is_err() {
                    return;
                }
                sent = send_to;
            }
            let abs = base * 8;
            for &(at, mark) in &found {
                if let Some(from) = open.take()
                    && !dispatch(splitter, &mtx, level, &buf, abs, from, at)
                {
                    return;
                }
                match mark {
                    Mark::Block => open = Some(at),
                    Mark::End => {
                        let msg = Msg::Candidate {
                            at: abs + at,
                            mark,
                            verdict: None,
                        };
                        if mtx.send(msg).is_err() {
                            return;
                        }
                    }
                }
            }
            if last {
                let seg_bits = limit_byte as u64 * 8;
                if let Some(from) = open.take()
                    && !dispatch(splitter, &mtx, level, &buf, abs, from, seg_bits)
                {
                    return;
                }
                let at_eof = seg_end.is_none();
                let end = base + limit_byte as u64;
                if mtx.send(Msg::End { end, at_eof }).is_err() {
                    return;
                }
                buf.drain(..limit_byte);
                base = end;
                break;
            }
            // Keep what the pending candidate still needs; read more.
            let keep = open.map_or(sent, |from| (from / 8) as usize).min(sent);
            if keep > 0 {
                buf.drain(..keep);
                base += keep as u64;
                sent -= keep;
                starts_scanned -= keep;
                scanned -= keep as u64 * 8;
                open = open.map(|from| from - keep as u64 * 8);
            }
            match read_up_to(&mut inner, &mut buf, CHUNK) {
                Ok(n) => eof = n < CHUNK,
                Err(e) => {
                    eof = true;
                    read_error = Some(e);
                }
            }
        }
        if eof && buf.is_empty() {
            break;
        }
    }
    drop(mtx);
    if let Some(source) = read_error {
        let (tx, rx) = bounded(2);
        let _ = tx.send(Piece::Error(Error::Io {
            what: "compressed input".into(),
            source,
        }));
        let _ = tx.send(Piece::Done);
        let _ = splitter.order_tx.send(rx);
    }
}

/// Queues the candidate block from bit `from` to bit `to` of `buf` (whose bit 0 is absolute bit
/// `abs`) for a worker and tells the resolver; false when the reader has gone away.
fn dispatch(
    splitter: &Splitter,
    mtx: &Sender<Msg>,
    level: u8,
    buf: &[u8],
    abs: u64,
    from: u64,
    to: u64,
) -> bool {
    let first = (from / 8) as usize;
    let last = (to.div_ceil(8) as usize).min(buf.len());
    let (reply, verdict) = bounded(1);
    let job = BlockJob {
        level,
        bytes: buf[first..last].to_vec(),
        from: from - first as u64 * 8,
        nbits: to - from,
        reply,
    };
    let msg = Msg::Candidate {
        at: abs + from,
        mark: Mark::Block,
        verdict: Some(verdict),
    };
    mtx.send(msg).is_ok() && splitter.work_tx.send(job).is_ok()
}

#[cfg(test)]
mod scan_tests {
    use super::*;

    /// The prefiltered scan finds what a check of every bit position finds: both magics planted
    /// at every bit offset in pseudo-random bytes, and every range of positions.
    #[test]
    fn scan_finds_every_magic_at_every_bit_offset() {
        let mut x = 0x2545_f491_4f6c_dd1du64;
        let mut buf: Vec<u8> = (0..4096)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        let mut planted = Vec::new();
        for (i, shift) in (0..16u64).map(|i| (i, i % 8)) {
            let at = 100 + i * 250 * 8 + shift;
            let magic = if i % 2 == 0 { BLOCK_MAGIC } else { END_MAGIC };
            for b in 0..48 {
                let bit = at + b;
                let byte = &mut buf[(bit / 8) as usize];
                let mask = 0x80 >> (bit % 8);
                if (magic >> (47 - b)) & 1 == 1 {
                    *byte |= mask;
                } else {
                    *byte &= !mask;
                }
            }
            planted.push(at);
        }
        let naive = |from: u64, to: u64| -> Vec<u64> {
            (from..to)
                .filter(|&at| {
                    let v = bits(&buf, at, 48);
                    v == Some(BLOCK_MAGIC) || v == Some(END_MAGIC)
                })
                .collect()
        };
        let end = (buf.len() as u64 - 6) * 8;
        for (from, to) in [(0, end), (101, end), (0, 100 + 250 * 8 * 7), (3333, 9999)] {
            let mut found = Vec::new();
            scan(&buf, from, to, &mut found);
            let found: Vec<u64> = found.iter().map(|c| c.0).collect();
            assert_eq!(found, naive(from, to), "{from}..{to}");
        }
        let mut all = Vec::new();
        scan(&buf, 0, end, &mut all);
        for at in planted {
            assert!(all.iter().any(|c| c.0 == at), "{at}");
        }
    }
}

#[cfg(test)]
pub(super) mod tests_hook {
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    use super::Mark;

    /// Adds a false block candidate halfway between each two real ones (tests of the repair;
    /// the output must not change, so other tests running meanwhile are unaffected).
    pub(crate) static FALSE_CANDIDATES: AtomicBool = AtomicBool::new(false);

    /// When not 0, the most output a worker hands on (tests of the streaming path for large
    /// blocks; the output must not change either).
    pub(crate) static MAX_BLOCK_OUTPUT: AtomicUsize = AtomicUsize::new(0);

    pub(super) fn add_false_candidates(out: &mut Vec<(u64, Mark)>) {
        if !FALSE_CANDIDATES.load(Ordering::Relaxed) || out.len() < 2 {
            return;
        }
        let mut with = Vec::with_capacity(out.len() * 2);
        for w in out.windows(2) {
            with.push(w[0]);
            with.push(((w[0].0 + w[1].0) / 2, Mark::Block));
        }
        with.push(out[out.len() - 1]);
        *out = with;
    }
}
