//! Near-duplicate sentences among documents a program already holds, with the clusters
//! collected in a `Vec`: no files, no command line.
//!
//! Run: `cargo run --release -p textreuse --example dedup_in_memory`
use textreuse::corpus::{Document, NoProgress};
use textreuse::dedup::{Cluster, Dedup};
use textreuse::minhash::{BandScheme, Signer};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let base = "The old mill on the river was built in 1820 by the Smith family and still grinds \
                grain for the village bakery every morning.";
    let documents = vec![
        Document::new(
            1,
            "Mill",
            format!("{base} It is open to visitors on Sundays."),
        ),
        // A copy with one word changed: a near duplicate.
        Document::new(2, "Village", base.replace("village", "town")),
        // An exact copy inside other text.
        Document::new(3, "Bakery", format!("The bakery opened in 1901. {base}")),
        Document::new(
            4,
            "Unrelated",
            "Nothing here resembles the other documents at all.",
        ),
    ];

    // One changed word in a sentence of 130 characters leaves a Jaccard similarity of about 0.8
    // between their 12-character shingle sets. The default signer (N = 20, K = 10, M = 10,
    // drawn bands) catches such a pair less than half of the time; 20 disjoint bands of 5 rows
    // catch it almost always (`textreuse tune --threshold 0.7` explores the trade-off).
    let signer = Signer::builder()
        .scheme(BandScheme::Disjoint)
        .rows(5)
        .bands(20)
        .build()?;
    println!(
        "P(pair with Jaccard 0.8 shares a band key): default {:.2}, this signer {:.4}",
        Signer::new().exact_match_probability(0.8),
        signer.exact_match_probability(0.8)
    );
    // These short sentences must also pass the length filter (default: 75 shingles or more).
    let dedup = Dedup::builder().signer(signer).min_shingles(40).build()?;
    let mut clusters: Vec<Cluster> = Vec::new();
    let stats = dedup.run_documents(documents, &mut clusters, &NoProgress)?;

    println!(
        "{} documents, {} sentences kept, {} clusters",
        stats.documents, stats.sentences_kept, stats.clusters
    );
    for cluster in &clusters {
        println!("cluster {:#x} ({}):", cluster.id, cluster.kind.as_str());
        for member in &cluster.members {
            println!(
                "  [{} {}#{}] {}",
                member.doc,
                member.title,
                member.idx(),
                member.text
            );
        }
    }
    Ok(())
}
