//! Fingerprints of eight byte windows at once with AVX-512 IFMA (52-bit multiply-add), on the
//! x86-64 CPUs that have it (Intel Ice Lake and later, AMD Zen 4 and later), chosen at run time.
//!
//! The fingerprint of an `N`-byte window, `9 <= N <= 16`, is the high half of
//! `base + c1·w0 + c2·w1 mod 2^128`, where `w0` and `w1` are the window's little-endian words
//! (`w1` zero-padded) and `base` holds the constant and length terms (see `chars`). Here the
//! 128-bit values are split into 52-bit limbs, the partial products are added limb by limb with
//! `vpmadd52luq` / `vpmadd52huq`, eight windows in the lanes of one register, and the carries are
//! propagated once at the end. Partial products that only reach bits 128 and up are skipped. The
//! results equal the scalar path's bit for bit (tested below for every window length, lane
//! position and tail).
use core::arch::x86_64::{
    __m512i, __mmask16, _mm_maskz_loadu_epi8, _mm512_add_epi64, _mm512_and_si512,
    _mm512_broadcast_i32x4, _mm512_loadu_si512, _mm512_madd52hi_epu64, _mm512_madd52lo_epu64,
    _mm512_mask_storeu_epi64, _mm512_or_si512, _mm512_set1_epi64, _mm512_shuffle_epi8,
    _mm512_slli_epi64, _mm512_srli_epi64,
};

/// Whether this CPU can run [`windows`].
#[inline]
pub(crate) fn available() -> bool {
    // The detection macro caches its answer; this is a few loads and bit tests.
    std::is_x86_feature_detected!("avx512f")
        && std::is_x86_feature_detected!("avx512bw")
        && std::is_x86_feature_detected!("avx512vl")
        && std::is_x86_feature_detected!("avx512ifma")
}

const M52: u64 = (1 << 52) - 1;
const M40: u64 = (1 << 40) - 1;

/// `vpshufb` indices that put, in 64-bit lane `k`, bytes `k..k + width` of a 16-byte source
/// (broadcast to every 128-bit lane) and zeros above them: `SHUFFLE[width]`, `width <= 8`.
static SHUFFLE: [[u8; 64]; 9] = {
    let mut t = [[0x80u8; 64]; 9];
    let mut width = 0;
    while width <= 8 {
        let mut k = 0;
        while k < 8 {
            let mut j = 0;
            while j < width {
                // Byte j of lane k; `vpshufb` indexes within each 128-bit lane, and lane k sits
                // in 128-bit lane k / 2, whose 16 bytes are all the same source.
                t[width][8 * k + j] = (k + j) as u8;
                j += 1;
            }
            k += 1;
        }
        width += 1;
    }
    t
};

/// The 52-bit limbs of a 128-bit value, each broadcast to all lanes (the top one has 24 bits).
#[target_feature(enable = "avx512f")]
#[inline]
fn limbs(x: u128) -> [__m512i; 3] {
    [
        _mm512_set1_epi64((x as u64 & M52) as i64),
        _mm512_set1_epi64(((x >> 52) as u64 & M52) as i64),
        _mm512_set1_epi64((x >> 104) as u64 as i64),
    ]
}

