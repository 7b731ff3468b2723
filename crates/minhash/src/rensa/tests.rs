//! Known answers from rensa 0.5.0 itself (`pip install rensa==0.5.0`, Linux x86_64), and the
//! invariants that make the digests sets' digests.
use super::*;
use proptest::prelude::*;

/// A polynomial checksum of a digest, to pin long digests in one number (computed the same
/// way in Python on rensa's output).
fn checksum<T: Copy + Into<u64>>(values: &[T]) -> u64 {
    values.iter().fold(0u64, |h, &v| {
        (((h as u128) * 1_000_003 + v.into() as u128) % (1u128 << 64)) as u64
    })
}

/// The reference definition, token by token and slot by slot (no early exits, no skipped
/// fallbacks): every slot is the minimum over tokens of the tagged bucket ranks that land in it
/// and its fallback value.
fn reference(hasher: &RMinHasher, values: &mut [u32], hashes: &[u64]) {
    let (a0, b0) = hasher.pairs[0];
    let slots = Slots::new(values.len());
    for &h in hashes {
        let f = splitmix64(h ^ a0 ^ FALLBACK_DOMAIN);
        for (v, &(a, b)) in values.iter_mut().zip(&hasher.pairs) {
            let rank = FALLBACK_TAG | (a.wrapping_mul(f).wrapping_add(b) >> RANK_SHIFT) as u32;
            *v = (*v).min(rank);
        }
        for round in 0..ROUNDS {
            let mixed =
                splitmix64(h ^ b0 ^ BUCKET_DOMAIN ^ (round as u64).wrapping_mul(ROUND_DOMAIN));
            let rank = (round << RANK_WIDTH) | (mixed >> RANK_SHIFT) as u32;
            let s = slot(mixed, slots);
            values[s] = values[s].min(rank);
        }
    }
}

#[test]
fn token_hash_is_rensas() {
    // RMinHash.hash_token_sets([[bytes(range(n)) for n in range(41)]]): every length class
    // of the byte hash (0, 1-3, 4-7, 8-16, more than 16 with 1 and 2 blocks).
    let expected: [u64; 41] = [
        17606491139363777937,
        5448590020104574886,
        2243146085721137701,
        9516350524388822273,
        11674893537475458668,
        10456336673252079578,
        640191041797103752,
        7949690358762399999,
        8209357599162978632,
        9616711074533874845,
        17940644970773208798,
        16458863067922692470,
        5836781717922391969,
        11095244503153401704,
        17729375295559530457,
        6504237124707187323,
        9425631185673857818,
        1541009452916434481,
        15775534367777389732,
        1726409903516072518,
        2722323287624696293,
        14926542312373914655,
        14775114845548001318,
        2251559203675149027,
        6126682936431003932,
        649391399878012542,
        10141405697319025512,
        18010051999952786968,
        18289217535767743204,
        2050356707043655515,
        2560110479701955345,
        1726081568318747045,
        17447610628299870898,
        7725487596434684650,
        16500807052488942764,
        15636227781152593544,
        13013922877908537789,
        12624013236044467686,
        15983077868313010564,
        15755019807394501717,
        2087074679755893980,
    ];
    for (n, &want) in expected.iter().enumerate() {
        let bytes: Vec<u8> = (0..n as u8).collect();
        assert_eq!(token_hash(&bytes), want, "{n} bytes");
    }
    // Strings hash as their UTF-8 bytes.
    assert_eq!(token_hash("café".as_bytes()), 18171582431497342456);
    assert_eq!(
        token_hash(b"abcdefghijklmnopqrstuvwxyz0123456789"),
        16912392592941839396
    );
}

