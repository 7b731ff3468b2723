//! Signs arbitrary sets of shingle fingerprints with arbitrary (valid) parameters and schemes and
//! checks the signer's invariants: no panic, the naive minimum (multiply-add-shift schemes), no
//! more distinct OPH values than shingles, self-similarity 1, order independence, curves in
//! [0, 1].
#![no_main]
use libfuzzer_sys::fuzz_target;
use textreuse_minhash::{BandScheme, SignerBuilder};

fuzz_target!(|data: &[u8]| {
    if data.len() < 4 {
        return;
    }
    let (params, rest) = data.split_at(4);
    let scheme = match params[0] % 3 {
        0 => BandScheme::Drawn,
        1 => BandScheme::Disjoint,
        _ => BandScheme::Oph,
    };
    let rows = 1 + (params[1] % 12) as usize;
    let bands = 1 + (params[2] % 12) as usize;
    let bits = 1 + (params[3] % 64) as u32;
    let mut builder = SignerBuilder::new();
    builder.scheme(scheme).rows(rows).bands(bands).bits(bits);
    if scheme == BandScheme::Drawn {
        builder.hashes(rows.max(20));
    }
    let signer = builder.build().expect("parameters are in range");
    let shingles: Vec<u64> = rest
        .chunks(8)
        .map(|c| {
            let mut w = [0u8; 8];
            w[..c.len()].copy_from_slice(c);
            u64::from_le_bytes(w)
        })
        .collect();
    match signer.sign(shingles.iter().copied()) {
        Err(_) => assert!(shingles.is_empty()),
        Ok(sig) => {
            match signer.family() {
                Some(family) => {
                    for i in 0..signer.hashes() {
                        let want = shingles.iter().map(|&x| family.hash(i, x)).min().unwrap();
                        assert_eq!(sig.as_slice()[i], want);
                    }
                }
                None => {
                    // OPH: every bin holds the (shifted) hash of one of the shingles, so there
                    // are at most as many distinct values as distinct shingles.
                    let distinct: std::collections::HashSet<u64> =
                        shingles.iter().copied().collect();
                    let values: std::collections::HashSet<u64> =
                        sig.as_slice().iter().copied().collect();
                    assert!(values.len() <= distinct.len());
                }
            }
            assert_eq!(sig.jaccard(&sig), 1.0);
            let mut reversed = shingles.clone();
            reversed.reverse();
            let again = signer.sign(reversed).unwrap();
            assert!(signer.band_keys(&sig).eq(signer.band_keys(&again)));
            let p = signer.exact_match_probability(0.5);
            assert!((0.0..=1.0).contains(&p));
            let n = shingles.len().min(64);
            let p = signer.match_probability(n / 2, n.max(1));
            assert!((0.0..=1.0).contains(&p));
        }
    }
});
