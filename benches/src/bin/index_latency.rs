//! Query latency and throughput of a `textreuse index`, for `docs/index.md`:
//!
//! ```text
//! cargo run --profile dist -p textreuse-benches --bin index_latency -- INDEX QUERIES.jsonl
//! ```
//!
//! Queries every document of QUERIES (JSON Lines, as `index query` reads them) one at a time on
//! one thread, timing each `Index::query_text` from text to ranked matches, and prints the
//! p50, p99 and max latency; then queries them all again as a batch on every thread
//! (`Index::query_all`, what `textreuse index query` runs) and prints the throughput. Prints one
//! JSON object.
use std::path::PathBuf;
use std::time::Instant;

use textreuse_corpus::{Document, Inputs, NoProgress};
use textreuse_index::{Index, QueryOptions};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [index, queries] = &args[..] else {
        return Err("usage: index_latency INDEX QUERIES.jsonl".into());
    };
    let opened = Instant::now();
    let index = Index::open(index)?;
    let open_ms = opened.elapsed().as_secs_f64() * 1e3;
    let files = [PathBuf::from(queries)];
    let cleaner = textreuse_wikidump::Cleaner::new();
    let docs: Vec<Document> = Inputs::new(&files)
        .filter_map(Result::ok)
        .map(|s| s.into_document(&cleaner))
        .collect();
    let options = QueryOptions::new();
    let mut times = Vec::with_capacity(docs.len());
    let mut matched = 0u64;
    let single = Instant::now();
    for d in &docs {
        let t = Instant::now();
        let found = index.query_text(&d.text, &options)?;
        times.push(t.elapsed().as_secs_f64() * 1e3);
        matched += found.iter().any(|u| !u.matches.is_empty()) as u64;
    }
    let single_secs = single.elapsed().as_secs_f64();
    times.sort_by(f64::total_cmp);
    let pct = |p: f64| times[((times.len() as f64 * p) as usize).min(times.len() - 1)];
    let batch = Instant::now();
    let stats = index.query_all(Inputs::new(&files), &options, &NoProgress, None, |_, _| {
        Ok::<(), textreuse_index::Error>(())
    })?;
    let batch_secs = batch.elapsed().as_secs_f64();
    // Resident memory by kind: anonymous (the program's own) and file pages of the mapped
    // segments (page cache the OS can drop at any time).
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kib = |field: &str| {
        status
            .lines()
            .find_map(|l| l.strip_prefix(field))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
    };
    println!(
        "{}",
        serde_json::json!({
            "entries": index.stats().entries,
            "queries": docs.len(),
            "queries_with_matches": matched,
            "open_ms": open_ms,
            "single_p50_ms": pct(0.5),
            "single_p99_ms": pct(0.99),
            "single_max_ms": times.last(),
            "single_queries_per_sec": docs.len() as f64 / single_secs,
            "batch_queries_per_sec": stats.documents as f64 / batch_secs,
            "batch_threads": rayon::current_num_threads(),
            "rss_kib": kib("VmRSS:"),
            "rss_anon_kib": kib("RssAnon:"),
            "rss_file_kib": kib("RssFile:"),
        })
    );
    Ok(())
}
