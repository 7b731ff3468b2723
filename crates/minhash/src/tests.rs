//! Tests of the signer, including the statistical tests that prove the collision math.
//!
//! The statistical tests draw pairs of sets with exactly controlled Jaccard similarity
//! `s = |A∩B| / |A∪B|` (random 64-bit elements, like shingle fingerprints) and compare observed
//! collision rates with the formulas. Tolerances are 4.5 standard errors (a false alarm has
//! probability ~7e-6 per check). Quick mode runs in CI; `TEXTREUSE_LONG_TESTS=1` runs 25x more
//! trials and prints the observed rates.
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use textreuse_hash::{Xoshiro256PlusPlus, fingerprint};

use crate::{BandScheme, BuildError, DEFAULT_SEED, SignError, Signer, SignerBuilder};

const SIGMAS: f64 = 4.5;

fn long_mode() -> bool {
    std::env::var_os("TEXTREUSE_LONG_TESTS").is_some()
}

fn trials(quick: usize) -> usize {
    if long_mode() { quick * 25 } else { quick }
}

/// Two sets with `inter` shared elements and `union` elements in all, split as evenly as
/// possible between the two sides; Jaccard is exactly `inter / union`.
fn pair(rng: &mut Xoshiro256PlusPlus, inter: usize, union: usize) -> (Vec<u64>, Vec<u64>) {
    let mut all: Vec<u64> = Vec::with_capacity(union);
    while all.len() < union {
        all.push(rng.next_u64());
        if all.len() == union {
            all.sort_unstable();
            all.dedup();
        }
    }
    // Shuffle so the shared part is not the smallest keys.
    for i in (1..all.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        all.swap(i, j);
    }
    let only = union - inter;
    let only_a = only / 2;
    let a: Vec<u64> = all[..inter + only_a].to_vec();
    let mut b: Vec<u64> = all[..inter].to_vec();
    b.extend_from_slice(&all[inter + only_a..]);
    (a, b)
}

/// Mean and standard error of a sample.
fn mean_se(xs: &[f64]) -> (f64, f64) {
    let n = xs.len() as f64;
    let mean = xs.iter().sum::<f64>() / n;
    let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n - 1.0);
    (mean, (var / n).sqrt())
}

fn check_rate(what: &str, hits: usize, n: usize, p: f64) {
    let rate = hits as f64 / n as f64;
    let sigma = (p * (1.0 - p) / n as f64).sqrt().max(1.0 / n as f64);
    if long_mode() {
        eprintln!("{what}: observed {rate:.5} expected {p:.5} over {n} trials (sigma {sigma:.5})");
    }
    assert!(
        (rate - p).abs() <= SIGMAS * sigma,
        "{what}: observed {rate:.5}, expected {p:.5} +- {:.5} ({SIGMAS} sigma, {n} trials)",
        SIGMAS * sigma
    );
}

const UNION: usize = 200;

/// One minhash agrees with probability s. Every trial is a fresh pair; all N functions are
/// counted, and the standard error comes from the spread of the per-trial agreement fraction, so
/// correlation between functions cannot make the test overconfident.
#[test]
fn one_minhash_collides_with_rate_s() {
    let signer = Signer::new();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    for inter in [20, 100, 160, 190] {
        let s = inter as f64 / UNION as f64;
        let n = trials(4_000);
        let fractions: Vec<f64> = (0..n)
            .map(|_| {
                let (a, b) = pair(&mut rng, inter, UNION);
                let (sa, sb) = (signer.sign(a).unwrap(), signer.sign(b).unwrap());
                sa.jaccard(&sb)
            })
            .collect();
        let (mean, se) = mean_se(&fractions);
        if long_mode() {
            eprintln!("one minhash, s={s}: observed {mean:.5} (se {se:.5}) over {n} pairs x 20");
        }
        assert!(
            (mean - s).abs() <= SIGMAS * se,
            "s={s}: mean agreement {mean:.5}, expected {s} +- {:.5}",
            SIGMAS * se
        );
    }
}

