use super::{
    FINGERPRINT_BLOCK, FINGERPRINT_COEFFICIENTS, Family, FamilyKind, HashError, MultiplyAddShift,
    MultiplyShift, Xoshiro256PlusPlus, fingerprint, fingerprint_words, mix64,
};
use proptest::prelude::*;
use rand_xoshiro::rand_core::{Rng as _, SeedableRng as _};

/// Known answers: these values must never change, or every stored signature becomes useless.
#[test]
fn family_known_answers() {
    let f = Family::new(FamilyKind::MultiplyAddShift, 3, 60, 1123456).unwrap();
    assert_eq!(f.multipliers(), &KAT_MULTIPLIERS);
    assert_eq!(f.increments(), &KAT_INCREMENTS);
    assert_eq!(f.hash(0, 0), KAT_INCREMENTS[0] >> 4);
    assert_eq!(f.hash(2, 12345), KAT_HASH_2_12345);

    // Plain multiply-shift draws one word per function, so its multipliers differ after the first.
    let g = Family::new(FamilyKind::MultiplyShift, 2, 60, 1123456).unwrap();
    assert_eq!(g.multipliers()[0], KAT_MULTIPLIERS[0]);
    assert_eq!(g.multipliers()[1], KAT_INCREMENTS[0] | 1);
    assert_eq!(g.increments(), &[0, 0]);
}

const KAT_MULTIPLIERS: [u64; 3] = [
    14943657129773432247,
    3794905298119703067,
    17319407735318988103,
];
const KAT_INCREMENTS: [u64; 3] = [
    15069056570315593481,
    14390109736883745598,
    11218624540447840077,
];
const KAT_HASH_2_12345: u64 = 193534917871449409;

#[test]
fn fingerprint_known_answers() {
    let cases: [(&[u8], u64); 6] = [
        (b"", 0xf4d5e4d87c4ef1e2),
        (b"a", 0x2849461772d26f42),
        (b"twelve chars", 0xcf4019774b6a9cb9),
        ("naïve café".as_bytes(), 0x0f1e0fa83b3829d3),
        (&[0u8; 8], 0x10ae96220de6ab95),
        (&[7u8; 1000], 0xfbfbeb1ec860b0aa),
    ];
    for (input, want) in cases {
        assert_eq!(fingerprint(input), want, "input {input:?}");
    }
    assert_eq!(fingerprint_words(&[]), 0xf4d5e4d87c4ef1e2);
    assert_eq!(fingerprint_words(&[1, 2, 3]), 0x377ad20e3e8d8e97);
    assert_eq!(mix64(1), 0x5692161d100b05e5);
}

/// The exported coefficients are part of the stable interface (`textreuse-shingle` hashes with
/// them directly): pin the first two and the last, whole.
#[test]
fn fingerprint_coefficients_known_answers() {
    assert_eq!(FINGERPRINT_COEFFICIENTS.len(), FINGERPRINT_BLOCK + 1);
    assert_eq!(
        FINGERPRINT_COEFFICIENTS[0],
        0xf4d5e4d87c4ef1e2_99063f6d3ebf0a80
    );
    assert_eq!(
        FINGERPRINT_COEFFICIENTS[1],
        0xb4f2b9842ee3cc99_80f752264da31333
    );
    assert_eq!(
        FINGERPRINT_COEFFICIENTS[32],
        0x72d0ebae54330b0c_c332c99f8d0f49ca
    );
}

#[test]
fn errors() {
    assert_eq!(
        Family::new(FamilyKind::MultiplyShift, 1, 0, 1),
        Err(HashError::InvalidBits { bits: 0 })
    );
    assert_eq!(
        Family::new(FamilyKind::MultiplyShift, 1, 65, 1),
        Err(HashError::InvalidBits { bits: 65 })
    );
    assert_eq!(
        Family::new(FamilyKind::MultiplyShift, 0, 60, 1),
        Err(HashError::EmptyFamily)
    );
    assert_eq!(
        MultiplyShift::new(2, 10),
        Err(HashError::EvenMultiplier { multiplier: 2 })
    );
    assert!(
        HashError::InvalidBits { bits: 99 }
            .to_string()
            .contains("99")
    );
}

#[test]
fn sixty_four_bits_is_the_plain_product() {
    let h = MultiplyAddShift::new(3, 5, 64).unwrap();
    assert_eq!(h.hash(7), 26);
    let h = MultiplyShift::new(u64::MAX, 64).unwrap();
    assert_eq!(h.hash(2), u64::MAX.wrapping_mul(2));
}

#[test]
fn chaining_changes_long_inputs() {
    // Inputs longer than one block (31 words) go through the chaining path; a change in any
    // block must still change the fingerprint.
    let base = vec![1u8; 8 * 100];
    for pos in [0usize, 7, 247, 248, 255, 256, 500, 799] {
        let mut other = base.clone();
        other[pos] ^= 1;
        assert_ne!(fingerprint(&base), fingerprint(&other), "byte {pos}");
    }
}

/// Number of standard deviations allowed in statistical checks: a false alarm at 4.5 sigma has
/// probability about 7e-6 per check.
const SIGMAS: f64 = 4.5;

/// Trials for the collision-rate test: quick in CI, long with `TEXTREUSE_LONG_TESTS=1`.
fn trials(quick: u64, long: u64) -> u64 {
    if std::env::var_os("TEXTREUSE_LONG_TESTS").is_some() {
        long
    } else {
        quick
    }
}

