use std::io::Write;

use proptest::prelude::*;

use super::*;

thread_local! {
    /// Makes the sequential source on this thread give up a stream's compressed bytes after its
    /// first block, so that failures are settled from the failing block's bit (as in streams
    /// over 8 MiB).
    pub(super) static RETAIN_NOTHING: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

fn bz2(bytes: &[u8]) -> Vec<u8> {
    let mut enc = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::new(1));
    enc.write_all(bytes).unwrap();
    enc.finish().unwrap()
}

/// Some streams of distinct text, concatenated; returns the file and each stream's offset.
fn streams(n: usize) -> (Vec<u8>, Vec<u64>) {
    let mut out = Vec::new();
    let mut offsets = Vec::new();
    for i in 0..n {
        offsets.push(out.len() as u64);
        let text = format!("<stream {i}>{}</stream>\n", "some text ".repeat(50 + 7 * i));
        out.extend(bz2(text.as_bytes()));
    }
    (out, offsets)
}

/// Everything a source yields: the bytes, and each error (as text) with the output offset it
/// came at.
type Drained = (Vec<u8>, Vec<(usize, String)>);

fn drain(mut source: impl Source) -> Drained {
    let mut out = Vec::new();
    let mut errors = Vec::new();
    loop {
        let before = out.len();
        match source.fill(&mut out) {
            Ok(0) => break,
            Ok(n) => {
                assert_eq!(out.len() - before, n);
                // Fills end on CHUNK boundaries unless an error or the end follows.
                assert!(n <= CHUNK);
            }
            Err(e) => {
                let fatal = e.is_fatal();
                errors.push((out.len(), e.to_string()));
                if fatal {
                    break;
                }
            }
        }
    }
    (out, errors)
}

/// The sequential source (block by block), checked to give libbz2-rs's bytes and errors.
fn sequential(bytes: &[u8]) -> Drained {
    let got = drain(Bz2Seq::new(io::Cursor::new(bytes.to_vec()), 0));
    assert_eq!(
        got,
        reference(bytes),
        "block by block against libbz2-rs alone"
    );
    got
}

/// libbz2-rs alone, segment by segment: what the block-by-block decoders must give.
fn reference(bytes: &[u8]) -> Drained {
    drain(Bz2Seq::reference(io::Cursor::new(bytes.to_vec()), 0))
}

fn parallel(bytes: &[u8], threads: usize) -> Drained {
    let prefix = bytes[..4.min(bytes.len())].to_vec();
    let rest = io::Cursor::new(bytes[prefix.len()..].to_vec());
    drain(Bz2Parallel::new(prefix, rest, threads))
}

/// `file` with `junk` written over `remove` bytes at `at` and `cut` bytes cut off its end;
/// `None` when what is left does not start like bzip2.
fn damaged(
    mut file: Vec<u8>,
    at: usize,
    junk: &[u8],
    remove: usize,
    cut: usize,
) -> Option<Vec<u8>> {
    let at = at.min(file.len());
    let end = (at + remove).min(file.len());
    file.splice(at..end, junk.iter().copied());
    file.truncate(file.len() - cut.min(file.len() - 4));
    is_bzip2(&file).then_some(file)
}

/// The sequential source's bytes and errors, checked to be the parallel source's at 2 and 3
/// threads.
fn alike(file: &[u8]) -> Result<Drained, TestCaseError> {
    let want = sequential(file);
    prop_assert_eq!(&parallel(file, 2), &want);
    prop_assert_eq!(&parallel(file, 3), &want);
    Ok(want)
}

#[test]
fn intact_streams_decode_alike() {
    let (file, _) = streams(6);
    let (want, errors) = sequential(&file);
    assert!(errors.is_empty(), "{errors:?}");
    assert!(want.starts_with(b"<stream 0>") && want.ends_with(b"</stream>\n"));
    assert_eq!(parallel(&file, 2), (want.clone(), vec![]));
    assert_eq!(parallel(&file, 3), (want, vec![]));
}

#[test]
fn junk_between_streams_is_one_error_with_its_range() {
    let (mut file, offsets) = streams(4);
    let at = offsets[2] as usize;
    file.splice(at..at, b"JUNK JUNK".iter().copied());
    let (out, errors) = sequential(&file);
    assert_eq!(
        errors.iter().map(|(_, e)| e.as_str()).collect::<Vec<_>>(),
        [format!(
            "9 bytes of non-bzip2 data after a bzip2 stream at compressed bytes {at}..{}; skipped",
            at + 9
        )]
    );
    // Every stream still comes out.
    assert_eq!(out.windows(8).filter(|w| w == b"<stream ").count(), 4);
    assert_eq!(parallel(&file, 2), (out, errors));
}

