//! Character shingles as stable fingerprints, and byte-to-character offset conversion.
//!
//! A character shingle of length `L` is a substring of `L` consecutive `char`s (Unicode scalar
//! values, not bytes, not graphemes), crossing word boundaries and whitespace as they are. A text
//! of `n` chars has `max(0, n - L + 1)` shingles, before deduplication. The fingerprint of a
//! shingle is [`textreuse_hash::fingerprint`] of its UTF-8 bytes, so it is the same on every
//! machine and can be recomputed from the shingle text alone.
use core::iter::FusedIterator;
use core::ops::Range;

use textreuse_hash::fingerprint;

#[cfg(target_arch = "x86_64")]
#[path = "chars_avx512.rs"]
mod avx512;

/// The shingle length of the seed research: 12 characters.
pub const DEFAULT_SHINGLE_LEN: usize = 12;

/// Width in bytes of the UTF-8 sequence that starts with byte `b` (1 for continuation bytes,
/// which never start a char in a `str`).
#[inline(always)]
fn utf8_width(b: u8) -> usize {
    // 0xxxxxxx and 10xxxxxx -> 1, 110xxxxx -> 2, 1110xxxx -> 3, 11110xxx -> 4; branch-free.
    1 + usize::from(b >= 0xC0) + usize::from(b >= 0xE0) + usize::from(b >= 0xF0)
}

/// The number of character shingles of length `len` in `text`: `max(0, chars - len + 1)`, or 0
/// when `len` is 0.
///
/// ```
/// use textreuse_shingle::char_shingle_count;
/// assert_eq!(char_shingle_count("abcdefghijklm", 12), 2);
/// assert_eq!(char_shingle_count("naïve", 5), 1); // five chars, six bytes
/// assert_eq!(char_shingle_count("short", 12), 0);
/// ```
#[inline]
pub fn char_shingle_count(text: &str, len: usize) -> usize {
    if len == 0 {
        return 0;
    }
    let chars = if text.is_ascii() {
        text.len()
    } else {
        text.chars().count()
    };
    chars.saturating_sub(len - 1)
}

/// The seed of `textreuse_hash::fingerprint`'s coefficients ("textreus" in ASCII).
const FINGERPRINT_SEED: u64 = 0x7465_7874_7265_7573;
/// Golden-ratio increment of SplitMix64.
const GAMMA: u64 = 0x9e37_79b9_7f4a_7c15;
/// Words per fingerprint block: strings of up to `FP_BLOCK - 1` words (248 bytes) are hashed
/// without chaining, which covers every shingle of up to 62 chars.
const FP_BLOCK: usize = 32;
/// Longest byte string the inlined fingerprint handles; longer ones call `fingerprint`.
const FP_MAX_BYTES: usize = (FP_BLOCK - 1) * 8;

