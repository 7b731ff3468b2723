//! A tiny plagiarism checker: index a corpus's paragraphs with MinHash band keys, retrieve the
//! candidate sources of a suspicious text, align each candidate and classify each reuse case.
//!
//! Run with `cargo run -p textreuse --example plagiarism_checker`.
use textreuse::align::Aligner;
use textreuse::align::index::CorpusIndex;
use textreuse::align::reuse::profile;

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
    // 1. Index the corpus: paragraph chunks, word 2-gram MinHash band keys.
    let mut index = CorpusIndex::builder().ngram(2).rows(2).bands(30).build()?;
    for (_, text) in &CORPUS {
        index.add(text);
    }
    println!(
        "indexed {} documents in {} chunks; P(chunk pair with Jaccard 0.2 shares a key) = {:.2}",
        index.len(),
        index.chunks().len(),
        index.signer().exact_match_probability(0.2)
    );

    // 2. Retrieve the candidate sources, best first.
    let candidates = index.candidates(SUSPICIOUS, 2);
    // 3. Align each candidate and classify what is found.
    let aligner = Aligner::builder().min_passage_len(100).build()?;
    let mut found = 0;
    for c in &candidates {
        let (title, source) = CORPUS[c.doc];
        println!(
            "candidate \"{title}\": {} shared band keys, estimated Jaccard {:.2}",
            c.shared_keys, c.best_jaccard
        );
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
