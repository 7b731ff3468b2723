//! The signing kernel: `out[i] = (min over x of (a_i·x + b_i) mod 2^64) >> shift`.
//!
//! The shift is monotone, so it commutes with `min` and is applied once per function when the
//! minima are stored, not once per (function, shingle). Duplicate shingles need no special
//! handling: the minimum over a multiset is the minimum over its set.
//!
//! The functions are processed in blocks of [`LANES`] = 8 (the signer pads its coefficient
//! arrays to whole blocks with `a = 1, b = 0`; padded lanes are computed and never stored). A
//! *pass* keeps the running minima of up to four blocks in registers and streams every shingle
//! through them once; `N = 20` (three blocks) is a single pass.
//!
//! Four implementations, chosen once per [`Signer`](crate::Signer) by [`Isa::detect`], compute
//! exactly the same 64-bit values with different instructions (the tests compare every kernel
//! the CPU can run against the scalar formula):
//!
//! * [`Isa::Ifma`] (AVX-512 IFMA + VBMI2: Ice Lake, Sapphire Rapids, Zen 4 and later): the
//!   64-bit product from three 52-bit multiply-adds, see [`x86::ifma`]; five one-uop
//!   instructions per block and shingle.
//! * [`Isa::Avx512`] (AVX-512DQ: Skylake-SP and later): `vpmullq` (three uops), `vpaddq`,
//!   `vpminuq`. On the Sapphire Rapids VM of `docs/performance.md` this ran at 1.8 to 7.8 ns per
//!   block and shingle depending on the group size, the IFMA kernel at 1.07 to 1.5 ns.
//! * [`Isa::Avx2`]: the 64-bit product from three 32×32-bit multiplies, the unsigned minimum
//!   from a signed compare of sign-flipped values.
//! * [`Isa::Portable`]: plain Rust over `[u64; 8]` arrays (eight independent scalar chains).
//!
//! The x86 kernels are written with intrinsics rather than left to the auto-vectorizer: LLVM
//! vectorized the previous generic loop over the *shingles* for three blocks (24 reductions,
//! spilled to the stack, plus a scalar remainder loop), which made `N = 20` about five times
//! slower than it is now.

/// Lanes per block; the signer's coefficient arrays are padded to a multiple of this.
pub(crate) const LANES: usize = 8;

/// Blocks per pass: their running minima (and coefficients) stay in registers.
const MAX_GROUP: usize = 4;

/// Which implementation of the kernel runs on this CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Isa {
    #[cfg(target_arch = "x86_64")]
    Ifma,
    #[cfg(target_arch = "x86_64")]
    Avx512,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    Portable,
}

impl Isa {
    /// The fastest kernel this CPU supports.
    pub(crate) fn detect() -> Isa {
        Isa::supported().last().copied().unwrap_or(Isa::Portable)
    }

    /// Every kernel this CPU supports, slowest first (the tests run them all).
    pub(crate) fn supported() -> Vec<Isa> {
        let mut isas = vec![Isa::Portable];
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx2") {
                isas.push(Isa::Avx2);
            }
            if std::is_x86_feature_detected!("avx512f") && std::is_x86_feature_detected!("avx512dq")
            {
                isas.push(Isa::Avx512);
            }
            if std::is_x86_feature_detected!("avx512f")
                && std::is_x86_feature_detected!("avx512ifma")
                && std::is_x86_feature_detected!("avx512vbmi2")
            {
                isas.push(Isa::Ifma);
            }
        }
        isas
    }
}