const fn splitmix64(state: u64) -> u64 {
    let mut z = state;
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

const fn coefficients() -> [u128; FP_BLOCK + 1] {
    let mut out = [0u128; FP_BLOCK + 1];
    let mut state = FINGERPRINT_SEED;
    let mut i = 0;
    while i < FP_BLOCK + 1 {
        state = state.wrapping_add(GAMMA);
        let hi = splitmix64(state);
        state = state.wrapping_add(GAMMA);
        let lo = splitmix64(state);
        out[i] = ((hi as u128) << 64) | lo as u128;
        i += 1;
    }
    out
}

/// The coefficients of `textreuse_hash::fingerprint` (vector multiply-shift), recomputed here so
/// that the hot loop can inline the whole hash with unaligned word loads instead of copying each
/// shingle. Equality with `fingerprint` is checked by known-answer and property tests.
static COEFFS: [u128; FP_BLOCK + 1] = coefficients();

/// The little-endian word of `bytes[p..end]` (1 to 8 bytes), zero-padded.
#[inline(always)]
fn load_word(bytes: &[u8], p: usize, end: usize) -> u64 {
    let n = end - p;
    if let Some(chunk) = bytes.get(p..p + 8) {
        let w = u64::from_le_bytes(chunk.try_into().unwrap_or([0; 8]));
        if n >= 8 {
            w
        } else {
            w & ((1u64 << (8 * n)) - 1)
        }
    } else {
        let mut buf = [0u8; 8];
        buf[..n].copy_from_slice(&bytes[p..end]);
        u64::from_le_bytes(buf)
    }
}

/// `textreuse_hash::fingerprint(&bytes[start..end])`, inlined.
#[inline(always)]
fn fingerprint_span(bytes: &[u8], start: usize, end: usize) -> u64 {
    let len = end - start;
    if len > FP_MAX_BYTES {
        return fingerprint(&bytes[start..end]);
    }
    let mut acc = COEFFS[0];
    let mut k = 1;
    let mut p = start;
    while p < end {
        let w = load_word(bytes, p, end.min(p + 8));
        acc = acc.wrapping_add(COEFFS[k].wrapping_mul(w as u128));
        k += 1;
        p += 8;
    }
    acc = acc.wrapping_add(COEFFS[k].wrapping_mul(len as u128));
    (acc >> 64) as u64
}

/// Precomputed parts of the fixed-length fingerprint of `N` bytes.
#[derive(Clone, Copy)]
struct Fixed<const N: usize> {
    /// `c_0 + c_{words+1} * N`: the constant and the length word.
    base: u128,
    /// Mask of the valid bytes of the last word.
    mask: u64,
}

impl<const N: usize> Fixed<N> {
    const WORDS: usize = N.div_ceil(8);
    /// Bytes read per window (whole words, so up to 7 past the window).
    const SPAN: usize = Self::WORDS * 8;

    #[inline(always)]
    fn new() -> Self {
        Fixed {
            base: COEFFS[0].wrapping_add(COEFFS[Self::WORDS + 1].wrapping_mul(N as u128)),
            mask: if N.is_multiple_of(8) {
                u64::MAX
            } else {
                (1u64 << (8 * (N % 8))) - 1
            },
        }
    }

    /// `fingerprint(&bytes[i..i + N])`; needs `i + SPAN <= bytes.len()`.
    #[inline(always)]
    fn at(&self, bytes: &[u8], i: usize) -> u64 {
        let window = &bytes[i..i + Self::SPAN];
        let mut acc = self.base;
        for k in 0..Self::WORDS {
            let chunk: [u8; 8] = window[8 * k..8 * k + 8].try_into().unwrap_or([0; 8]);
            let mut w = u64::from_le_bytes(chunk);
            if k + 1 == Self::WORDS {
                w &= self.mask;
            }
            acc = acc.wrapping_add(COEFFS[k + 1].wrapping_mul(w as u128));
        }
        (acc >> 64) as u64
    }
}

/// Pushes the fingerprints of all `N`-byte windows of an ASCII byte string (`N` constant, so the
/// word loop unrolls and the length term is a constant).
#[inline(never)]
fn ascii_windows<const N: usize>(bytes: &[u8], out: &mut Vec<u64>) {
    let fixed = Fixed::<N>::new();
    let count = bytes.len() + 1 - N;
    #[cfg(target_arch = "x86_64")]
    // SAFETY: `available` checked the CPU features `windows` is compiled with.
    if avx512::available() && unsafe { avx512::windows::<N>(bytes, count, out) } {
        return;
    }
    // Windows whose last word can be read whole (over-reading and masking); the last few take
    // the general path.
    let fast = (bytes.len() + 1)
        .saturating_sub(Fixed::<N>::SPAN)
        .min(count);
    out.extend((0..fast).map(|i| fixed.at(bytes, i)));
    out.extend((fast..count).map(|i| fingerprint_span(bytes, i, i + N)));
}

/// Pushes the fingerprints of the `N`-char shingles of non-ASCII text (`count` of them, at least
/// one) with two cursors over char starts. Runs of pure-ASCII windows (window length `N` bytes,
/// up to the next non-ASCII byte) are emitted as a batch with the fixed-length kernel.
#[inline(never)]
fn mixed_windows<const N: usize>(bytes: &[u8], count: usize, out: &mut Vec<u64>) {
    let fixed = Fixed::<N>::new();
    let mut start = 0;
    let mut end = 0;
    for _ in 0..N {
        end += utf8_width(bytes[end]);
    }
    let mut k = 0;
    while k < count {
        if end - start == N {
            // Pure-ASCII window: every window until the one ending at the next non-ASCII byte is
            // pure ASCII too, and both cursors advance one byte at a time.
            let r = bytes[end..]
                .iter()
                .position(|&b| b >= 0x80)
                .map_or(bytes.len(), |p| end + p);
            let batch = (r - end + 1).min(count - k);
            #[cfg(target_arch = "x86_64")]
            // SAFETY: `available` checked the CPU features `windows` is compiled with.
            let simd =
                avx512::available() && unsafe { avx512::windows::<N>(&bytes[start..], batch, out) };
            #[cfg(not(target_arch = "x86_64"))]
            let simd = false;
            if !simd {
                out.extend((start..start + batch).map(|i| {
                    if i + Fixed::<N>::SPAN <= bytes.len() {
                        fixed.at(bytes, i)
                    } else {
                        fingerprint_span(bytes, i, i + N)
                    }
                }));
            }
            k += batch;
            if k < count {
                // The next window ends after the non-ASCII char at `r`.
                start += batch;
                end = r + utf8_width(bytes[r]);
            }
        } else {
            out.push(fingerprint_span(bytes, start, end));
            k += 1;
            if k < count {
                start += utf8_width(bytes[start]);
                end += utf8_width(bytes[end]);
            }
        }
    }
}

/// Pushes the fingerprints of the `len`-char shingles of `bytes` (valid UTF-8 with at least
/// `len` chars) with two cursors over char starts.
fn general_windows(bytes: &[u8], len: usize, count: usize, out: &mut Vec<u64>) {
    let mut start = 0;
    let mut end = 0;
    for _ in 0..len {
        end += utf8_width(bytes[end]);
    }
    for k in 0..count {
        out.push(fingerprint_span(bytes, start, end));
        if k + 1 < count {
            start += utf8_width(bytes[start]);
            end += utf8_width(bytes[end]);
        }
    }
}

/// Replaces the contents of `out` with the fingerprints of the character shingles of length
/// `len` of `text`, in text order (duplicates included), and returns how many there are.
///
/// This is the hot path of the near-duplicate pipeline: one pass, no allocation beyond growing
/// `out` (reuse it across calls). Pure-ASCII text takes a fast path with fixed-width windows for
/// the common lengths. Each fingerprint equals `textreuse_hash::fingerprint` of the shingle's
/// bytes. A `len` of 0 gives no shingles.
///
/// ```
/// use textreuse_hash::fingerprint;
/// use textreuse_shingle::char_shingle_fingerprints;
///
/// let mut out = Vec::new();
/// let n = char_shingle_fingerprints("the quick brown", 12, &mut out);
/// assert_eq!(n, 4);
/// assert_eq!(out[0], fingerprint(b"the quick br"));
/// assert_eq!(out[3], fingerprint(b" quick brown"));
/// ```
pub fn char_shingle_fingerprints(text: &str, len: usize, out: &mut Vec<u64>) -> usize {
    out.clear();
    if len == 0 {
        return 0;
    }
    let bytes = text.as_bytes();
    if text.is_ascii() {
        if bytes.len() < len {
            return 0;
        }
        out.reserve(bytes.len() - len + 1);
        match len {
            8 => ascii_windows::<8>(bytes, out),
            9 => ascii_windows::<9>(bytes, out),
            10 => ascii_windows::<10>(bytes, out),
            11 => ascii_windows::<11>(bytes, out),
            12 => ascii_windows::<12>(bytes, out),
            13 => ascii_windows::<13>(bytes, out),
            14 => ascii_windows::<14>(bytes, out),
            15 => ascii_windows::<15>(bytes, out),
            16 => ascii_windows::<16>(bytes, out),
            _ => {
                out.extend((0..bytes.len() + 1 - len).map(|i| fingerprint_span(bytes, i, i + len)))
            }
        }
        return out.len();
    }
    let count = char_shingle_count(text, len);
    if count > 0 {
        out.reserve(count);
        match len {
            8 => mixed_windows::<8>(bytes, count, out),
            10 => mixed_windows::<10>(bytes, count, out),
            12 => mixed_windows::<12>(bytes, count, out),
            16 => mixed_windows::<16>(bytes, count, out),
            _ => general_windows(bytes, len, count, out),
        }
    }
    out.len()
}

/// Sorts `fingerprints` and removes repeated values in place, returning the number of distinct
/// fingerprints (the set semantics MinHash wants). No allocation.
///
/// ```
/// use textreuse_shingle::{char_shingle_fingerprints, dedup_fingerprints};
/// let mut fps = Vec::new();
/// char_shingle_fingerprints("abcabcabcabc", 3, &mut fps);
/// assert_eq!(fps.len(), 10);
/// assert_eq!(dedup_fingerprints(&mut fps), 3); // "abc", "bca", "cab"
/// ```
pub fn dedup_fingerprints(fingerprints: &mut Vec<u64>) -> usize {
    fingerprints.sort_unstable();
    fingerprints.dedup();
    fingerprints.len()
}

/// One character shingle: its byte span in the text and its fingerprint.
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub struct Shingle {
    /// Byte range of the shingle in the text (on char boundaries, exactly `len` chars).
    pub span: Range<usize>,
    /// `textreuse_hash::fingerprint` of the shingle's bytes.
    pub fingerprint: u64,
}

/// Iterator over the character shingles of a text with their spans and fingerprints, made by
/// [`CharShingles::new`]. Exact-size: it yields [`char_shingle_count`] items.
///
/// ```
/// use textreuse_shingle::CharShingles;
/// let text = "Zürich, Genève";
/// let spans: Vec<&str> = CharShingles::new(text, 12).map(|s| &text[s.span]).collect();
/// assert_eq!(spans, ["Zürich, Genè", "ürich, Genèv", "rich, Genève"]);
/// ```
#[derive(Clone, Debug)]
pub struct CharShingles<'a> {
    bytes: &'a [u8],
    start: usize,
    end: usize,
    remaining: usize,
}