#[test]
fn r_digests_are_rensas() {
    // RMinHash.digest_matrix_from_token_hash_sets([hashes], num_perm, seed).to_rows()[0]
    let cases: [(usize, u64, Vec<u64>, Vec<u32>); 4] = [
        (1, 0, vec![1, 2, 3], vec![174134441]),
        (
            4,
            7,
            vec![5],
            vec![3768159394, 3734546590, 1387575221, 850977690],
        ),
        (
            7,
            42,
            vec![0, 1, 2, u64::MAX],
            vec![
                3525376080, 563363039, 106341545, 3737422608, 1999286826, 1735706419, 998117944,
            ],
        ),
        (
            8,
            42,
            (0..100).collect(),
            vec![
                151844144, 56150436, 15911528, 47968809, 25529941, 275292961, 107118382, 25723183,
            ],
        ),
    ];
    for (k, seed, hashes, want) in cases {
        let hasher = RMinHasher::new(k, seed).unwrap();
        assert_eq!(hasher.sketch(&hashes), want, "k={k} seed={seed}");
    }
    // Longer digests: (num_perm, seed, hashes, the first values, a checksum of all).
    type Long = (usize, u64, Vec<u64>, [u32; 4], u64);
    let long: [Long; 5] = [
        (
            129,
            1,
            (0..3).collect(),
            [3264571612, 3592674595, 3412090254, 3718006095],
            4455751304906192501,
        ),
        (
            128,
            42,
            (0..1000).collect(),
            [85627215, 151844144, 153721067, 43848038],
            3423476370881276953,
        ),
        (
            256,
            9,
            (0..5000).collect(),
            [36865977, 90360190, 19027582, 20885720],
            12863704844381384469,
        ),
        // 131077 tokens: past rensa's rank-filter threshold for long inputs (65536).
        (
            128,
            42,
            (0..(1u64 << 17 | 5))
                .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
                .collect(),
            [53694, 253503, 305958, 316192],
            12249499003945342721,
        ),
        (
            100,
            42,
            (0..(1u64 << 17 | 5))
                .map(|i| i.wrapping_mul(0x9e37_79b9_7f4a_7c15))
                .collect(),
            [53694, 305958, 316192, 544034],
            5907626539576592053,
        ),
    ];
    for (k, seed, hashes, head, sum) in long {
        let d = RMinHasher::new(k, seed).unwrap().sketch(&hashes);
        assert_eq!(d[..4], head, "k={k} seed={seed}");
        assert_eq!(checksum(&d), sum, "k={k} seed={seed}");
    }
    assert_eq!(
        RMinHasher::new(5, 3).unwrap().sketch(&[]),
        vec![u32::MAX; 5]
    );
}

#[test]
fn r_digests_of_strings_are_rensas() {
    // m = RMinHash(k, 42); m.update(["mill", "river", "stone"]); m.digest()
    let tokens: Vec<u64> = ["mill", "river", "stone"]
        .iter()
        .map(|t| token_hash(t.as_bytes()))
        .collect();
    let d7 = RMinHasher::new(7, 42).unwrap().sketch(&tokens);
    assert_eq!(
        d7,
        [
            801074976, 2878995228, 3597266778, 1670631615, 424155113, 614990986, 1088121506
        ]
    );
    let d1 = RMinHasher::new(1, 42).unwrap().sketch(&tokens);
    assert_eq!(d1, [424155113]);
}

#[test]
fn c_digests_are_rensas() {
    // CMinHash.digests64_from_token_hash_sets([hashes], num_perm, seed)[0]
    let cases: [(usize, u64, Vec<u64>, Vec<u64>); 3] = [
        (1, 0, vec![1, 2, 3], vec![6932463585191302065]),
        (
            4,
            7,
            vec![5],
            vec![
                11089070159900034615,
                13038876242221329156,
                1097922324693982430,
                10563329959811479321,
            ],
        ),
        (
            7,
            42,
            vec![0, 1, 2, u64::MAX],
            vec![
                5576776401332200383,
                1046726825408707771,
                7067778570949226123,
                9092303123477845762,
                598352317607864131,
                11178266726265924559,
                4198197523030673004,
            ],
        ),
    ];
    for (k, seed, hashes, want) in cases {
        assert_eq!(
            CMinHasher::new(k, seed).unwrap().sketch(&hashes),
            want,
            "k={k}"
        );
    }
    let long: [(usize, u64, u64, [u64; 2], u64); 3] = [
        (
            129,
            1,
            3,
            [12219254234625270387, 6330433241254328616],
            4344781243416106944,
        ),
        (
            128,
            42,
            1000,
            [79505980184135077, 20725324967296118],
            4501074101620637558,
        ),
        (
            256,
            9,
            5000,
            [4515220474569444, 4052049962461497],
            1722973237252014195,
        ),
    ];
    for (k, seed, n, head, sum) in long {
        let hashes: Vec<u64> = (0..n).collect();
        let d = CMinHasher::new(k, seed).unwrap().sketch(&hashes);
        assert_eq!(d[..2], head, "k={k}");
        assert_eq!(checksum(&d), sum, "k={k}");
    }
    // digest(): the top halves.
    let tokens: Vec<u64> = ["mill", "river", "stone"]
        .iter()
        .map(|t| token_hash(t.as_bytes()))
        .collect();
    let d = CMinHasher::new(5, 42).unwrap().sketch(&tokens);
    assert_eq!(d[0], 5746589395581318988);
    assert_eq!(
        c_digest32(&d),
        [1337982107, 1618272555, 532728996, 2655160336, 3121300311]
    );
}