/// The Jaccard estimate is unbiased and its mean squared error is s(1-s)/N, as for N independent
/// agreements.
#[test]
fn jaccard_estimate_error_matches_its_standard_deviation() {
    let signer = SignerBuilder::new().hashes(64).build().unwrap();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
    for inter in [60, 140] {
        let s = inter as f64 / UNION as f64;
        let n = trials(3_000);
        let squared: Vec<f64> = (0..n)
            .map(|_| {
                let (a, b) = pair(&mut rng, inter, UNION);
                let est = signer.sign(a).unwrap().jaccard(&signer.sign(b).unwrap());
                (est - s) * (est - s)
            })
            .collect();
        let (mse, se) = mean_se(&squared);
        let want = s * (1.0 - s) / 64.0;
        if long_mode() {
            eprintln!(
                "jaccard estimate, s={s}: rmse {:.5}, sqrt(s(1-s)/N) {:.5}",
                mse.sqrt(),
                want.sqrt()
            );
        }
        assert!(
            (mse - want).abs() <= SIGMAS * se,
            "s={s}: mean squared error {mse:.6}, expected {want:.6} +- {:.6}",
            SIGMAS * se
        );
    }
}

/// One band signature of K minhashes matches with probability s^K.
#[test]
fn one_band_collides_with_rate_s_to_the_k() {
    let signer = Signer::new();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    for inter in [150, 180, 190] {
        let s = inter as f64 / UNION as f64;
        let n = trials(8_000);
        let mut hits = 0;
        for _ in 0..n {
            let (a, b) = pair(&mut rng, inter, UNION);
            let (sa, sb) = (signer.sign(a).unwrap(), signer.sign(b).unwrap());
            hits +=
                (signer.band_key(sa.as_slice(), 0) == signer.band_key(sb.as_slice(), 0)) as usize;
        }
        check_rate(&format!("band 0, s={s}, K=10"), hits, n, s.powi(10));
    }
}

fn any_band_matches(signer: &Signer, a: Vec<u64>, b: Vec<u64>) -> bool {
    let (sa, sb) = (signer.sign(a).unwrap(), signer.sign(b).unwrap());
    signer
        .band_keys(&sa)
        .zip(signer.band_keys(&sb))
        .any(|(x, y)| x == y)
}

/// Drawn bands follow the inclusion-exclusion curve, and the data rejects the independent
/// approximation where the two differ.
#[test]
fn drawn_bands_follow_the_exact_curve() {
    let signer = Signer::new();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
    for inter in [140, 170, 180] {
        let s = inter as f64 / UNION as f64;
        let n = trials(6_000);
        let hits = (0..n)
            .filter(|_| {
                let (a, b) = pair(&mut rng, inter, UNION);
                any_band_matches(&signer, a, b)
            })
            .count();
        let exact = signer.exact_match_probability(s);
        check_rate(&format!("drawn N=20 K=10 M=10, s={s}"), hits, n, exact);
        let independent = signer.independent_approximation(s);
        let rate = hits as f64 / n as f64;
        let sigma = (independent * (1.0 - independent) / n as f64).sqrt();
        if (independent - exact).abs() > 10.0 * sigma {
            assert!(
                (rate - independent).abs() > SIGMAS * sigma,
                "s={s}: data {rate} unexpectedly fits the independent approximation {independent}"
            );
        }
    }
}

/// Disjoint bands follow 1 - (1 - s^K)^M.
#[test]
fn disjoint_bands_follow_the_closed_form() {
    let signer = SignerBuilder::new()
        .scheme(BandScheme::Disjoint)
        .rows(5)
        .bands(4)
        .build()
        .unwrap();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    for inter in [80, 120, 160] {
        let s = inter as f64 / UNION as f64;
        let n = trials(6_000);
        let hits = (0..n)
            .filter(|_| {
                let (a, b) = pair(&mut rng, inter, UNION);
                any_band_matches(&signer, a, b)
            })
            .count();
        let p = 1.0 - (1.0 - s.powi(5)).powi(4);
        assert!((signer.exact_match_probability(s) - p).abs() < 1e-12);
        check_rate(&format!("disjoint K=5 M=4, s={s}"), hits, n, p);
    }
}