impl<'a> CharShingles<'a> {
    /// The shingles of length `len` (in chars) of `text`. A `len` of 0 gives no shingles.
    pub fn new(text: &'a str, len: usize) -> Self {
        let bytes = text.as_bytes();
        let remaining = char_shingle_count(text, len);
        // Place `end` after the first `len` chars (or anywhere if there are no shingles).
        let mut end = 0;
        if remaining > 0 {
            for _ in 0..len {
                end += utf8_width(bytes[end]);
            }
        }
        CharShingles {
            bytes,
            start: 0,
            end,
            remaining,
        }
    }
}

impl Iterator for CharShingles<'_> {
    type Item = Shingle;

    #[inline]
    fn next(&mut self) -> Option<Shingle> {
        if self.remaining == 0 {
            return None;
        }
        self.remaining -= 1;
        let span = self.start..self.end;
        let fp = fingerprint_span(self.bytes, span.start, span.end);
        if self.remaining > 0 {
            self.start += utf8_width(self.bytes[self.start]);
            self.end += utf8_width(self.bytes[self.end]);
        }
        Some(Shingle {
            span,
            fingerprint: fp,
        })
    }

    #[inline]
    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.remaining, Some(self.remaining))
    }
}

impl ExactSizeIterator for CharShingles<'_> {}
impl FusedIterator for CharShingles<'_> {}

