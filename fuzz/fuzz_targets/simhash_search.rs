//! Exact table search must equal brute force, and the window search must report only true pairs
//! with exact distances, on arbitrary fingerprints (the fuzzer is good at near-duplicates).
#![no_main]

use libfuzzer_sys::fuzz_target;
use textreuse_simhash::{TableSearch, WindowSearch, brute_force_pairs};

fuzz_target!(|data: &[u8]| {
    let Some((&k, rest)) = data.split_first() else {
        return;
    };
    let k = u32::from(k % 12);
    let fps: Vec<u64> = rest
        .chunks(8)
        .map(|c| {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(w)
        })
        .take(512)
        .collect();
    let truth = brute_force_pairs(&fps, k).unwrap();
    assert_eq!(TableSearch::new(k).unwrap().pairs(&fps).unwrap(), truth);
    let window = WindowSearch::builder()
        .max_hamming(k)
        .window(3)
        .build()
        .unwrap()
        .pairs(&fps)
        .unwrap();
    for p in &window {
        assert!(p.a < p.b);
        assert!(truth.binary_search(p).is_ok());
    }
});