#[test]
fn exact_curve_for_the_research_parameters() {
    // DESIGN.md: for N = 20, K = 10, M = 10 the independent formula gives 0.986 at s = 0.9, the
    // exact value for random draws about 0.78-0.84.
    let signer = Signer::new();
    let exact = signer.exact_match_probability(0.9);
    assert!((0.7..0.9).contains(&exact), "{exact}");
    // Pinned: the drawn subsets for seed 1123456 give this exact value.
    assert!((exact - 0.826_993_458_030_480_4).abs() < 1e-12, "{exact}");
    assert!((signer.independent_approximation(0.9) - 0.98626).abs() < 1e-4);
    assert_eq!(signer.exact_match_probability(0.0), 0.0);
    assert!((signer.exact_match_probability(1.0) - 1.0).abs() < 1e-12);
    // Monotone in s.
    let mut last = 0.0;
    for i in 0..=100 {
        let p = signer.exact_match_probability(i as f64 / 100.0);
        assert!(p >= last - 1e-12);
        last = p;
    }
}

fn oph(rows: usize, bands: usize, seed: u64) -> Signer {
    SignerBuilder::new()
        .scheme(BandScheme::Oph)
        .rows(rows)
        .bands(bands)
        .seed(seed)
        .build()
        .unwrap()
}

/// Every OPH bin agrees with probability s, for sets much smaller than the 143 bins (most bins
/// borrowed), about as large, and larger. Fresh pairs per trial; the standard error comes from
/// the spread of the per-pair agreement fraction.
#[test]
fn oph_bins_collide_with_rate_s() {
    let signer = oph(11, 13, DEFAULT_SEED);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    for (inter, union) in [
        (1, 4),
        (3, 6),
        (10, 20),
        (100, 160),
        (150, 160),
        (700, 1000),
    ] {
        let s = inter as f64 / union as f64;
        let n = trials(3_000);
        let fractions: Vec<f64> = (0..n)
            .map(|_| {
                let (a, b) = pair(&mut rng, inter, union);
                signer.sign(a).unwrap().jaccard(&signer.sign(b).unwrap())
            })
            .collect();
        let (mean, se) = mean_se(&fractions);
        if long_mode() {
            eprintln!("oph bin, s={s} (union {union}): observed {mean:.5} (se {se:.5})");
        }
        assert!(
            (mean - s).abs() <= SIGMAS * se,
            "union {union}, s={s}: mean agreement {mean:.5}, expected {s} +- {:.5}",
            SIGMAS * se
        );
    }
}

/// Densification copies values, so a signature has as many distinct values as the set filled
/// bins; their number follows the occupancy law `D (1 - (1 - 1/D)^n)`, and a single shingle
/// fills every bin with its own value.
#[test]
fn oph_empty_bins_follow_the_occupancy_law() {
    let signer = oph(11, 13, DEFAULT_SEED);
    let d = 143.0f64;
    let one = signer.sign([42]).unwrap();
    assert!(one.as_slice().iter().all(|&v| v == one.as_slice()[0]));
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(12);
    for n in [2usize, 5, 20, 75, 150, 600] {
        let trials = trials(2_000);
        let filled: Vec<f64> = (0..trials)
            .map(|_| {
                let set: Vec<u64> = (0..n).map(|_| rng.next_u64()).collect();
                let mut values = signer.sign(set).unwrap().as_slice().to_vec();
                values.sort_unstable();
                values.dedup();
                values.len() as f64
            })
            .collect();
        let (mean, se) = mean_se(&filled);
        let want = d * (1.0 - (1.0 - 1.0 / d).powi(n as i32));
        if long_mode() {
            eprintln!("oph filled bins, n={n}: observed {mean:.3} (se {se:.3}) expected {want:.3}");
        }
        assert!(
            (mean - want).abs() <= SIGMAS * se.max(1e-3),
            "n={n}: {mean} filled bins, expected {want}"
        );
    }
}

