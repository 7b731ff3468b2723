//! Fingerprints of fixed-length byte windows, eight windows per step with AVX-512 IFMA: exactly
//! the values of the scalar [`Fixed::at`](super::Fixed) (and so of `textreuse_hash::fingerprint`).
//!
//! For a window of `N` bytes (`9 <= N <= 16`: two words `w1`, `w2`, the second masked to `N - 8`
//! bytes) the fingerprint is the high 64 bits of `S = B + c1·w1 + c2·w2 mod 2^128`, with the
//! constant `B = c0 + c3·N` and 128-bit coefficients `c_k`. Each 128-bit quantity is split into
//! 52-bit limbs, `x = x0 + 2^52·x1 + 2^104·x2`, and each word `w = w0 + 2^52·w1` (`w1 < 2^12`).
//! Modulo `2^128`, `c·w` is the sum of the partial products `c0·w0`, `2^52·(c0·w1 + c1·w0)` and
//! `2^104·(c1·w1 + c2·w0)`; `vpmadd52luq`/`vpmadd52huq` add the low and high 52 bits of each
//! 52×52-bit product straight into three 64-bit limb accumulators (started at `B`'s limbs), which
//! have room for the few carries. One carry pass and a double shift then give bits 64..127 of
//! `S`. That is 13 multiply-adds (16 for `N >= 15`, where `w2` reaches past 52 bits) and about 10
//! other instructions per eight windows, against two 64×64->128-bit and two 64-bit multiplies
//! per window in the scalar code.
use core::arch::x86_64::*;

use super::{COEFFS, Fixed};

const LOW52: u64 = (1 << 52) - 1;

/// Whether this CPU can run [`windows`].
#[inline]
pub(super) fn available() -> bool {
    std::is_x86_feature_detected!("avx512f")
        && std::is_x86_feature_detected!("avx512bw")
        && std::is_x86_feature_detected!("avx512ifma")
        && std::is_x86_feature_detected!("avx512vbmi")
        && std::is_x86_feature_detected!("avx512vbmi2")
}

/// The three 52-bit limbs of `x mod 2^128`, each broadcast to all lanes.
#[inline]
#[target_feature(enable = "avx512f")]
fn limbs(x: u128) -> [__m512i; 3] {
    [
        _mm512_set1_epi64((x as u64 & LOW52) as i64),
        _mm512_set1_epi64(((x >> 52) as u64 & LOW52) as i64),
        _mm512_set1_epi64((x >> 104) as i64),
    ]
}

/// Adds `c·w mod 2^128` to the limb accumulators `acc`, for a word `w` whose bits 52..63 are
/// `w_high` (`HIGH`: whether they can be nonzero).
#[inline]
#[target_feature(enable = "avx512f,avx512ifma")]
fn add_product<const HIGH: bool>(
    acc: &mut [__m512i; 3],
    c: &[__m512i; 3],
    w: __m512i,
    w_high: __m512i,
) {
    // IFMA reads only the low 52 bits of `w`: that is `w0`.
    acc[0] = _mm512_madd52lo_epu64(acc[0], c[0], w);
    acc[1] = _mm512_madd52hi_epu64(acc[1], c[0], w);
    acc[1] = _mm512_madd52lo_epu64(acc[1], c[1], w);
    acc[2] = _mm512_madd52hi_epu64(acc[2], c[1], w);
    acc[2] = _mm512_madd52lo_epu64(acc[2], c[2], w);
    if HIGH {
        acc[1] = _mm512_madd52lo_epu64(acc[1], c[0], w_high);
        acc[2] = _mm512_madd52hi_epu64(acc[2], c[0], w_high);
        acc[2] = _mm512_madd52lo_epu64(acc[2], c[1], w_high);
    }
}

/// Byte indices that put bytes `k + skip .. k + skip + 8` of a 64-byte block into lane `k`.
const fn window_index(skip: usize) -> [u8; 64] {
    let mut index = [0u8; 64];
    let mut i = 0;
    while i < 64 {
        index[i] = (i / 8 + skip + i % 8) as u8;
        i += 1;
    }
    index
}

static FIRST_WORDS: [u8; 64] = window_index(0);
static SECOND_WORDS: [u8; 64] = window_index(8);