#[test]
fn corrupt_stream_is_reported_with_its_range_and_the_next_one_read() {
    let (mut file, offsets) = streams(5);
    let (a, b) = (offsets[1] as usize, offsets[2] as usize);
    for byte in &mut file[a + 20..a + 40] {
        *byte ^= 0x5a;
    }
    let (out, errors) = sequential(&file);
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].1.starts_with(&format!(
            "damaged bzip2 stream at compressed bytes {a}..{b}: "
        )),
        "{errors:?}"
    );
    for i in [0, 2, 3, 4] {
        assert!(memchr::memmem::find(&out, format!("<stream {i}>").as_bytes()).is_some());
    }
    assert_eq!(parallel(&file, 2), (out.clone(), errors.clone()));
    assert_eq!(parallel(&file, 4), (out, errors));
}

#[test]
fn cut_off_input_keeps_what_was_decoded() {
    let (file, offsets) = streams(3);
    let cut = &file[..file.len() - 10];
    let (out, errors) = sequential(cut);
    let last = offsets[2];
    assert_eq!(
        errors.iter().map(|(_, e)| e.as_str()).collect::<Vec<_>>(),
        [format!(
            "damaged bzip2 stream at compressed bytes {last}..{}: the input ends inside it \
             (cut off); the rest of that stream is skipped",
            cut.len()
        )]
    );
    assert!(out.ends_with(b"</stream>\n"));
    assert_eq!(parallel(cut, 2), (out, errors));
}

#[test]
fn empty_streams_inside_a_segment_are_read() {
    // An empty stream has no block magic, so it does not start a segment: the segment decoder
    // reads it as the stream after the previous one.
    let (mut file, _) = streams(2);
    let empty = bz2(b"");
    file.extend(&empty);
    file.extend(bz2(b"after the empty stream"));
    let (out, errors) = sequential(&file);
    assert!(errors.is_empty(), "{errors:?}");
    assert!(out.ends_with(b"after the empty stream"));
    assert_eq!(parallel(&file, 2), (out, errors));
}

#[test]
fn a_bomb_stays_bounded_in_parallel() {
    // 40 MiB of one byte in a bzip2 stream of a few hundred bytes.
    let size = 40 << 20;
    let mut enc = bzip2::write::BzEncoder::new(Vec::new(), bzip2::Compression::new(9));
    let block = vec![b'a'; 1 << 20];
    for _ in 0..size >> 20 {
        enc.write_all(&block).unwrap();
    }
    let bomb = enc.finish().unwrap();
    assert!(bomb.len() < 4096, "{}", bomb.len());
    let mut source = Bz2Parallel::new(bomb[..4].to_vec(), io::Cursor::new(bomb[4..].to_vec()), 2);
    let mut total = 0;
    let mut out = Vec::new();
    loop {
        out.clear();
        match source.fill(&mut out) {
            Ok(0) => break,
            Ok(n) => total += n,
            Err(e) => panic!("{e}"),
        }
    }
    assert_eq!(total, size);
    // One job: its channel's pieces and the one its worker is sending.
    let peak = source.peak_in_flight();
    assert!(peak <= (JOB_PIECES + 1) * CHUNK, "{peak}");
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(48))]
    /// Damage anywhere (bytes overwritten, inserted or cut off): the sequential source and
    /// the parallel one at 2 and 3 threads give the same bytes and the same errors at the same
    /// places, and every stream the damage does not touch comes out whole.
    #[test]
    fn damage_gives_the_same_result_at_any_thread_count(
        at in 0usize..4000,
        junk in proptest::collection::vec(any::<u8>(), 0..40),
        remove in 0usize..40,
        cut in 0usize..200,
    ) {
        let (file, offsets) = streams(8);
        let Some(file) = damaged(file, at, &junk, remove, cut) else {
            return Ok(());
        };
        let want = alike(&file)?;
        // Streams wholly before the damage come out intact.
        let damage = at.min(file.len());
        for (i, w) in offsets.windows(2).enumerate() {
            if (w[1] as usize) <= damage {
                let tag = format!("<stream {i}>");
                prop_assert!(memchr::memmem::find(&want.0, tag.as_bytes()).is_some());
            }
        }
    }
}

/// `size` bytes of random lowercase words (about 2:1 under bzip2), deterministic.
fn words(size: usize, seed: u64) -> Vec<u8> {
    let mut x = seed | 1;
    let mut out = Vec::with_capacity(size + 16);
    while out.len() < size {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        for i in 0..2 + x % 7 {
            out.push(b'a' + ((x >> (8 + 5 * i)) % 26) as u8);
        }
        out.push(if x.is_multiple_of(13) { b'\n' } else { b' ' });
    }
    out.truncate(size);
    out
}

/// One bzip2 stream of 24 blocks of 100 kB.
fn large_stream(seed: u64) -> (Vec<u8>, Vec<u8>) {
    let text = words(2_400_000, seed);
    let file = bz2(&text);
    (text, file)
}