/// Appends to `out` the fingerprints of the `N`-byte windows of `bytes` that start at
/// `from..to` (each in bounds: `to + N - 1 <= bytes.len()`), given `base` (constant and length
/// terms) and the word coefficients `c1`, `c2`.
///
/// # Safety
///
/// The CPU must have AVX-512 F, BW, VL and IFMA ([`available`]).
#[target_feature(enable = "avx512f,avx512bw,avx512vl,avx512ifma")]
pub(crate) unsafe fn windows<const N: usize>(
    bytes: &[u8],
    from: usize,
    to: usize,
    base: u128,
    c1: u128,
    c2: u128,
    out: &mut Vec<u64>,
) {
    assert!((9..=16).contains(&N) && from <= to && to + N - 1 <= bytes.len());
    let count = to - from;
    out.reserve(count);
    let [base0, base1, base2] = limbs(base);
    let [a0, a1, a2] = limbs(c1);
    let [b0, b1, b2] = limbs(c2);
    let m40 = _mm512_set1_epi64(M40 as i64);
    // SAFETY: the tables are 64 bytes each; unaligned loads.
    let (idx0, idx1) = unsafe {
        (
            _mm512_loadu_si512(SHUFFLE[8].as_ptr().cast()),
            _mm512_loadu_si512(SHUFFLE[N - 8].as_ptr().cast()),
        )
    };
    let dst = out.spare_capacity_mut().as_mut_ptr().cast::<i64>();
    let mut k = 0;
    while k < count {
        let i = from + k;
        // Lane j holds the window at `i + j`. Its first word needs bytes `i..i + 15`, its second
        // word bytes `i + 8..i + 23`; bytes past the end of `bytes` are masked out of the loads
        // (never touched) and only reach lanes whose window does not exist (not stored).
        let avail = bytes.len() - i;
        let mask0: __mmask16 = if avail >= 16 { !0 } else { (1 << avail) - 1 };
        let mask1: __mmask16 = if avail >= 24 {
            !0
        } else {
            (1 << (avail - 8)) - 1
        };
        // SAFETY: `i < bytes.len()` and `i + 8 < bytes.len()` (a window of at least 9 bytes
        // starts at `i`); the masked loads read only bytes inside `bytes`.
        let (w0, w1) = unsafe {
            let p = bytes.as_ptr().add(i);
            let v0 = _mm512_broadcast_i32x4(_mm_maskz_loadu_epi8(mask0, p.cast()));
            let v1 = _mm512_broadcast_i32x4(_mm_maskz_loadu_epi8(mask1, p.add(8).cast()));
            (_mm512_shuffle_epi8(v0, idx0), _mm512_shuffle_epi8(v1, idx1))
        };
        // w0 = x0 + x1·2^52 (x1 has 12 bits); w1 = y0 + y1·2^52, y1 = 0 unless N > 14. The
        // multiply-adds read the low 52 bits of their operands, so x0 and y0 need no mask.
        let x1 = _mm512_srli_epi64::<52>(w0);
        let (mut l0, mut l1, mut l2) = (base0, base1, base2);
        l0 = _mm512_madd52lo_epu64(l0, a0, w0);
        l1 = _mm512_madd52hi_epu64(l1, a0, w0);
        l1 = _mm512_madd52lo_epu64(l1, a0, x1);
        l2 = _mm512_madd52hi_epu64(l2, a0, x1);
        l1 = _mm512_madd52lo_epu64(l1, a1, w0);
        l2 = _mm512_madd52hi_epu64(l2, a1, w0);
        l2 = _mm512_madd52lo_epu64(l2, a1, x1);
        l2 = _mm512_madd52lo_epu64(l2, a2, w0);
        l0 = _mm512_madd52lo_epu64(l0, b0, w1);
        l1 = _mm512_madd52hi_epu64(l1, b0, w1);
        l1 = _mm512_madd52lo_epu64(l1, b1, w1);
        l2 = _mm512_madd52hi_epu64(l2, b1, w1);
        l2 = _mm512_madd52lo_epu64(l2, b2, w1);
        if N > 14 {
            let y1 = _mm512_srli_epi64::<52>(w1);
            l1 = _mm512_madd52lo_epu64(l1, b0, y1);
            l2 = _mm512_madd52hi_epu64(l2, b0, y1);
            l2 = _mm512_madd52lo_epu64(l2, b1, y1);
        }
        // Carries, then bits 64..128: bits 12..52 of limb 1 and bits 0..24 of limb 2.
        l1 = _mm512_add_epi64(l1, _mm512_srli_epi64::<52>(l0));
        l2 = _mm512_add_epi64(l2, _mm512_srli_epi64::<52>(l1));
        let fp = _mm512_or_si512(
            _mm512_and_si512(_mm512_srli_epi64::<12>(l1), m40),
            _mm512_slli_epi64::<40>(l2),
        );
        let lanes = (count - k).min(8);
        // SAFETY: `out` has room for `count` more values (reserved above) and lanes
        // `k..k + lanes` of it are below `count`.
        unsafe { _mm512_mask_storeu_epi64(dst.add(k), ((1u16 << lanes) - 1) as u8, fp) };
        k += 8;
    }
    // SAFETY: the loop stored all `count` values after the old length.
    unsafe { out.set_len(out.len() + count) };
}

#[cfg(test)]
mod tests {
    use super::*;
    use textreuse_hash::fingerprint;

    fn check<const N: usize>(bytes: &[u8]) {
        let base = crate::chars::len_term(N);
        let (c1, c2) = crate::chars::word_coefficients();
        for from in 0..=bytes.len() - N + 1 {
            for to in from..=bytes.len() - N + 1 {
                let mut out = vec![7];
                // SAFETY: only called when `available()`.
                unsafe { windows::<N>(bytes, from, to, base, c1, c2, &mut out) };
                let want: Vec<u64> = [7]
                    .into_iter()
                    .chain((from..to).map(|i| fingerprint(&bytes[i..i + N])))
                    .collect();
                assert_eq!(out, want, "N {N}, {from}..{to} of {}", bytes.len());
            }
        }
    }

    #[test]
    fn equals_the_scalar_fingerprint() {
        if !available() {
            eprintln!("AVX-512 IFMA not available: the IFMA kernel is not used on this CPU");
            return;
        }
        // Bytes of every value (all 0xFF words included), window counts across the 8 lanes,
        // and windows ending at the very end of the slice.
        let mut x = 0x9e37_79b9_7f4a_7c15u64;
        let mut bytes: Vec<u8> = (0..40)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        bytes[3..20].fill(0xFF);
        for len in 16..=40 {
            let b = &bytes[..len];
            check::<9>(b);
            check::<10>(b);
            check::<11>(b);
            check::<12>(b);
            check::<13>(b);
            check::<14>(b);
            check::<15>(b);
            check::<16>(b);
        }
    }
}
