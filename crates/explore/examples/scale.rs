//! The explorer at scale: synthetic outputs of any size, how long opening them takes (the
//! first time, building the index; then again), and how long filtered samples take.
//!
//! ```sh
//! cargo run --release -p textreuse-explore --example scale -- write reuse DIR 10000000
//! cargo run --release -p textreuse-explore --example scale -- write clusters DIR 10000000
//! cargo run --release -p textreuse-explore --example scale -- measure DIR
//! ```
use std::io::BufWriter;
use std::path::Path;
use std::time::{Duration, Instant};

use textreuse_explore::{Explorer, Query, Table, sample, synthetic};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    match args.iter().map(String::as_str).collect::<Vec<_>>()[..] {
        ["write", table, dir, n] => {
            let n: u64 = n.parse()?;
            std::fs::create_dir_all(dir)?;
            let started = Instant::now();
            match table {
                "reuse" => {
                    let mut out =
                        BufWriter::new(std::fs::File::create(Path::new(dir).join("reuse.jsonl"))?);
                    synthetic::write_reuse(&mut out, n, 1)?;
                }
                "clusters" => {
                    let mut out = BufWriter::new(std::fs::File::create(
                        Path::new(dir).join("clusters.jsonl"),
                    )?);
                    synthetic::write_clusters(&mut out, n, 1)?;
                }
                _ => return Err("write reuse|clusters DIR N".into()),
            }
            println!(
                "wrote {n} {table} lines in {:.1} s",
                started.elapsed().as_secs_f64()
            );
        }
        ["measure", dir] => measure(Path::new(dir))?,
        _ => return Err("usage: scale write reuse|clusters DIR N | scale measure DIR".into()),
    }
    Ok(())
}

/// A field of /proc/self/status in MB: `VmHWM` (peak resident, including the pages of the
/// mapped files, which the kernel can drop) or `RssAnon` (resident memory of the process's own).
fn status_mb(field: &str) -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<f64>().ok())
        .map_or(f64::NAN, |kb| kb / 1024.0)
}

fn memory() -> String {
    format!(
        "peak resident {:.0} MB (with mapped file pages), own memory now {:.0} MB",
        status_mb("VmHWM"),
        status_mb("RssAnon")
    )
}

fn measure(dir: &Path) -> Result<(), Box<dyn std::error::Error>> {
    let fresh = !dir.join(".explore").exists();
    let started = Instant::now();
    // The most memory of its own the process held while building, sampled after each batch.
    let peak_own = std::sync::Mutex::new(0f64);
    let explorer = Explorer::builder().open_with(dir, &|_, _| {
        let mut peak = peak_own.lock().expect("not poisoned");
        *peak = peak.max(status_mb("RssAnon"));
    })?;
    println!(
        "own memory while building: at most {:.0} MB",
        *peak_own.lock().expect("not poisoned")
    );
    println!(
        "open ({}): {:.2} s; {}",
        if fresh {
            "building the index"
        } else {
            "index already built"
        },
        started.elapsed().as_secs_f64(),
        memory()
    );
    drop(explorer);
    let started = Instant::now();
    let explorer = Explorer::builder().open(dir)?;
    println!("open again: {:.3} s", started.elapsed().as_secs_f64());
    for index in explorer.tables() {
        println!(
            "{}: {} rows, {} titles",
            index.table().file_name(),
            index.len(),
            index.meta().titles
        );
        let queries: &[&str] = match index.table() {
            Table::Reuse => &[
                "kind=structure&suspicious_words.min=200&suspicious_words.max=400&jaccard_10.max=0.1",
                "kind=content",
                "kind=structure&jaccard_10.min=0.9",
                "jaccard_2.min=0.999&entity_jaccard.max=0.001",
                "title=Article 123456",
                "entity_jaccard.min=0.5&source_share.max=0.1&skip=1000",
            ],
            Table::Clusters => &[
                "type=factual_drift",
                "size.min=8&type=template",
                "title=Article 777",
                "cluster=3500003",
                "articles.min=7&min_similarity.max=0.71",
            ],
            Table::Contradictions => &["facts.min=1"],
        };
        for q in queries {
            let mut times = Vec::new();
            let mut last = None;
            for seed in 1..=5u64 {
                let seed = seed.to_string();
                let params: Vec<(&str, &str)> = q
                    .split('&')
                    .filter_map(|p| p.split_once('='))
                    .chain([("seed", seed.as_str())])
                    .collect();
                let query = Query::parse(index, params)?;
                let started = Instant::now();
                let s = sample(index, &query);
                times.push(started.elapsed());
                last = Some(s);
            }
            times.sort();
            let s = last.expect("five runs");
            println!(
                "  {q}: median {:.1} ms, max {:.1} ms; {} rows of {}{} matching",
                ms(times[2]),
                ms(times[4]),
                s.rows.len(),
                if s.exact { "" } else { "about " },
                s.matched
            );
        }
    }
    println!("{}", memory());
    Ok(())
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