/// The band curve of small sets (where borrowing dominates) is the sized formula, averaged
/// over seeds: each trial draws a new seed, so the bins' borrowing orders are random as the
/// formula assumes. Small K and M make the differences from 1 - (1 - s^K)^M large.
#[test]
fn oph_bands_follow_the_sized_curve_over_seeds() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(13);
    for (rows, bands, inter, union) in [(3, 4, 6, 12), (2, 6, 8, 20), (3, 3, 4, 6), (5, 4, 30, 40)]
    {
        let exact = oph(rows, bands, 0).match_probability(inter, union);
        let n = trials(6_000);
        let hits = (0..n)
            .filter(|_| {
                let signer = oph(rows, bands, rng.next_u64());
                let (a, b) = pair(&mut rng, inter, union);
                any_band_matches(&signer, a, b)
            })
            .count();
        let limit = crate::independent(inter as f64 / union as f64, rows, bands);
        check_rate(
            &format!("oph K={rows} M={bands}, {inter}/{union} (large-set curve {limit:.4})"),
            hits,
            n,
            exact,
        );
    }
}

/// With one fixed seed (the default) and 143 bins, sentence-sized sets follow the sized curve
/// too: the seed's particular borrowing orders do not show at this size.
#[test]
fn oph_bands_follow_the_sized_curve_for_one_seed() {
    let signer = oph(11, 13, DEFAULT_SEED);
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(14);
    // Two sentences of 75 shingles at Jaccard 0.5, 0.7 and 0.9, then 150 at 0.8.
    for (inter, union) in [(50, 100), (88, 126), (71, 79), (133, 167)] {
        let exact = signer.match_probability(inter, union);
        let n = trials(6_000);
        let hits = (0..n)
            .filter(|_| {
                let (a, b) = pair(&mut rng, inter, union);
                any_band_matches(&signer, a, b)
            })
            .count();
        check_rate(
            &format!("oph K=11 M=13 seed {DEFAULT_SEED}, {inter}/{union}"),
            hits,
            n,
            exact,
        );
    }
}

#[test]
fn oph_known_answers() {
    let text = "The quick brown fox jumps over the lazy dog near the river bank.";
    let shingles: Vec<u64> = text.as_bytes().windows(12).map(fingerprint).collect();
    let signer = oph(11, 13, DEFAULT_SEED);
    assert_eq!(signer.hashes(), 143);
    assert!(signer.family().is_none());
    let sig = signer.sign(shingles.iter().copied()).unwrap();
    let keys: Vec<u64> = signer.band_keys(&sig).collect();
    assert_eq!(&sig.as_slice()[..4], &OPH_KAT_MINS);
    assert_eq!(keys, OPH_KAT_KEYS);
}

const OPH_KAT_MINS: [u64; 4] = [
    933277831156490987,
    266955064975870558,
    215778089813681221,
    933277831156490987,
];
const OPH_KAT_KEYS: [u64; 13] = [
    18063871309479306895,
    3020269913825416463,
    16954053465226837258,
    5435745679499894708,
    4300955864348648281,
    16840603983195880833,
    10741709158597996913,
    10104863075838237528,
    17916179289841429719,
    16977026693064587454,
    3613453506679762632,
    9550116962886747132,
    10408217740756291790,
];

/// Known answers: the signature and band keys of a fixed sentence with the default signer. If
/// these change, stored band keys from earlier runs no longer match new ones.
#[test]
fn known_answers() {
    let text = "The quick brown fox jumps over the lazy dog near the river bank.";
    let shingles: Vec<u64> = text.as_bytes().windows(12).map(fingerprint).collect();
    let signer = Signer::new();
    let sig = signer.sign(shingles.iter().copied()).unwrap();
    assert_eq!(&sig.as_slice()[..4], &KAT_MINS);
    let keys: Vec<u64> = signer.band_keys(&sig).collect();
    assert_eq!(keys, KAT_KEYS);
    assert_eq!(signer.band(0), &KAT_BAND0);
}

const KAT_MINS: [u64; 4] = [
    27995113024698692,
    5718086014172266,
    671016564481009,
    14343615164999782,
];
const KAT_KEYS: [u64; 10] = [
    10230062750022123953,
    5720584062008766751,
    16723284134827577986,
    12993601466723395733,
    12816681274220421042,
    12086284155827717764,
    63316125013385327,
    16892050131766662593,
    525444268244997447,
    18224905166747412063,
];
const KAT_BAND0: [u32; 10] = [0, 1, 3, 5, 7, 8, 11, 12, 14, 17];

