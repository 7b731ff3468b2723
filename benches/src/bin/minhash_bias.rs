//! Does multiply-add-shift hashing bias MinHash collision rates against true min-wise hashing?
//! For `docs/tuning.md`:
//!
//! ```text
//! cargo run --release -p textreuse-benches --bin minhash_bias -- [TRIALS_PER_POINT]
//! ```
//!
//! Draws pairs of sets with exactly controlled Jaccard similarity (union 200, random 64-bit
//! elements like shingle fingerprints) and signs each pair twice: with the Weissman signer
//! (N = 20 multiply-add-shift functions, K = 10, M = 10 drawn bands) and with a reference that
//! replaces each function by a strong keyed hash (`mix64(mix64(x ^ key_i))`, 60 bits) on the same
//! drawn bands. Per similarity it prints, for both, the rate at which one minhash agrees
//! (against `s`) and at which any band matches (against the exact curve), with z-scores, and the
//! paired differences of the two (same pairs, so the pair-to-pair noise cancels).
//! Prints one JSON object per similarity. Two threads.
use rand_xoshiro::rand_core::{Rng, SeedableRng};
use textreuse_hash::{Xoshiro256PlusPlus, mix64};
use textreuse_minhash::Signer;

const UNION: usize = 200;

/// Two sets with `inter` shared elements out of `UNION`, split evenly.
fn pair(rng: &mut Xoshiro256PlusPlus, inter: usize) -> (Vec<u64>, Vec<u64>) {
    let mut all: Vec<u64> = (0..UNION).map(|_| rng.next_u64()).collect();
    all.sort_unstable();
    all.dedup();
    while all.len() < UNION {
        all.push(rng.next_u64());
    }
    for i in (1..all.len()).rev() {
        let j = (rng.next_u64() % (i as u64 + 1)) as usize;
        all.swap(i, j);
    }
    let only_a = (UNION - inter) / 2;
    let a = all[..inter + only_a].to_vec();
    let mut b = all[..inter].to_vec();
    b.extend_from_slice(&all[inter + only_a..]);
    (a, b)
}

#[derive(Default, Clone, Copy)]
struct Counts {
    trials: u64,
    /// Agreeing minhashes, summed over functions and trials.
    agree: [u64; 2],
    /// Pairs with a matching band.
    band: [u64; 2],
    /// Pairs where exactly one of the two matched: (mas only, reference only).
    discordant: [u64; 2],
    /// Per pair, agreeing minhashes of multiply-add-shift minus the reference's: sum and sum of
    /// squares (the paired test of one minhash's rate).
    agree_diff: i64,
    agree_diff_sq: u64,
}

fn run(signer: &Signer, keys: &[u64], inter: usize, trials: u64, seed: u64) -> Counts {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let n = signer.hashes();
    let mut c = Counts::default();
    let reference = |set: &[u64]| -> Vec<u64> {
        keys.iter()
            .map(|&k| set.iter().map(|&x| mix64(mix64(x ^ k)) >> 4).min().unwrap())
            .collect()
    };
    for _ in 0..trials {
        let (a, b) = pair(&mut rng, inter);
        let mas = [
            signer.sign(a.iter().copied()).unwrap(),
            signer.sign(b.iter().copied()).unwrap(),
        ];
        let (ra, rb) = (reference(&a), reference(&b));
        let sigs = [
            (mas[0].as_slice().to_vec(), mas[1].as_slice().to_vec()),
            (ra, rb),
        ];
        let mut matched = [false; 2];
        let mut agreeing = [0i64; 2];
        for (which, (x, y)) in sigs.iter().enumerate() {
            agreeing[which] = (0..n).filter(|&i| x[i] == y[i]).count() as i64;
            c.agree[which] += agreeing[which] as u64;
            matched[which] = (0..signer.bands()).any(|m| {
                signer
                    .band(m)
                    .iter()
                    .all(|&f| x[f as usize] == y[f as usize])
            });
            c.band[which] += matched[which] as u64;
        }
        let d = agreeing[0] - agreeing[1];
        c.agree_diff += d;
        c.agree_diff_sq += (d * d) as u64;
        if matched[0] != matched[1] {
            c.discordant[matched[1] as usize] += 1;
        }
        c.trials += 1;
    }
    c
}

fn main() {
    let trials: u64 = std::env::args()
        .nth(1)
        .map(|t| t.parse().expect("TRIALS_PER_POINT is a number"))
        .unwrap_or(1_000_000);
    let signer = Signer::new();
    let mut key_rng = Xoshiro256PlusPlus::seed_from_u64(0x6269_6173);
    let keys: Vec<u64> = (0..signer.hashes()).map(|_| key_rng.next_u64()).collect();
    for inter in [100usize, 140, 170, 180] {
        let s = inter as f64 / UNION as f64;
        let half = trials / 2;
        let parts: Vec<Counts> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..2u64)
                .map(|t| {
                    let (signer, keys) = (&signer, &keys);
                    scope.spawn(move || run(signer, keys, inter, half, 1000 * inter as u64 + t))
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        let mut c = Counts::default();
        for p in parts {
            c.trials += p.trials;
            for i in 0..2 {
                c.agree[i] += p.agree[i];
                c.band[i] += p.band[i];
                c.discordant[i] += p.discordant[i];
            }
            c.agree_diff += p.agree_diff;
            c.agree_diff_sq += p.agree_diff_sq;
        }
        let t = c.trials as f64;
        let exact = signer.exact_match_probability(s);
        let minhash_n = t * signer.hashes() as f64;
        let z_rate = |hits: u64, n: f64, p: f64| (hits as f64 / n - p) / (p * (1.0 - p) / n).sqrt();
        // The paired difference of one minhash's agreement rate, per pair.
        let mean_d = c.agree_diff as f64 / t;
        let var_d = c.agree_diff_sq as f64 / t - mean_d * mean_d;
        let agree_diff = mean_d / signer.hashes() as f64;
        let z_agree_diff = mean_d / (var_d / t).sqrt();
        // McNemar: the paired difference of the band rates.
        let (d0, d1) = (c.discordant[0] as f64, c.discordant[1] as f64);
        let diff = (d0 - d1) / t;
        let z_diff = if d0 + d1 > 0.0 {
            (d0 - d1) / (d0 + d1).sqrt()
        } else {
            0.0
        };
        println!(
            "{}",
            serde_json::json!({
                "s": s,
                "pairs": c.trials,
                "minhash_agree": {
                    "multiply_add_shift": c.agree[0] as f64 / minhash_n,
                    "reference": c.agree[1] as f64 / minhash_n,
                    // Functions of one pair are not independent draws; the z-score is a guide.
                    "z_multiply_add_shift": z_rate(c.agree[0], minhash_n, s),
                    "z_reference": z_rate(c.agree[1], minhash_n, s),
                    "paired_difference": agree_diff,
                    "z_paired_difference": z_agree_diff,
                },
                "band_match": {
                    "exact": exact,
                    "multiply_add_shift": c.band[0] as f64 / t,
                    "reference": c.band[1] as f64 / t,
                    "z_multiply_add_shift": z_rate(c.band[0], t, exact),
                    "z_reference": z_rate(c.band[1], t, exact),
                    "paired_difference": diff,
                    "z_paired_difference": z_diff,
                },
            })
        );
    }
}