#[test]
fn states_are_rensas() {
    // RMinHash(3, 5).update(["x"]) and CMinHash(3, 5).update(["x"]): __getstate__().hex()
    let x = [token_hash(b"x")];
    let r = RMinHashState {
        seed: 5,
        values: RMinHasher::new(3, 5).unwrap().sketch(&x),
    };
    assert_eq!(r.values, [916239318, 2812954318, 3714849905]);
    let r_hex = "52656e73613a524d696e486173683a32008290b59205030503d6e7f2b403ce8da9bd0af1b8b0eb0d";
    assert_eq!(hex(&r.encode()), r_hex);
    let c = CMinHashState {
        seed: 5,
        values: CMinHasher::new(3, 5).unwrap().sketch(&x),
    };
    let c_hex = "52656e73613a434d696e486173683a32008290b59a04030503c1e6cf95c5b3d294da019caeb5b790f3\
                 d1d18f01fbbfa5e4a3c98ce7d001";
    assert_eq!(hex(&c.encode()), c_hex);
    assert_eq!(RMinHashState::decode(&r.encode()), Ok(r));
    assert_eq!(CMinHashState::decode(&c.encode()), Ok(c));
    // An empty RMinHash(8, 1).
    let empty = RMinHashState {
        seed: 1,
        values: vec![u32::MAX; 8],
    };
    assert_eq!(
        hex(&empty.encode()),
        "52656e73613a524d696e486173683a32008290b59205080108ffffffff0fffffffff0fffffffff0fffffffff0f\
         ffffffff0fffffffff0fffffffff0fffffffff0f"
    );
}

#[test]
fn bad_states_are_refused() {
    // rensa 0.4's state of RMinHash(2, 42) over {a, b}: no prefix.
    let legacy = unhex("022a02b4ecd38e02b9a6aff201");
    assert_eq!(
        RMinHashState::decode(&legacy),
        Err(StateError::Unsupported { sketch: "RMinHash" })
    );
    assert!(
        StateError::Unsupported { sketch: "RMinHash" }
            .to_string()
            .contains("rebuild")
    );
    let good = RMinHashState {
        seed: 7,
        values: vec![1, 2],
    }
    .encode();
    // Cut short anywhere after the prefix.
    for end in 17..good.len() {
        assert!(
            matches!(
                RMinHashState::decode(&good[..end]),
                Err(StateError::Malformed { .. })
            ),
            "{end}"
        );
    }
    // Trailing bytes, another version, a C state read as R.
    let mut long = good.clone();
    long.push(0);
    assert!(matches!(
        RMinHashState::decode(&long),
        Err(StateError::Malformed { .. })
    ));
    let mut other = good.clone();
    other[17] ^= 1;
    assert!(matches!(
        RMinHashState::decode(&other),
        Err(StateError::Version { .. })
    ));
    let c = CMinHashState {
        seed: 7,
        values: vec![1, 2],
    }
    .encode();
    assert!(matches!(
        RMinHashState::decode(&c),
        Err(StateError::Unsupported { .. })
    ));
    // A value beyond u32 in an R state; num_perm disagreeing with the values.
    let mut wide = unhex("52656e73613a524d696e486173683a32008290b59205010701");
    wide.extend_from_slice(&[0x80, 0x80, 0x80, 0x80, 0x10]);
    assert!(matches!(
        RMinHashState::decode(&wide),
        Err(StateError::Malformed { .. })
    ));
    let mut mismatch = unhex("52656e73613a524d696e486173683a32008290b59205020701");
    mismatch.push(5);
    assert_eq!(
        RMinHashState::decode(&mismatch),
        Err(StateError::Length {
            sketch: "RMinHash",
            num_perm: 2,
            values: 1
        })
    );
    // A huge count is refused before allocating.
    let mut huge = unhex("52656e73613a524d696e486173683a32008290b5920501");
    huge.extend_from_slice(&[
        0x07, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01,
    ]);
    assert!(matches!(
        RMinHashState::decode(&huge),
        Err(StateError::Malformed { .. })
    ));
}

#[test]
fn zero_and_mismatched_lengths_are_errors() {
    assert_eq!(RMinHasher::new(0, 1), Err(RensaError::ZeroPermutations));
    assert_eq!(CMinHasher::new(0, 1), Err(RensaError::ZeroPermutations));
    let r = RMinHasher::new(4, 1).unwrap();
    assert_eq!(
        r.update(&mut [0; 3], &[1]),
        Err(RensaError::Length {
            expected: 4,
            got: 3
        })
    );
    let c = CMinHasher::new(4, 1).unwrap();
    assert_eq!(
        c.sketch_into(&[1], &mut [0; 5]),
        Err(RensaError::Length {
            expected: 4,
            got: 5
        })
    );
}