/// Every way to get band keys hashes the same words, for small bands (stack buffer) and large
/// ones (allocated).
#[test]
fn band_keys_agree_for_small_and_large_bands() {
    let shingles: Vec<u64> = (0..100).map(textreuse_hash::mix64).collect();
    for (rows, bands) in [(10, 10), (31, 2), (32, 2), (40, 3)] {
        let signer = SignerBuilder::new()
            .scheme(BandScheme::Disjoint)
            .rows(rows)
            .bands(bands)
            .build()
            .unwrap();
        let sig = signer.sign(shingles.iter().copied()).unwrap();
        let mut into = vec![0; bands];
        signer.band_keys_into(sig.as_slice(), &mut into);
        let iter: Vec<u64> = signer.band_keys(&sig).collect();
        for m in 0..bands {
            let mut words = vec![m as u64];
            words.extend(signer.band(m).iter().map(|&f| sig.as_slice()[f as usize]));
            let want = textreuse_hash::fingerprint_words(&words);
            assert_eq!(into[m], want, "K = {rows}, band {m}");
            assert_eq!(iter[m], want, "K = {rows}, band {m}");
            assert_eq!(
                signer.band_key(sig.as_slice(), m),
                want,
                "K = {rows}, band {m}"
            );
        }
    }
}

#[test]
fn empty_sets_and_bad_buffers_are_errors() {
    let signer = Signer::new();
    assert_eq!(signer.sign(Vec::new()), Err(SignError::Empty));
    let mut out = [0u64; 19];
    assert_eq!(
        signer.sign_into(&[1, 2], &mut out),
        Err(SignError::BufferLength {
            expected: 20,
            got: 19
        })
    );
}

#[test]
fn builder_errors() {
    assert_eq!(
        SignerBuilder::new().rows(0).build().unwrap_err(),
        BuildError::ZeroRows
    );
    assert_eq!(
        SignerBuilder::new().bands(0).build().unwrap_err(),
        BuildError::ZeroBands
    );
    assert!(matches!(
        SignerBuilder::new().rows(21).build(),
        Err(BuildError::RowsExceedHashes { .. })
    ));
    assert!(matches!(
        SignerBuilder::new()
            .scheme(BandScheme::Disjoint)
            .hashes(20)
            .build(),
        Err(BuildError::DisjointMismatch { .. })
    ));
    assert!(matches!(
        SignerBuilder::new().bands(21).build(),
        Err(BuildError::TooManyBands { .. })
    ));
    assert!(matches!(
        SignerBuilder::new().bits(65).build(),
        Err(BuildError::Hash(_))
    ));
    let oph = || {
        let mut b = SignerBuilder::new();
        b.scheme(BandScheme::Oph);
        b
    };
    assert!(matches!(
        oph().hashes(20).build(),
        Err(BuildError::DisjointMismatch { .. })
    ));
    assert!(matches!(
        oph().rows(64).bands(65).build(),
        Err(BuildError::TooManyBins { bins: 4160, .. })
    ));
    assert!(matches!(oph().bits(0).build(), Err(BuildError::Hash(_))));
    assert_eq!(oph().rows(64).bands(64).build().unwrap().hashes(), 4096);
}

/// The planner skips drawn configurations whose independent-bands recall misses the target,
/// because the exact drawn curve never exceeds the independent one (positively correlated
/// bands).
#[test]
fn drawn_curve_is_at_most_the_independent_curve() {
    for seed in [1, 2, DEFAULT_SEED] {
        for (n, k, m) in [
            (20, 10, 10),
            (20, 1, 20),
            (20, 20, 3),
            (40, 7, 12),
            (128, 30, 20),
        ] {
            let signer = SignerBuilder::new()
                .hashes(n)
                .rows(k)
                .bands(m)
                .seed(seed)
                .build()
                .unwrap();
            for i in 0..=20 {
                let s = i as f64 / 20.0;
                assert!(
                    signer.exact_match_probability(s)
                        <= signer.independent_approximation(s) + 1e-12,
                    "N={n} K={k} M={m} seed {seed} s={s}"
                );
            }
        }
    }
}