#[test]
fn a_large_stream_is_decoded_block_by_block_alike() {
    let (text, file) = large_stream(1);
    let want = sequential(&file);
    assert_eq!(want.0, text);
    assert!(want.1.is_empty(), "{:?}", want.1);
    let before = blocks::BLOCKS_DECODED.load(Ordering::Relaxed);
    assert_eq!(parallel(&file, 2), want);
    assert!(blocks::BLOCKS_DECODED.load(Ordering::Relaxed) >= before + 20);
    assert_eq!(parallel(&file, 3), want);
    // Followed by more streams, and with junk after it.
    let mut more = file.clone();
    let (tail, _) = streams(3);
    more.extend_from_slice(&tail);
    more.extend_from_slice(b"junk");
    let want = sequential(&more);
    assert_eq!(want.1.len(), 1, "{:?}", want.1);
    assert_eq!(parallel(&more, 2), want);
}

/// Damaged block tables (bytes changed one at a time; the `lbzip2` crate's decoder, used before
/// `mibz2`, panicked on some of these, found by the `wikidump_multistream` fuzz target): the
/// parallel source still gives the sequential one's bytes and errors, and the block decoder
/// refuses them with an error, not a panic.
#[test]
fn damaged_blocks_do_not_escape_the_workers() {
    let (_, file) = large_stream(5);
    let before = blocks::PANICS_CAUGHT.load(Ordering::Relaxed);
    for at in (10..400).step_by(7) {
        for x in [0x5a, 0x01, 0x80, 0xff] {
            let mut bad = file[..200_000].to_vec();
            bad[at] ^= x;
            assert_eq!(parallel(&bad, 2), sequential(&bad), "byte {at} ^ {x}");
        }
    }
    assert_eq!(blocks::PANICS_CAUGHT.load(Ordering::Relaxed), before);
}

#[test]
fn false_block_magics_are_repaired() {
    let (text, file) = large_stream(2);
    blocks::tests_hook::FALSE_CANDIDATES.store(true, Ordering::Relaxed);
    let got = parallel(&file, 2);
    blocks::tests_hook::FALSE_CANDIDATES.store(false, Ordering::Relaxed);
    assert_eq!(got.0, text);
    assert!(got.1.is_empty(), "{:?}", got.1);
}

#[test]
fn blocks_with_large_output_are_decoded_again_streaming() {
    let (text, file) = large_stream(4);
    blocks::tests_hook::MAX_BLOCK_OUTPUT.store(1000, Ordering::Relaxed);
    let got = parallel(&file, 2);
    blocks::tests_hook::MAX_BLOCK_OUTPUT.store(0, Ordering::Relaxed);
    assert_eq!(got.0, text);
    assert!(got.1.is_empty(), "{:?}", got.1);
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(24))]
    /// Damage anywhere in a large stream (bytes overwritten, inserted or cut off): the same
    /// bytes and errors at every thread count, and the text before the damage comes out.
    #[test]
    fn damage_in_a_large_stream_gives_the_same_result_at_any_thread_count(
        at in 0usize..1_400_000,
        junk in proptest::collection::vec(any::<u8>(), 0..8),
        remove in 0usize..8,
        cut in 0usize..300_000,
    ) {
        let (text, file) = large_stream(3);
        let Some(file) = damaged(file, at, &junk, remove, cut) else {
            return Ok(());
        };
        let want = alike(&file)?;
        // A 100 kB block compresses to about 60 kB: all but the last few blocks before the
        // damage come out.
        let damage = at.min(file.len());
        let intact = (damage / 60_000).saturating_sub(3) * 100_000;
        prop_assert!(want.0.len() >= intact.min(text.len()), "{} < {}", want.0.len(), intact);
        prop_assert_eq!(&want.0[..intact.min(want.0.len())], &text[..intact.min(want.0.len())]);
    }
}

/// A failure past the first block of a stream whose start is no longer kept: decoded from the
/// failing block's bit, with libbz2-rs's output and errors all the same, for corrupt bytes in
/// many places of a large stream.
#[test]
fn corrupt_blocks_of_a_long_stream_are_settled_from_their_bit() {
    let (_, file) = large_stream(6);
    for at in (70_000..file.len() - 100).step_by(97_003) {
        let mut bad = file.clone();
        for byte in &mut bad[at..at + 16] {
            *byte ^= 0x5a;
        }
        let want = reference(&bad);
        assert_eq!(want.1.len(), 1, "{:?}", want.1);
        RETAIN_NOTHING.set(true);
        let got = drain(Bz2Seq::new(io::Cursor::new(bad.clone()), 0));
        RETAIN_NOTHING.set(false);
        assert_eq!(got, want, "corrupt at {at}");
    }
}