#[test]
fn slots_reject_the_incomplete_interval() {
    for count in [1usize, 3, 8, 17, 128, 129, 0x8000_0001, u32::MAX as usize] {
        let slots = Slots::new(count);
        for mixed in [
            0,
            1,
            2,
            u64::MAX,
            0xffff_ffff_0000_0000,
            0x0000_0000_ffff_ffff,
        ] {
            let mut x = mixed;
            let want = loop {
                let product = (x & 0xffff_ffff) * count as u64;
                if product % (1 << 32) >= (1u64 << 32) % count as u64 {
                    break (product >> 32) as usize;
                }
                x = splitmix64(x);
            };
            assert_eq!(slot(mixed, slots), want);
            assert!(want < count);
        }
    }
    let wide = Slots::new(1 << 33);
    assert!(slot(12345, wide) < 1 << 33);
}

#[test]
fn jaccard_counts_equal_slots() {
    assert_eq!(jaccard(&[1u32, 2, 3, 4], &[1, 0, 3, 0]), 0.5);
    assert_eq!(jaccard::<u32>(&[], &[]), 0.0);
    assert_eq!(jaccard(&[1u64, 2], &[1]), 0.5);
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn unhex(s: &str) -> Vec<u8> {
    (0..s.len())
        .step_by(2)
        .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
        .collect()
}

proptest! {
    /// The kernel with its early exits and skipped fallbacks equals the slot-by-slot
    /// definition, from any starting digest, in any order and grouping of the tokens.
    #[test]
    fn r_kernel_is_the_definition(
        num_perm in prop_oneof![1usize..20, Just(64usize), Just(128), Just(129)],
        seed in any::<u64>(),
        hashes in proptest::collection::vec(any::<u64>(), 0..300),
        split in any::<prop::sample::Index>(),
        start in proptest::collection::vec(any::<u32>(), 129),
        fresh in any::<bool>(),
    ) {
        let hasher = RMinHasher::new(num_perm, seed).unwrap();
        let initial: Vec<u32> = if fresh { hasher.empty() } else { start[..num_perm].to_vec() };
        let mut want = initial.clone();
        reference(&hasher, &mut want, &hashes);
        let mut got = initial.clone();
        hasher.update(&mut got, &hashes).unwrap();
        prop_assert_eq!(&got, &want);
        let cut = split.index(hashes.len() + 1);
        let mut parts = initial.clone();
        hasher.update(&mut parts, &hashes[cut..]).unwrap();
        hasher.update(&mut parts, &hashes[..cut]).unwrap();
        prop_assert_eq!(&parts, &want);
        let mut doubled = hashes.clone();
        doubled.extend_from_slice(&hashes);
        doubled.reverse();
        let mut again = initial;
        hasher.update(&mut again, &doubled).unwrap();
        prop_assert_eq!(&again, &want);
    }

    /// C-MinHash's slots are minima of `pi(sigma(x) - (k + 1))`, token by token.
    #[test]
    fn c_kernel_is_the_definition(
        num_perm in 1usize..70,
        seed in any::<u64>(),
        hashes in proptest::collection::vec(any::<u64>(), 0..100),
        split in any::<prop::sample::Index>(),
    ) {
        let hasher = CMinHasher::new(num_perm, seed).unwrap();
        let mut want = hasher.empty();
        for &h in &hashes {
            let sigma = mix64(h.wrapping_add(hasher.sigma_key));
            for (k, v) in want.iter_mut().enumerate() {
                let pi = mix64(sigma.wrapping_sub(k as u64 + 1).wrapping_add(hasher.pi_key));
                *v = (*v).min(pi);
            }
        }
        prop_assert_eq!(hasher.sketch(&hashes), want.clone());
        let cut = split.index(hashes.len() + 1);
        let mut parts = hasher.empty();
        hasher.update(&mut parts, &hashes[cut..]).unwrap();
        hasher.update(&mut parts, &hashes[..cut]).unwrap();
        prop_assert_eq!(parts, want);
    }

    /// States round-trip and decoding arbitrary bytes never panics.
    #[test]
    fn states_round_trip(seed in any::<u64>(), values in proptest::collection::vec(any::<u64>(), 1..40), junk in proptest::collection::vec(any::<u8>(), 0..64)) {
        let c = CMinHashState { seed, values: values.clone() };
        prop_assert_eq!(CMinHashState::decode(&c.encode()), Ok(c));
        let r = RMinHashState { seed, values: values.iter().map(|&v| v as u32).collect() };
        prop_assert_eq!(RMinHashState::decode(&r.encode()), Ok(r));
        let mut bytes = b"Rensa:RMinHash:2\0".to_vec();
        bytes.extend_from_slice(&junk);
        let _ = RMinHashState::decode(&bytes);
        let _ = RMinHashState::decode(&junk);
    }
}