/// Sizes that would allocate without bound (or overflow `K·M`) are refused before anything is
/// allocated, with the limit (issue #22: `--rows 100000 --bands 100000` asked for 80 GB).
#[test]
fn sizes_above_the_limits_are_refused() {
    let build = |scheme, k, m| {
        let mut b = SignerBuilder::new();
        b.scheme(scheme).rows(k).bands(m);
        b.build()
    };
    assert_eq!(
        build(BandScheme::Disjoint, 100_000, 100_000).unwrap_err(),
        BuildError::TooManyDisjointHashes {
            hashes: 10_000_000_000,
            max: crate::MAX_DISJOINT_HASHES
        }
    );
    for scheme in [BandScheme::Disjoint, BandScheme::Oph] {
        let err = build(scheme, usize::MAX, 2).unwrap_err();
        assert!(
            matches!(
                err,
                BuildError::TooManyDisjointHashes {
                    hashes: usize::MAX,
                    ..
                } | BuildError::TooManyBins {
                    bins: usize::MAX,
                    ..
                }
            ),
            "{err:?}"
        );
        assert!(err.to_string().contains("at most 4096"), "{err}");
    }
    assert_eq!(
        build(BandScheme::Disjoint, 4096, 1).unwrap().hashes(),
        crate::MAX_DISJOINT_HASHES
    );
    assert!(matches!(
        build(BandScheme::Disjoint, 4097, 1),
        Err(BuildError::TooManyDisjointHashes { hashes: 4097, .. })
    ));
    assert!(matches!(
        build(BandScheme::Drawn, u32::MAX as usize, 1),
        Err(BuildError::RowsExceedHashes { .. })
    ));
}

#[test]
fn plan_and_tune_refuse_nan_and_oversized_targets() {
    use crate::{MAX_SET_SIZE, Target, TuneOptions, plan, tune};
    for (recall, rate) in [
        (f64::NAN, 0.01),
        (0.99, f64::NAN),
        (1.5, 0.01),
        (0.99, -0.1),
    ] {
        let t = Target {
            recall,
            candidate_rate: rate,
            ..Target::new(0.8)
        };
        assert!(
            matches!(plan(&t), Err(BuildError::OutOfRange { .. })),
            "{recall} {rate}"
        );
    }
    let big = Target {
        min_set: MAX_SET_SIZE + 1,
        ..Target::new(0.8)
    };
    assert_eq!(
        plan(&big).unwrap_err(),
        BuildError::SetTooLarge {
            min_set: MAX_SET_SIZE + 1,
            max: MAX_SET_SIZE
        }
    );
    // Without OPH the set size does not matter.
    let disjoint = Target {
        schemes: vec![BandScheme::Disjoint],
        ..big
    };
    assert!(plan(&disjoint).is_ok());
    // A budget above the limit is the limit, not a list of billions of candidates.
    let budget = Target {
        schemes: vec![BandScheme::Disjoint],
        max_hashes: usize::MAX,
        ..Target::new(0.8)
    };
    let p = plan(&budget).unwrap();
    assert!(p.hashes <= crate::MAX_DISJOINT_HASHES);
    assert_eq!(
        p,
        plan(&Target {
            max_hashes: crate::MAX_DISJOINT_HASHES,
            ..budget
        })
        .unwrap()
    );
    // A NaN weight used to recommend K = 1, M = 1.
    for (fp, fnw) in [
        (f64::NAN, 0.5),
        (0.5, f64::INFINITY),
        (-1.0, 0.5),
        (0.0, 0.0),
    ] {
        let options = TuneOptions {
            false_positive_weight: fp,
            false_negative_weight: fnw,
            ..TuneOptions::default()
        };
        assert!(
            matches!(tune(0.8, &options), Err(BuildError::OutOfRange { .. })),
            "{fp} {fnw}"
        );
    }
    for (scheme, hashes) in [
        (BandScheme::Drawn, 129),
        (BandScheme::Disjoint, 4097),
        (BandScheme::Oph, usize::MAX),
    ] {
        let options = TuneOptions {
            scheme,
            hashes,
            ..TuneOptions::default()
        };
        assert!(tune(0.8, &options).is_err(), "{scheme} {hashes}");
    }
}

