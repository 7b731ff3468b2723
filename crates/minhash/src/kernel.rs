//! The signing kernel: `out[i] = min over x of (a_i·x + b_i) mod 2^64`, shifted at the end.
//!
//! The shift `>> (64 - m)` is monotone, so it commutes with `min` and is applied once per
//! function instead of once per (function, shingle). The functions are processed in blocks of
//! lanes held in fixed-size arrays, which LLVM turns into vector multiplies: `vpmullq` with
//! AVX-512DQ, a three-multiply emulation with AVX2, scalar `imul` elsewhere. The same generic code
//! is compiled three times and chosen once at run time, so results are identical on every CPU.

/// Lanes per vector block; the family's arrays are padded to a multiple of this.
pub(crate) const LANES: usize = 8;

/// Which compiled copy of the kernel runs on this CPU.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Isa {
    #[cfg(target_arch = "x86_64")]
    Avx512,
    #[cfg(target_arch = "x86_64")]
    Avx2,
    Portable,
}

impl Isa {
    pub(crate) fn detect() -> Isa {
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx512f")
                && std::is_x86_feature_detected!("avx512dq")
                && std::is_x86_feature_detected!("avx512vl")
            {
                return Isa::Avx512;
            }
            if std::is_x86_feature_detected!("avx2") {
                return Isa::Avx2;
            }
        }
        Isa::Portable
    }
}

/// One block of `B` functions over all shingles.
#[inline(always)]
fn block<const B: usize>(a: &[u64; B], b: &[u64; B], shingles: &[u64], out: &mut [u64; B]) {
    let mut acc = [u64::MAX; B];
    for &x in shingles {
        for l in 0..B {
            let v = a[l].wrapping_mul(x).wrapping_add(b[l]);
            acc[l] = if v < acc[l] { v } else { acc[l] };
        }
    }
    *out = acc;
}

/// The whole kernel, generic so each ISA gets its own compiled copy.
///
/// `a` and `b` have a length that is a multiple of [`LANES`]; `out` has the same length and gets
/// the unshifted minima.
#[inline(always)]
fn kernel(a: &[u64], b: &[u64], shingles: &[u64], out: &mut [u64]) {
    debug_assert_eq!(a.len() % LANES, 0);
    debug_assert_eq!(a.len(), b.len());
    debug_assert_eq!(a.len(), out.len());
    // Four vectors at a time keep four independent multiply chains in flight; the tail uses
    // the largest smaller block.
    let mut i = 0;
    let n = a.len();
    while n - i >= 4 * LANES {
        run::<{ 4 * LANES }>(a, b, shingles, out, i);
        i += 4 * LANES;
    }
    match (n - i) / LANES {
        3 => run::<{ 3 * LANES }>(a, b, shingles, out, i),
        2 => run::<{ 2 * LANES }>(a, b, shingles, out, i),
        1 => run::<LANES>(a, b, shingles, out, i),
        _ => {}
    }
}

#[inline(always)]
fn run<const B: usize>(a: &[u64], b: &[u64], shingles: &[u64], out: &mut [u64], at: usize) {
    let a: &[u64; B] = a[at..at + B].try_into().expect("block in bounds");
    let b: &[u64; B] = b[at..at + B].try_into().expect("block in bounds");
    let out: &mut [u64; B] = (&mut out[at..at + B]).try_into().expect("block in bounds");
    block(a, b, shingles, out);
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512dq,avx512vl")]
fn kernel_avx512(a: &[u64], b: &[u64], shingles: &[u64], out: &mut [u64]) {
    kernel(a, b, shingles, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
fn kernel_avx2(a: &[u64], b: &[u64], shingles: &[u64], out: &mut [u64]) {
    kernel(a, b, shingles, out)
}

/// Runs the kernel compiled for `isa`.
#[inline]
pub(crate) fn min_hashes(isa: Isa, a: &[u64], b: &[u64], shingles: &[u64], out: &mut [u64]) {
    match isa {
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Isa::Avx512` is only produced by `Isa::detect` after the CPU reported
        // avx512f, avx512dq and avx512vl.
        Isa::Avx512 => unsafe { kernel_avx512(a, b, shingles, out) },
        #[cfg(target_arch = "x86_64")]
        // SAFETY: `Isa::Avx2` is only produced by `Isa::detect` after the CPU reported avx2.
        Isa::Avx2 => unsafe { kernel_avx2(a, b, shingles, out) },
        Isa::Portable => kernel(a, b, shingles, out),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_isa_gives_the_same_minima() {
        let a: Vec<u64> = (0..40u64).map(|i| textreuse_hash::mix64(i) | 1).collect();
        let b: Vec<u64> = (0..40u64).map(|i| textreuse_hash::mix64(i + 99)).collect();
        let shingles: Vec<u64> = (0..257u64).map(|i| textreuse_hash::mix64(i * 7)).collect();
        let mut want = vec![0u64; 40];
        for i in 0..40 {
            want[i] = shingles
                .iter()
                .map(|&x| a[i].wrapping_mul(x).wrapping_add(b[i]))
                .min()
                .unwrap();
        }
        let mut isas = vec![Isa::Portable];
        #[cfg(target_arch = "x86_64")]
        {
            if std::is_x86_feature_detected!("avx2") {
                isas.push(Isa::Avx2);
            }
            if Isa::detect() == Isa::Avx512 {
                isas.push(Isa::Avx512);
            }
        }
        for isa in isas {
            let mut out = vec![0u64; 40];
            min_hashes(isa, &a, &b, &shingles, &mut out);
            assert_eq!(out, want, "{isa:?}");
        }
    }
}