/// Appends the fingerprints of the first `count` `N`-byte windows of `bytes` (starting at
/// `0, 1, ..`) to `out`, in groups of eight; a last partial group is computed as the eight
/// windows ending with the last one, of which only the new ones are appended.
///
/// Needs `8 <= count <= bytes.len() + 1 - N` and `9 <= N <= 16`, else appends nothing and
/// returns false.
#[target_feature(enable = "avx512f,avx512bw,avx512ifma,avx512vbmi,avx512vbmi2")]
pub(super) fn windows<const N: usize>(bytes: &[u8], count: usize, out: &mut Vec<u64>) -> bool {
    if !(9..=16).contains(&N) || count < 8 || count + N > bytes.len() + 1 {
        return false;
    }
    let fixed = Fixed::<N>::new();
    let base = limbs(fixed.base);
    let c1 = limbs(COEFFS[1]);
    let c2 = limbs(COEFFS[2]);
    // SAFETY (both): the index tables are 64 readable bytes.
    let first = unsafe { _mm512_loadu_si512(FIRST_WORDS.as_ptr().cast()) };
    let second = unsafe { _mm512_loadu_si512(SECOND_WORDS.as_ptr().cast()) };
    // Bytes of the second word that belong to the window (`fixed.mask`, in every lane).
    let second_mask: __mmask64 = byte_mask_per_lane(fixed.mask);
    out.reserve(count);
    let first_out = out.len();
    let mut at = 0;
    while at < count {
        // The last group may overlap the previous one: windows `start..start + 8`.
        let start = at.min(count - 8);
        // Windows `start..start + 8` read bytes `start..start + N + 7 <= start + 23`; a masked
        // load reads the 64-byte block without touching memory past the end of `bytes`.
        let rest = &bytes[start..];
        let load: __mmask64 = if rest.len() >= 64 {
            u64::MAX
        } else {
            (1u64 << rest.len()) - 1
        };
        // SAFETY: the mask selects only bytes of `rest`; masked-off bytes are not accessed.
        let block = unsafe { _mm512_maskz_loadu_epi8(load, rest.as_ptr().cast()) };
        let w1 = _mm512_permutexvar_epi8(first, block);
        let w2 = _mm512_maskz_permutexvar_epi8(second_mask, second, block);
        let mut acc = base;
        add_product::<true>(&mut acc, &c1, w1, _mm512_srli_epi64::<52>(w1));
        if N >= 15 {
            add_product::<true>(&mut acc, &c2, w2, _mm512_srli_epi64::<52>(w2));
        } else {
            // At most 6 bytes: below bit 52.
            add_product::<false>(&mut acc, &c2, w2, w2);
        }
        // Carries: limb 0 into limb 1 into limb 2 (limb 2 only needs bits 0..23).
        let l1 = _mm512_add_epi64(acc[1], _mm512_srli_epi64::<52>(acc[0]));
        let l2 = _mm512_add_epi64(acc[2], _mm512_srli_epi64::<52>(l1));
        // Bits 64..127 of S: bits 12..51 of limb 1, then bits 0..23 of limb 2. Shifting limb 1
        // up by 12 drops its carry bits; the double shift joins the two.
        let high = _mm512_shrdi_epi64::<24>(_mm512_slli_epi64::<12>(l1), l2);
        // SAFETY: `out` has capacity for `first_out + count` words and
        // `start + 8 <= count`. An overlapping last group rewrites the same values.
        unsafe { _mm512_storeu_si512(out.as_mut_ptr().add(first_out + start).cast(), high) };
        at = start + 8;
    }
    // SAFETY: the loop wrote all `count` words after `first_out`.
    unsafe { out.set_len(first_out + count) };
    true
}

/// The 64-bit byte mask, repeated in all eight qwords, of the bytes that `mask` keeps (`mask`
/// keeps a prefix of whole bytes of a word).
#[inline]
fn byte_mask_per_lane(mask: u64) -> u64 {
    let mut bits = 0u8;
    for (i, byte) in mask.to_le_bytes().into_iter().enumerate() {
        if byte != 0 {
            bits |= 1 << i;
        }
    }
    u64::from(bits) * 0x0101_0101_0101_0101
}
