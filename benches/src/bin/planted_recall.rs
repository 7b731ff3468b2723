//! Recall per Jaccard bin of each MinHash scheme on a planted corpus, against each scheme's
//! exact curve, and the candidate rate on unrelated pairs. For `docs/tuning.md`:
//!
//! ```text
//! python3 benches/scripts/planted.py 1000000 --truth /tmp/planted1m.tsv > /tmp/planted1m.jsonl
//! cargo run --release -p textreuse-benches --bin planted_recall -- /tmp/planted1m.jsonl /tmp/planted1m.tsv
//! ```
//!
//! Signs every line as `textreuse dedup` does (normalized text, 12-character shingles, the
//! sentence filter's 75..=600 shingles) with the Weissman preset (N = 20 drawn functions,
//! K = 10, M = 10) and the OPH preset (K = 11, M = 13, 143 bins). For every planted pair of the
//! truth file whose two sides pass the filter it computes the exact Jaccard similarity of the
//! shingle sets and whether the two share a band key, and compares, per similarity bin, the
//! share found with the mean of the scheme's exact match probability for those pairs
//! ([`Signer::match_probability`], which for OPH depends on the sets' sizes): `z` is
//! `(found - Σp) / sqrt(Σp(1-p))`. Then it draws 1,000,000 random pairs of lines that are not
//! planted copies of each other and counts how many share a band key. Prints one JSON object.
use std::collections::HashMap;
use std::io::BufRead;

use rand_xoshiro::rand_core::{Rng, SeedableRng};
use rayon::prelude::*;
use textreuse_hash::Xoshiro256PlusPlus;
use textreuse_minhash::{Signer, SignerBuilder, TextSigner};

/// Lower edges of the Jaccard bins.
const BINS: [f64; 11] = [0.0, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.85, 0.9, 0.95, 1.0];

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [corpus, truth] = &args[..] else {
        return Err("usage: planted_recall CORPUS.jsonl TRUTH.tsv".into());
    };
    let mut texts: Vec<String> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    for line in std::io::BufReader::new(std::fs::File::open(corpus)?).lines() {
        let v: serde_json::Value = serde_json::from_str(&line?)?;
        index.insert(v["id"].as_str().ok_or("id")?.to_string(), texts.len());
        texts.push(v["text"].as_str().ok_or("text")?.to_string());
    }
    let mut pairs: Vec<(usize, usize)> = Vec::new();
    for line in std::io::BufReader::new(std::fs::File::open(truth)?).lines() {
        let line = line?;
        let mut f = line.split('\t');
        let (a, b) = (f.next().ok_or("copy")?, f.next().ok_or("source")?);
        pairs.push((index[a], index[b]));
    }
    // Shingle sets of every line (sorted, deduplicated) and whether the filter keeps it.
    let weissman = SignerBuilder::weissman().build()?;
    let sets: Vec<Vec<u64>> = texts
        .par_iter()
        .map_init(
            || TextSigner::new(&weissman),
            |ts, text| {
                let mut s = ts.shingles(text).clone();
                s.sort_unstable();
                s.dedup();
                s
            },
        )
        .collect();
    let kept = |i: usize| (75..=600).contains(&sets[i].len());
    let pairs: Vec<(usize, usize, usize, usize)> = pairs
        .into_iter()
        .filter(|&(a, b)| kept(a) && kept(b))
        .map(|(a, b)| {
            let shared = intersection(&sets[a], &sets[b]);
            (a, b, shared, sets[a].len() + sets[b].len() - shared)
        })
        .collect();
    // Unrelated pairs: random lines that are not a planted pair.
    let planted: std::collections::HashSet<(usize, usize)> = pairs
        .iter()
        .flat_map(|&(a, b, _, _)| [(a, b), (b, a)])
        .collect();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let mut unrelated = Vec::with_capacity(1_000_000);
    while unrelated.len() < 1_000_000 {
        let a = (rng.next_u64() % texts.len() as u64) as usize;
        let b = (rng.next_u64() % texts.len() as u64) as usize;
        if a != b && kept(a) && kept(b) && !planted.contains(&(a, b)) {
            unrelated.push((a, b));
        }
    }
    let mut results = Vec::new();
    for (name, signer) in [
        ("weissman", weissman.clone()),
        ("oph", SignerBuilder::oph().build()?),
    ] {
        results.push(evaluate(name, &signer, &texts, &pairs, &unrelated));
    }
    println!(
        "{}",
        serde_json::json!({"lines": texts.len(), "planted_pairs_kept": pairs.len(), "schemes": results})
    );
    Ok(())
}

fn intersection(a: &[u64], b: &[u64]) -> usize {
    let (mut i, mut j, mut n) = (0, 0, 0);
    while i < a.len() && j < b.len() {
        match a[i].cmp(&b[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => {
                n += 1;
                i += 1;
                j += 1;
            }
        }
    }
    n
}

fn evaluate(
    name: &str,
    signer: &Signer,
    texts: &[String],
    pairs: &[(usize, usize, usize, usize)],
    unrelated: &[(usize, usize)],
) -> serde_json::Value {
    let m = signer.bands();
    let keys: Vec<Vec<u64>> = texts
        .par_iter()
        .map_init(
            || TextSigner::new(signer),
            |ts, text| ts.band_keys(text).map(<[u64]>::to_vec).unwrap_or_default(),
        )
        .collect();
    let shares = |a: usize, b: usize| {
        keys[a].len() == m && keys[b].len() == m && (0..m).any(|i| keys[a][i] == keys[b][i])
    };
    // The exact probability of every distinct (shared, union), computed once.
    let mut distinct: Vec<(usize, usize)> = pairs.iter().map(|&(_, _, s, u)| (s, u)).collect();
    distinct.sort_unstable();
    distinct.dedup();
    let probability: HashMap<(usize, usize), f64> = distinct
        .par_iter()
        .map(|&(s, u)| ((s, u), signer.match_probability(s, u)))
        .collect();
    let mut bins = vec![(0u64, 0u64, 0.0f64, 0.0f64); BINS.len() - 1];
    for &(a, b, shared, union) in pairs {
        let j = shared as f64 / union as f64;
        let bin = BINS[1..]
            .iter()
            .position(|&hi| j < hi)
            .unwrap_or(BINS.len() - 2);
        let p = probability[&(shared, union)];
        let e = &mut bins[bin];
        e.0 += 1;
        e.1 += shares(a, b) as u64;
        e.2 += p;
        e.3 += p * (1.0 - p);
    }
    let bins: Vec<serde_json::Value> = bins
        .iter()
        .enumerate()
        .filter(|(_, e)| e.0 > 0)
        .map(|(i, &(n, found, sum_p, var))| {
            serde_json::json!({
                "jaccard": [BINS[i], BINS[i + 1]],
                "pairs": n,
                "found": found as f64 / n as f64,
                "expected": sum_p / n as f64,
                "z": if var > 0.0 { (found as f64 - sum_p) / var.sqrt() } else { 0.0 },
            })
        })
        .collect();
    let candidates = unrelated.iter().filter(|&&(a, b)| shares(a, b)).count();
    serde_json::json!({
        "scheme": name,
        "hashes": signer.hashes(),
        "rows": signer.rows(),
        "bands": m,
        "bins": bins,
        "unrelated_pairs": unrelated.len(),
        "unrelated_candidates": candidates,
    })
}
