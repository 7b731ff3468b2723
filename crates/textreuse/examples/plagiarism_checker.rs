//! A tiny plagiarism checker built on `minhash::Signer`: sign the corpus's paragraphs, bucket
//! them by band key, retrieve the candidate sources of a suspicious text's paragraphs, align each
//! candidate and classify each reuse case.
//!
//! Run with `cargo run -p textreuse --example plagiarism_checker`.
//! (`textreuse::reuse::Checker` packages the same pipeline, with `textreuse::index::MemoryIndex`'s
//! retrieval over word n-grams.)
use std::collections::{BTreeMap, HashMap};

use textreuse::align::Aligner;
use textreuse::minhash::{SignerConfig, TextSigner};
use textreuse::reuse::profile;

const CORPUS: [(&str, &str); 3] = [
    (
        "Rivers",
        "The river rises in the northern hills and flows south through a wide valley of farms and \
         orchards before it reaches the sea near the old harbour town.\n\nIn the nineteenth \
         century mills were built along its banks, and the town grew around the trade in grain \
         and timber that the river carried down to the harbour every spring and autumn.",
    ),
    (
        "Bees",
        "Bees collect nectar and pollen from flowers, and in doing so they carry pollen from one \
         plant to the next, which lets many crops set fruit. Farmers rent hives for their \
         orchards during the weeks of bloom.\n\nA colony can hold tens of thousands of workers in \
         summer, but only a few thousand of them survive the cold winter months inside the hive, \
         clustered around the queen and living on the honey they stored.",
    ),
    (
        "Chess",
        "Chess engines search millions of positions per second and evaluate each one with a \
         function tuned on games between strong players. Opening books and endgame tables \
         complete the search where it is weakest, and the best engines now beat every human.",
    ),
];

const SUSPICIOUS: &str = "My report on farming begins with a few words of my own about the \
    weather this year, which was dry and warm for most of the season.\n\nA bee colony can hold \
    tens of thousands of workers in the summer, but only a few thousand of them survive the cold \
    winter months inside the hive, clustered around their queen and living on the honey they had \
    stored.\n\nThe rest of the report is about prices at the market and the cost of new tools.";

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // 1. Index the corpus: every paragraph's MinHash band keys (normalized 12-character
    // shingles, the same recipe as `textreuse dedup`). Bands of 2 rows catch paraphrases: a
    // paragraph pair of Jaccard 0.3 shares a key with probability 0.94 (the chunk preset,
    // 30 disjoint bands of 2 rows, that `Checker`'s chunk index uses).
    let signer = SignerConfig::chunks().build()?;
    let mut text_signer = TextSigner::new(&signer);
    let mut buckets: HashMap<u64, Vec<usize>> = HashMap::new();
    for (doc, (_, text)) in CORPUS.iter().enumerate() {
        for paragraph in text.split("\n\n") {
            for &key in text_signer.band_keys(paragraph).unwrap_or_default() {
                buckets.entry(key).or_default().push(doc);
            }
        }
    }
    println!(
        "indexed {} documents in {} buckets; P(paragraph pair with Jaccard 0.3 shares a key) = {:.2}",
        CORPUS.len(),
        buckets.len(),
        signer.exact_match_probability(0.3)
    );

    // 2. Retrieve the candidate sources: documents sharing band keys with a suspicious
    // paragraph, most shared keys first.
    let mut shared: BTreeMap<usize, usize> = BTreeMap::new();
    for paragraph in SUSPICIOUS.split("\n\n") {
        for key in text_signer.band_keys(paragraph).unwrap_or_default() {
            for &doc in buckets.get(key).into_iter().flatten() {
                *shared.entry(doc).or_default() += 1;
            }
        }
    }
    let mut candidates: Vec<(usize, usize)> = shared.into_iter().collect();
    candidates.sort_by(|a, b| b.1.cmp(&a.1).then(a.0.cmp(&b.0)));
    // 3. Align each candidate and classify what is found.
    let aligner = Aligner::builder().min_passage_len(100).build()?;
    let mut found = 0;
    for &(doc, keys) in &candidates {
        let (title, source) = CORPUS[doc];
        println!("candidate \"{title}\": {keys} shared band keys");
        for p in aligner.align(source, SUSPICIOUS) {
            let (src_chars, susp_chars) = p.char_ranges(source, SUSPICIOUS);
            let reuse = profile(
                &source[p.source.clone()],
                &SUSPICIOUS[p.suspicious.clone()],
                source.len(),
                SUSPICIOUS.len(),
            );
            found += 1;
            println!(
                "  {} reuse, score {:.2}: suspicious chars {susp_chars:?} <- source chars \
                 {src_chars:?}\n    suspicious: {}\n    source:     {}",
                reuse.kind.as_str(),
                p.score,
                &SUSPICIOUS[p.suspicious.clone()],
                &source[p.source.clone()],
            );
        }
    }
    println!("{found} reused passage(s) found");
    Ok(())
}