#[test]
fn drawn_bands_are_sorted_subsets() {
    let signer = Signer::new();
    for m in 0..signer.bands() {
        let band = signer.band(m);
        assert_eq!(band.len(), 10);
        assert!(band.windows(2).all(|w| w[0] < w[1]));
        assert!(band.iter().all(|&f| f < 20));
    }
}

mod props {
    use super::*;
    use proptest::prelude::*;

    proptest! {
        #[test]
        fn sign_into_matches_naive(
            shingles in proptest::collection::vec(any::<u64>(), 1..300),
            n in 1usize..70,
            seed: u64,
            bits in 1u32..=64,
        ) {
            let signer = SignerBuilder::new().hashes(n).rows(1).bands(1).bits(bits).seed(seed).build().unwrap();
            let sig = signer.sign(shingles.iter().copied()).unwrap();
            for i in 0..n {
                let want = shingles.iter().map(|&x| signer.family().unwrap().hash(i, x)).min().unwrap();
                prop_assert_eq!(sig.as_slice()[i], want);
            }
        }

        #[test]
        fn signatures_ignore_order_and_duplicates(
            mut shingles in proptest::collection::vec(any::<u64>(), 1..200),
        ) {
            let signer = Signer::new();
            let a = signer.sign(shingles.iter().copied()).unwrap();
            shingles.reverse();
            shingles.extend_from_slice(&shingles.clone());
            let b = signer.sign(shingles).unwrap();
            prop_assert_eq!(a.jaccard(&b), 1.0);
            prop_assert!(signer.band_keys(&a).eq(signer.band_keys(&b)));
        }

        #[test]
        fn oph_signatures_ignore_order_and_duplicates(
            mut shingles in proptest::collection::vec(any::<u64>(), 1..200),
            bits in 1u32..=64,
        ) {
            let signer = SignerBuilder::new().scheme(BandScheme::Oph).bits(bits).build().unwrap();
            let a = signer.sign(shingles.iter().copied()).unwrap();
            prop_assert!(a.as_slice().iter().all(|&v| bits == 64 || v < 1 << bits));
            shingles.reverse();
            shingles.extend_from_slice(&shingles.clone());
            let b = signer.sign(shingles).unwrap();
            prop_assert_eq!(&a, &b);
        }

        #[test]
        fn same_seed_same_keys(seed: u64, shingles in proptest::collection::vec(any::<u64>(), 1..50)) {
            let a = SignerBuilder::new().seed(seed).build().unwrap();
            let b = SignerBuilder::new().seed(seed).build().unwrap();
            let (sa, sb) = (a.sign(shingles.iter().copied()).unwrap(), b.sign(shingles).unwrap());
            prop_assert!(a.band_keys(&sa).eq(b.band_keys(&sb)));
        }
    }
}

#[test]
fn config_is_the_builder_and_the_signer_parameters() {
    use crate::SignerConfig;
    assert_eq!(SignerBuilder::new().config(), SignerConfig::default());
    assert_eq!(SignerBuilder::oph().config(), SignerConfig::oph());
    for config in [
        SignerConfig::weissman(),
        SignerConfig::oph(),
        SignerConfig::chunks(),
        SignerConfig::preset(BandScheme::Disjoint),
    ] {
        let signer = config.build().unwrap();
        let again = signer.config().build().unwrap();
        assert_eq!(again.config(), signer.config());
        assert_eq!(
            (
                signer.scheme(),
                signer.rows(),
                signer.bands(),
                signer.seed()
            ),
            (config.scheme, config.rows, config.bands, config.seed)
        );
        let shingles: Vec<u64> = (0..50).map(textreuse_hash::mix64).collect();
        let (a, b) = (
            signer.sign(shingles.clone()).unwrap(),
            again.sign(shingles).unwrap(),
        );
        assert!(signer.band_keys(&a).eq(again.band_keys(&b)));
    }
    let chunks = SignerConfig::chunks().build().unwrap();
    assert_eq!(
        (chunks.scheme(), chunks.hashes()),
        (
            BandScheme::Disjoint,
            crate::DEFAULT_CHUNK_ROWS * crate::DEFAULT_CHUNK_BANDS
        )
    );
}