/// Writes `out[i] = (min over shingles x of (a[i]·x + b[i]) mod 2^64) >> shift` for every `i`
/// in `0..out.len()`, with the kernel compiled for `isa`.
///
/// `a` and `b` have the same length, a multiple of [`LANES`], and `out.len() <= a.len()`;
/// `shift < 64`. With no shingles every output is `u64::MAX >> shift`.
#[inline]
pub(crate) fn min_hashes(
    isa: Isa,
    a: &[u64],
    b: &[u64],
    shingles: &[u64],
    shift: u32,
    out: &mut [u64],
) {
    assert!(
        a.len().is_multiple_of(LANES) && a.len() == b.len() && out.len() <= a.len() && shift < 64
    );
    match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Isa::Ifma` is only produced by `Isa::supported` after the CPU reported
        // avx512f, avx512ifma and avx512vbmi2.
        Isa::Ifma => unsafe { x86::ifma(a, b, shingles, shift, out) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Isa::Avx512` is only produced after the CPU reported avx512f and avx512dq.
        Isa::Avx512 => unsafe { x86::avx512(a, b, shingles, shift, out) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Isa::Avx2` is only produced after the CPU reported avx2.
        Isa::Avx2 => unsafe { x86::avx2(a, b, shingles, shift, out) },
        Isa::Portable => portable(a, b, shingles, shift, out),
    }
}

/// The portable kernel, one block at a time: eight independent multiply-add-min chains per
/// shingle, which keeps a scalar core busy and lets LLVM vectorize where it can.
fn portable(a: &[u64], b: &[u64], shingles: &[u64], shift: u32, out: &mut [u64]) {
    let blocks = a.chunks_exact(LANES).zip(b.chunks_exact(LANES));
    for ((a, b), out) in blocks.zip(out.chunks_mut(LANES)) {
        let a: &[u64; LANES] = a.try_into().expect("whole block");
        let b: &[u64; LANES] = b.try_into().expect("whole block");
        let mut acc = [u64::MAX; LANES];
        for &x in shingles {
            for l in 0..LANES {
                let v = a[l].wrapping_mul(x).wrapping_add(b[l]);
                acc[l] = acc[l].min(v);
            }
        }
        for (o, m) in out.iter_mut().zip(acc) {
            *o = m >> shift;
        }
    }
}

#[cfg(target_arch = "x86_64")]
mod x86 {
    //! The x86-64 kernels. Every function here is compiled with its target features enabled
    //! and must only be called on a CPU that has them (checked by `Isa::supported`).
    use core::arch::x86_64::*;

    use super::{LANES, MAX_GROUP};

    /// Loads the 8 words of `a[block * 8..block * 8 + 8]`.
    ///
    /// # Panics
    ///
    /// Panics if the block is out of bounds (never, for the padded coefficient arrays).
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn load8(a: &[u64], block: usize) -> __m512i {
        let words: &[u64; LANES] = a[block * LANES..block * LANES + LANES]
            .try_into()
            .expect("whole block");
        // SAFETY: `words` is 64 readable bytes; the load is unaligned.
        unsafe { _mm512_loadu_si512(words.as_ptr().cast()) }
    }

    /// Stores the (already shifted) minima of one block into `out` (1 to 8 words): a masked
    /// store writes only the lanes that exist.
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn store8(out: &mut [u64], v: __m512i) {
        debug_assert!(!out.is_empty() && out.len() <= LANES);
        let mask: __mmask8 = (0xffu32 >> (LANES - out.len().min(LANES))) as u8;
        // SAFETY: the mask selects exactly the first `out.len()` lanes, which are writable;
        // masked-off lanes are not accessed.
        unsafe { _mm512_mask_storeu_epi64(out.as_mut_ptr().cast(), mask, v) }
    }

    /// Shingles whose IFMA cross-term operand is computed ahead into a stack buffer. Small, so
    /// that clearing the buffer does not weigh on short sentences (a call signing one shingle
    /// took about 45 ns with 128, 30 ns with 32; 150 shingles the same within the noise).
    const CHUNK: usize = 32;

    /// The IFMA kernel.
    ///
    /// `vpmadd52luq`/`vpmadd52huq` multiply the low 52 bits of two lanes and add the low or
    /// high 52 bits of the 104-bit product to a 64-bit accumulator, in one uop each. Split
    /// `a = a0 + 2^52·a1` and `x = x0 + 2^52·x1` (`a0, x0 < 2^52`; `a1, x1 < 2^12`) and
    /// `b = 2^52·bh + bl`. Modulo `2^64`, `a·x = a0·x0 + 2^52·(a0·x1 + a1·x0)` (the `2^104`
    /// term vanishes), so
    ///
    /// ```text
    /// a·x + b = 2^52·t + bl + lo52(a0·x0)   (mod 2^64),   t = hi52(a0·x0) + bh + a0·x1 + a1·x0
    /// ```
    ///
    /// and only `t mod 2^12` matters. Per block and shingle:
    ///
    /// 1. `u = madd52hi(bh, a, x)`: `bh + hi52(a0·x0)` (IFMA reads only the low 52 bits of
    ///    `a` and `x`, so neither needs masking).
    /// 2. `u = madd52hi(u, ac, xc)` adds `a0·x1 + a1·x0 (mod 2^12)` to the low 12 bits of `u`
    ///    (and garbage above them). `ac = (a0 mod 2^12)·2^40 + a1·2^12` and
    ///    `xc = x1·2^12 + (x0 mod 2^12)·2^40` multiply to
    ///    `a0·x1·2^52 + a1·x0·2^52 + a0·x0·2^80 + a1·x1·2^24` (12-bit pieces): bits 52..63 of
    ///    the product hold the wanted sum mod `2^12`, `a1·x1·2^24 < 2^48` cannot carry into
    ///    them, and the `2^80` term lies above them.
    /// 3. `v = shld(u, bl·2^12, 52) = (u << 52) | bl`.
    /// 4. `r = madd52lo(v, a, x) = v + lo52(a0·x0)`, the exact 64-bit `a·x + b`.
    /// 5. `min = vpminuq(min, r)`.
    ///
    /// `xc` depends only on the shingle, so it is computed for a chunk of shingles ahead (five
    /// vector instructions per eight shingles) instead of once per block.
    #[target_feature(enable = "avx512f,avx512ifma,avx512vbmi2")]
    pub(super) fn ifma(a: &[u64], b: &[u64], shingles: &[u64], shift: u32, out: &mut [u64]) {
        let mut cross = [0u64; CHUNK];
        for (i, out) in out.chunks_mut(MAX_GROUP * LANES).enumerate() {
            let (first, x) = (i * MAX_GROUP, &mut cross);
            match out.len().div_ceil(LANES) {
                1 => ifma_pass::<1>(a, b, first, shingles, x, shift, out),
                2 => ifma_pass::<2>(a, b, first, shingles, x, shift, out),
                3 => ifma_pass::<3>(a, b, first, shingles, x, shift, out),
                _ => ifma_pass::<MAX_GROUP>(a, b, first, shingles, x, shift, out),
            }
        }
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512ifma,avx512vbmi2")]
    fn ifma_pass<const G: usize>(
        a: &[u64],
        b: &[u64],
        first: usize,
        shingles: &[u64],
        cross: &mut [u64; CHUNK],
        shift: u32,
        out: &mut [u64],
    ) {
        let low12 = _mm512_set1_epi64(0xfff);
        let av: [__m512i; G] = core::array::from_fn(|g| load8(a, first + g));
        let ac: [__m512i; G] = core::array::from_fn(|g| {
            let a0_low12 = _mm512_slli_epi64::<40>(_mm512_and_si512(av[g], low12));
            let a1 = _mm512_slli_epi64::<12>(_mm512_srli_epi64::<52>(av[g]));
            _mm512_or_si512(a0_low12, a1)
        });
        let bv: [__m512i; G] = core::array::from_fn(|g| load8(b, first + g));
        let bh: [__m512i; G] = core::array::from_fn(|g| _mm512_srli_epi64::<52>(bv[g]));
        let bl: [__m512i; G] = core::array::from_fn(|g| _mm512_slli_epi64::<12>(bv[g]));
        let mut min = [_mm512_set1_epi64(-1); G];
        for chunk in shingles.chunks(CHUNK) {
            cross_operands(chunk, cross);
            for (&x, &xc) in chunk.iter().zip(cross.iter()) {
                let x = _mm512_set1_epi64(x as i64);
                let xc = _mm512_set1_epi64(xc as i64);
                for g in 0..G {
                    let u = _mm512_madd52hi_epu64(bh[g], av[g], x);
                    let u = _mm512_madd52hi_epu64(u, ac[g], xc);
                    let v = _mm512_shldi_epi64::<52>(u, bl[g]);
                    let r = _mm512_madd52lo_epu64(v, av[g], x);
                    min[g] = _mm512_min_epu64(min[g], r);
                }
            }
        }
        let count = _mm_cvtsi32_si128(shift as i32);
        for (g, out) in out.chunks_mut(LANES).enumerate() {
            store8(out, _mm512_srl_epi64(min[g], count));
        }
    }

    /// `cross[i] = x1·2^12 + (x0 mod 2^12)·2^40` for each shingle `x = chunk[i]` (see [`ifma`]).
    #[inline]
    #[target_feature(enable = "avx512f")]
    fn cross_operands(chunk: &[u64], cross: &mut [u64; CHUNK]) {
        debug_assert!(chunk.len() <= CHUNK);
        let low12 = _mm512_set1_epi64(0xfff);
        let mut whole = chunk.chunks_exact(LANES);
        for (i, x) in (&mut whole).enumerate() {
            // SAFETY: `x` is 8 readable words.
            let x = unsafe { _mm512_loadu_si512(x.as_ptr().cast()) };
            let x1 = _mm512_slli_epi64::<12>(_mm512_srli_epi64::<52>(x));
            let x0 = _mm512_slli_epi64::<40>(_mm512_and_si512(x, low12));
            let words: &mut [u64; LANES] = (&mut cross[i * LANES..i * LANES + LANES])
                .try_into()
                .expect("chunk fits the buffer");
            // SAFETY: `words` is 64 writable bytes.
            unsafe { _mm512_storeu_si512(words.as_mut_ptr().cast(), _mm512_or_si512(x1, x0)) };
        }
        let done = chunk.len() - whole.remainder().len();
        for (c, &x) in cross[done..].iter_mut().zip(whole.remainder()) {
            *c = (x >> 52) << 12 | (x & 0xfff) << 40;
        }
    }

    /// The AVX-512DQ kernel: `vpmullq` (three uops), `vpaddq`, `vpminuq` per block and shingle.
    #[target_feature(enable = "avx512f,avx512dq")]
    pub(super) fn avx512(a: &[u64], b: &[u64], shingles: &[u64], shift: u32, out: &mut [u64]) {
        for (i, out) in out.chunks_mut(MAX_GROUP * LANES).enumerate() {
            let first = i * MAX_GROUP;
            match out.len().div_ceil(LANES) {
                1 => avx512_pass::<1>(a, b, first, shingles, shift, out),
                2 => avx512_pass::<2>(a, b, first, shingles, shift, out),
                3 => avx512_pass::<3>(a, b, first, shingles, shift, out),
                _ => avx512_pass::<MAX_GROUP>(a, b, first, shingles, shift, out),
            }
        }
    }

    #[inline]
    #[target_feature(enable = "avx512f,avx512dq")]
    fn avx512_pass<const G: usize>(
        a: &[u64],
        b: &[u64],
        first: usize,
        shingles: &[u64],
        shift: u32,
        out: &mut [u64],
    ) {
        let av: [__m512i; G] = core::array::from_fn(|g| load8(a, first + g));
        let bv: [__m512i; G] = core::array::from_fn(|g| load8(b, first + g));
        let mut min = [_mm512_set1_epi64(-1); G];
        for &x in shingles {
            let x = _mm512_set1_epi64(x as i64);
            for g in 0..G {
                let v = _mm512_add_epi64(_mm512_mullo_epi64(av[g], x), bv[g]);
                min[g] = _mm512_min_epu64(min[g], v);
            }
        }
        let count = _mm_cvtsi32_si128(shift as i32);
        for (g, out) in out.chunks_mut(LANES).enumerate() {
            store8(out, _mm512_srl_epi64(min[g], count));
        }
    }

    /// The AVX2 kernel, four lanes per vector, two vectors per block. AVX2 has neither a
    /// 64-bit multiply nor an unsigned 64-bit minimum:
    ///
    /// * `a·x mod 2^64 = lo(a)·lo(x) + ((hi(a)·lo(x) + lo(a)·hi(x)) << 32)` with `vpmuludq`
    ///   (32×32 -> 64 bits, reading the low half of each lane);
    /// * unsigned order is signed order after flipping the top bit, so the running minima are
    ///   kept flipped (`b` is flipped ahead: adding `2^63` flips the top bit) and compared
    ///   with `vpcmpgtq`.
    #[target_feature(enable = "avx2")]
    pub(super) fn avx2(a: &[u64], b: &[u64], shingles: &[u64], shift: u32, out: &mut [u64]) {
        // Two blocks (four vectors of running minima, their coefficients and temporaries) fill
        // the 16 ymm registers; larger groups would spill.
        for (i, out) in out.chunks_mut(2 * LANES).enumerate() {
            if out.len() > LANES {
                avx2_pass::<2, 4>(a, b, 2 * i, shingles, shift, out);
            } else {
                avx2_pass::<1, 2>(a, b, 2 * i, shingles, shift, out);
            }
        }
    }

    /// Loads the 4 words of `s[at..at + 4]`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn load4(s: &[u64], at: usize) -> __m256i {
        let words: &[u64; 4] = s[at..at + 4].try_into().expect("whole vector");
        // SAFETY: `words` is 32 readable bytes; the load is unaligned.
        unsafe { _mm256_loadu_si256(words.as_ptr().cast()) }
    }

    /// One pass over `G` blocks = `V = 2·G` vectors (`V` separately because array lengths
    /// cannot be computed from const parameters on stable Rust).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn avx2_pass<const G: usize, const V: usize>(
        a: &[u64],
        b: &[u64],
        first: usize,
        shingles: &[u64],
        shift: u32,
        out: &mut [u64],
    ) {
        debug_assert_eq!(V, 2 * G);
        let top = _mm256_set1_epi64x(i64::MIN);
        let alo: [__m256i; V] = core::array::from_fn(|v| load4(a, first * LANES + 4 * v));
        let ahi: [__m256i; V] = core::array::from_fn(|v| _mm256_srli_epi64::<32>(alo[v]));
        let bf: [__m256i; V] =
            core::array::from_fn(|v| _mm256_xor_si256(load4(b, first * LANES + 4 * v), top));
        // The flipped maximum, `u64::MAX ^ 2^63`.
        let mut min = [_mm256_set1_epi64x(i64::MAX); V];
        for &x in shingles {
            let xlo = _mm256_set1_epi64x(x as i64);
            let xhi = _mm256_set1_epi64x((x >> 32) as i64);
            for v in 0..V {
                let low = _mm256_mul_epu32(alo[v], xlo);
                let cross =
                    _mm256_add_epi64(_mm256_mul_epu32(ahi[v], xlo), _mm256_mul_epu32(alo[v], xhi));
                let product = _mm256_add_epi64(low, _mm256_slli_epi64::<32>(cross));
                let flipped = _mm256_add_epi64(product, bf[v]);
                let smaller = _mm256_cmpgt_epi64(min[v], flipped);
                min[v] = _mm256_blendv_epi8(min[v], flipped, smaller);
            }
        }
        let mut words = [[0u64; 4]; V];
        for (w, m) in words.iter_mut().zip(min) {
            let m = _mm256_xor_si256(m, top);
            // SAFETY: `w` is 32 writable bytes.
            unsafe { _mm256_storeu_si256(w.as_mut_ptr().cast(), m) };
        }
        for (o, w) in out.iter_mut().zip(words.as_flattened()) {
            *o = w >> shift;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(a: &[u64], b: &[u64], shingles: &[u64], shift: u32, n: usize) -> Vec<u64> {
        (0..n)
            .map(|i| {
                let min = shingles
                    .iter()
                    .map(|&x| a[i].wrapping_mul(x).wrapping_add(b[i]))
                    .min()
                    .unwrap_or(u64::MAX);
                min >> shift
            })
            .collect()
    }

    /// Coefficients and shingles that exercise every bit of the IFMA split (the top 12 bits,
    /// the low 12 bits, carries out of the low 52 bits).
    fn awkward(i: u64) -> u64 {
        match i % 7 {
            0 => u64::MAX,
            1 => 1 << 52,
            2 => (1 << 52) - 1,
            3 => 0xfff0_0000_0000_0fff,
            4 => 0,
            _ => textreuse_hash::mix64(i),
        }
    }

    #[test]
    fn every_isa_gives_the_same_minima() {
        let isas = Isa::supported();
        eprintln!("kernels on this CPU: {isas:?}");
        for n in [1usize, 7, 8, 9, 20, 24, 31, 32, 33, 40, 64, 100, 128] {
            let padded = n.div_ceil(LANES) * LANES;
            let a: Vec<u64> = (0..padded as u64)
                .map(|i| {
                    if i % 3 == 0 {
                        awkward(i)
                    } else {
                        textreuse_hash::mix64(i) | 1
                    }
                })
                .collect();
            let b: Vec<u64> = (0..padded as u64).map(|i| awkward(i + 99)).collect();
            for len in [0usize, 1, 7, 8, 150, 257, 300] {
                let shingles: Vec<u64> = (0..len as u64)
                    .map(|i| {
                        if i % 5 == 0 {
                            awkward(i)
                        } else {
                            textreuse_hash::mix64(i * 7)
                        }
                    })
                    .collect();
                for shift in [0u32, 4, 63] {
                    let want = naive(&a, &b, &shingles, shift, n);
                    for &isa in &isas {
                        let mut out = vec![0u64; n];
                        min_hashes(isa, &a, &b, &shingles, shift, &mut out);
                        assert_eq!(out, want, "{isa:?} n={n} len={len} shift={shift}");
                    }
                }
            }
        }
    }

    #[test]
    fn out_shorter_than_the_padding_is_left_alone_past_its_end() {
        // Only `out` is written: the padded lanes of the last block are computed, not stored.
        let a = vec![3u64; 16];
        let b = vec![5u64; 16];
        for isa in Isa::supported() {
            let mut buf = [7u64; 16];
            min_hashes(isa, &a, &b, &[1, 2], 0, &mut buf[..9]);
            assert_eq!(&buf[..9], &[8; 9], "{isa:?}");
            assert_eq!(&buf[9..], &[7; 7], "{isa:?}");
        }
    }
}