/// Checks the universal bound `P[h(x) = h(y)] <= 2 / 2^m` over random odd multipliers, for fixed
/// key pairs, including structured ones (keys differing in one high or low bit) where a weak
/// hash would fail. Each pair is tested on its own, as the bound is a statement per pair.
fn check_universal(kind: FamilyKind, bits: u32, pairs: &[(u64, u64)]) {
    let n = trials(200_000, 5_000_000);
    let bound = 2.0 / (1u64 << bits) as f64;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(42 + bits as u64);
    for &(x, y) in pairs {
        let mut collisions = 0u64;
        for _ in 0..n {
            let h = match kind {
                FamilyKind::MultiplyShift => {
                    let f = MultiplyShift::random(&mut rng, bits).unwrap();
                    f.hash(x) == f.hash(y)
                }
                FamilyKind::MultiplyAddShift => {
                    let f = MultiplyAddShift::random(&mut rng, bits).unwrap();
                    f.hash(x) == f.hash(y)
                }
            };
            collisions += h as u64;
        }
        let rate = collisions as f64 / n as f64;
        let sigma = (bound * (1.0 - bound) / n as f64).sqrt();
        assert!(
            rate <= bound + SIGMAS * sigma,
            "{kind:?} m={bits} pair ({x:#x},{y:#x}): collision rate {rate} over {n} functions \
             exceeds the universal bound {bound} (+{SIGMAS} sigma = {})",
            SIGMAS * sigma
        );
    }
}

fn structured_pairs() -> Vec<(u64, u64)> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(7);
    let mut pairs = vec![
        (0, 1),
        (1, 2),
        (0, 1 << 63),
        (0x1234, 0x1234 + (1 << 32)),
        (u64::MAX, u64::MAX - 1),
    ];
    for _ in 0..3 {
        let x = rng.next_u64();
        let mut y = rng.next_u64();
        if y == x {
            y ^= 1;
        }
        pairs.push((x, y));
    }
    pairs
}

#[test]
fn multiply_shift_is_universal() {
    for bits in [4, 8, 10] {
        check_universal(FamilyKind::MultiplyShift, bits, &structured_pairs());
    }
}

#[test]
fn multiply_add_shift_is_universal() {
    for bits in [4, 8, 10] {
        check_universal(FamilyKind::MultiplyAddShift, bits, &structured_pairs());
    }
}

/// For random keys the collision rate should sit near `1 / 2^m`, not just under the bound: a
/// hash that collapsed half its range would still pass the bound at small m.
#[test]
fn random_key_collision_rate_is_near_uniform() {
    let bits = 8;
    let n = trials(400_000, 10_000_000);
    let family = Family::new(FamilyKind::MultiplyAddShift, 1, bits, 99).unwrap();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let mut collisions = 0u64;
    for _ in 0..n {
        let (x, y) = (rng.next_u64(), rng.next_u64());
        collisions += (family.hash(0, x) == family.hash(0, y)) as u64;
    }
    let p = 1.0 / 256.0;
    let rate = collisions as f64 / n as f64;
    let sigma = (p * (1.0 - p) / n as f64).sqrt();
    assert!(
        (rate - p).abs() <= SIGMAS * sigma,
        "rate {rate} vs {p} (sigma {sigma})"
    );
}

proptest! {
    #[test]
    fn outputs_fit_in_m_bits(seed: u64, bits in 1u32..=64, x: u64, n in 1usize..40) {
        for kind in [FamilyKind::MultiplyShift, FamilyKind::MultiplyAddShift] {
            let f = Family::new(kind, n, bits, seed).unwrap();
            let mut out = vec![0; n];
            f.hash_all(x, &mut out);
            for (i, &h) in out.iter().enumerate() {
                prop_assert_eq!(h, f.hash(i, x));
                prop_assert_eq!(h, f.get(i).hash(x));
                if bits < 64 {
                    prop_assert!(h < (1u64 << bits));
                }
            }
        }
    }

    #[test]
    fn same_seed_same_family(seed: u64, bits in 1u32..=64, n in 1usize..40) {
        let a = Family::new(FamilyKind::MultiplyAddShift, n, bits, seed).unwrap();
        let b = Family::new(FamilyKind::MultiplyAddShift, n, bits, seed).unwrap();
        prop_assert_eq!(&a, &b);
        prop_assert!(a.multipliers().iter().all(|m| m & 1 == 1));
        // A family of n functions is a prefix of a family of n + 1 from the same seed.
        let c = Family::new(FamilyKind::MultiplyAddShift, n + 1, bits, seed).unwrap();
        prop_assert_eq!(&c.multipliers()[..n], a.multipliers());
    }

    /// The one-block fast path of `fingerprint_words` equals the chaining hasher, on both
    /// sides of the block boundary.
    #[test]
    fn fingerprint_words_fast_path_equals_streamed(words in proptest::collection::vec(any::<u64>(), 0..70)) {
        prop_assert_eq!(fingerprint_words(&words), super::fingerprint_words_streamed(&words));
    }

    #[test]
    fn fingerprint_is_deterministic_and_length_aware(bytes in proptest::collection::vec(any::<u8>(), 0..600)) {
        prop_assert_eq!(fingerprint(&bytes), fingerprint(&bytes.clone()));
        let mut longer = bytes.clone();
        longer.push(0);
        prop_assert_ne!(fingerprint(&bytes), fingerprint(&longer));
    }
}