/// Bytes per block of the [`CharOffsets`] prefix table.
const BLOCK: usize = 64;

/// Converts byte offsets of one text into character offsets (the PAN corpora count characters),
/// cheaply for many lookups.
///
/// Pure-ASCII text needs no table (a byte offset is a char offset). Otherwise a prefix table keeps
/// the char count at the start of every 64-byte block (one `usize` per block, 1/8 of the text's
/// size on 64-bit machines), and a lookup counts the char starts in at most 63 bytes.
///
/// ```
/// use textreuse_shingle::CharOffsets;
/// let text = "naïve café";
/// let offsets = CharOffsets::new(text);
/// assert_eq!(offsets.to_char(text.find("café").unwrap()), 6);
/// assert_eq!(offsets.to_char(text.len()), 10);
/// assert_eq!(offsets.char_len(), 10);
/// ```
#[derive(Clone, Debug)]
pub struct CharOffsets<'a> {
    bytes: &'a [u8],
    /// Empty for ASCII text; else `blocks[k]` = chars starting before byte `k * BLOCK`.
    blocks: Vec<usize>,
    chars: usize,
}

#[inline]
fn is_char_start(b: u8) -> bool {
    // Continuation bytes are 10xxxxxx.
    (b as i8) >= -0x40
}

impl<'a> CharOffsets<'a> {
    /// Builds the table for `text` (one pass; no allocation for ASCII text).
    pub fn new(text: &'a str) -> Self {
        let bytes = text.as_bytes();
        if text.is_ascii() {
            return CharOffsets {
                bytes,
                blocks: Vec::new(),
                chars: bytes.len(),
            };
        }
        let mut blocks = Vec::with_capacity(bytes.len() / BLOCK + 1);
        let mut count = 0;
        for chunk in bytes.chunks(BLOCK) {
            blocks.push(count);
            count += chunk.iter().filter(|&&b| is_char_start(b)).count();
        }
        CharOffsets {
            bytes,
            blocks,
            chars: count,
        }
    }

    /// The number of chars that start before byte offset `byte`: the char offset of `byte` when
    /// it is a char boundary. Offsets past the end map to [`CharOffsets::char_len`].
    #[inline]
    pub fn to_char(&self, byte: usize) -> usize {
        if byte >= self.bytes.len() {
            return self.chars;
        }
        if self.blocks.is_empty() {
            return byte;
        }
        let block = byte / BLOCK;
        let base = block * BLOCK;
        self.blocks[block]
            + self.bytes[base..byte]
                .iter()
                .filter(|&&b| is_char_start(b))
                .count()
    }

    /// A byte span as a char span.
    #[inline]
    pub fn to_char_span(&self, span: Range<usize>) -> Range<usize> {
        self.to_char(span.start)..self.to_char(span.end)
    }

    /// The number of chars of the text.
    #[inline]
    pub fn char_len(&self) -> usize {
        self.chars
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn inlined_fingerprint_equals_hash_crate() {
        let text = "x".repeat(300) + "αβγ";
        let bytes = text.as_bytes();
        for start in [0, 1, 7, 8, 290] {
            for end in start..text.len().min(start + 260) {
                assert_eq!(
                    fingerprint_span(bytes, start, end),
                    fingerprint(&bytes[start..end]),
                    "{start}..{end}"
                );
            }
        }
    }

    /// The AVX-512 windows equal `fingerprint` for every supported length, on bytes of every
    /// value (carries through all limbs) and at every offset of the 64-byte blocks it loads.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx512_windows_equal_fingerprint() {
        if !avx512::available() {
            eprintln!("no AVX-512 IFMA/VBMI on this CPU: nothing to compare");
            return;
        }
        let bytes: Vec<u8> = (0..300u64)
            .map(|i| match i % 5 {
                0 => 0xff,
                1 => 0,
                _ => textreuse_hash::mix64(i) as u8,
            })
            .collect();
        fn check<const N: usize>(bytes: &[u8]) {
            for len in N..bytes.len() {
                let bytes = &bytes[..len];
                let count = len + 1 - N;
                let mut out = Vec::new();
                // SAFETY: `available` checked the CPU features.
                let done = unsafe { avx512::windows::<N>(bytes, count, &mut out) };
                assert_eq!(done, count >= 8);
                let want: Vec<u64> = bytes.windows(N).map(fingerprint).collect();
                assert_eq!(
                    out,
                    if done { &want[..] } else { &[] },
                    "N = {N}, len = {len}"
                );
            }
        }
        check::<9>(&bytes);
        check::<10>(&bytes);
        check::<11>(&bytes);
        check::<12>(&bytes);
        check::<13>(&bytes);
        check::<14>(&bytes);
        check::<15>(&bytes);
        check::<16>(&bytes);
    }

    #[test]
    fn fast_and_general_paths_agree() {
        let text = "It was the best of times, it was the worst of times; 12.5% more.";
        // Long ASCII runs between non-ASCII chars: the mixed path's batches of ASCII windows.
        let mixed = "Größe: about 9000 inhabitants lived there in 1850 — «today many more» \
                     naïve café, and a last stretch of plain ASCII text at the end";
        for len in 1..=20 {
            let mut fast = Vec::new();
            char_shingle_fingerprints(mixed, len, &mut fast);
            let general: Vec<u64> = CharShingles::new(mixed, len)
                .map(|s| s.fingerprint)
                .collect();
            assert_eq!(fast, general, "mixed, len {len}");
        }
        for len in 1..=20 {
            let mut fast = Vec::new();
            let n = char_shingle_fingerprints(text, len, &mut fast);
            let general: Vec<u64> = CharShingles::new(text, len)
                .map(|s| s.fingerprint)
                .collect();
            assert_eq!(n, general.len());
            assert_eq!(fast, general, "len {len}");
            let naive: Vec<u64> = text.as_bytes().windows(len).map(fingerprint).collect();
            assert_eq!(fast, naive);
        }
    }

    #[test]
    fn shingles_are_chars_not_bytes() {
        let text = "Größe über 9000";
        let got: Vec<&str> = CharShingles::new(text, 12).map(|s| &text[s.span]).collect();
        assert_eq!(
            got,
            [
                "Größe über 9",
                "röße über 90",
                "öße über 900",
                "ße über 9000"
            ]
        );
        let mut out = vec![7];
        assert_eq!(char_shingle_fingerprints(text, 12, &mut out), 4);
        assert_eq!(out[0], fingerprint("Größe über 9".as_bytes()));
        assert_eq!(char_shingle_fingerprints(text, 0, &mut out), 0);
        assert!(out.is_empty());
    }

    #[test]
    fn char_offsets_match_char_indices() {
        let text = "αβγ ascii ".repeat(30) + "末尾";
        let offsets = CharOffsets::new(&text);
        for (ci, (bi, _)) in text.char_indices().enumerate() {
            assert_eq!(offsets.to_char(bi), ci);
        }
        assert_eq!(offsets.to_char(text.len()), text.chars().count());
        assert_eq!(offsets.to_char(usize::MAX), text.chars().count());
    }
}
