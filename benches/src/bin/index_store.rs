//! Why the index is segments and a manifest and not an embedded store: builds the same index
//! contents (N entries, each with M = 10 band keys, a 40-byte signature and a small document
//! record) both ways, and measures build time, bytes on disk and lookup time.
//!
//! ```text
//! cargo run --profile dist -p textreuse-benches --bin index_store -- 1000000 /tmp/store-cmp
//! ```
//!
//! * `segments`: `textreuse_index::IndexWriter` (band keys sorted into one memory-mapped
//!   segment, one commit);
//! * `redb`: a redb 2 database with a multimap table band key -> entry, a table entry ->
//!   (signature, document record), all inserted in one write transaction (redb's fastest
//!   path for a bulk load), with the same commit durability.
//!
//! Lookups: 100,000 band keys of indexed entries, each looked up (entries collected), on one
//! thread, after the build (warm page cache). Prints one JSON object per store.
use std::path::Path;
use std::time::Instant;

use redb::{Database, MultimapTableDefinition, TableDefinition};
use textreuse_corpus::{DocId, Document};
use textreuse_index::{Index, IndexUnit, IndexWriter, Params, SignedUnit};

const KEYS: MultimapTableDefinition<'_, u64, u32> = MultimapTableDefinition::new("keys");
const ENTRIES: TableDefinition<'_, u32, &[u8]> = TableDefinition::new("entries");
const LOOKUPS: usize = 100_000;

/// A reproducible stream of 64-bit values (splitmix64).
fn values(seed: u64) -> impl FnMut() -> u64 {
    let mut x = seed;
    move || {
        x = x.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = x;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
}

fn dir_bytes(dir: &Path) -> u64 {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum()
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let n: usize = args.first().ok_or("usage: index_store N DIR")?.parse()?;
    let root = Path::new(args.get(1).ok_or("usage: index_store N DIR")?);
    let _ = std::fs::remove_dir_all(root);
    std::fs::create_dir_all(root)?;
    let params = Params::new(IndexUnit::Sentence);
    let signer = params.signer()?;
    let hashes = params.hashes;
    // Random 60-bit minhashes and their real band keys.
    let unit = |next: &mut dyn FnMut() -> u64| {
        let mins: Vec<u64> = (0..hashes).map(|_| next() >> 4).collect();
        let mut keys = vec![0; signer.bands()];
        signer.band_keys_into(&mins, &mut keys);
        SignedUnit {
            span: 0..0,
            chars: 0..120,
            mins,
            keys,
        }
    };
    let doc = |i: usize| Document::new(DocId::from(format!("s{i}")), "", "");

    // Segments.
    let dir = root.join("segments");
    let start = Instant::now();
    let mut w = IndexWriter::create(&dir, params.clone())?;
    w.memory_budget(8 << 30);
    let mut next = values(1);
    for i in 0..n {
        w.add_signed(&doc(i), std::slice::from_ref(&unit(&mut next)))?;
    }
    w.commit()?;
    drop(w);
    let build = start.elapsed().as_secs_f64();
    let index = Index::open(&dir)?;
    let mut next = values(1);
    let mut probes = Vec::with_capacity(LOOKUPS);
    for i in 0..n {
        let u = unit(&mut next);
        if i % (n / LOOKUPS).max(1) == 0 && probes.len() < LOOKUPS {
            probes.push(u.mins);
        }
    }
    let start = Instant::now();
    let mut found = 0;
    for mins in &probes {
        found += index
            .query_signature(mins, &textreuse_index::QueryOptions::new())?
            .len();
    }
    let lookup = start.elapsed().as_secs_f64();
    println!(
        "{}",
        serde_json::json!({"store": "segments", "entries": n, "build_seconds": build,
            "bytes": dir_bytes(&dir), "bytes_per_entry": dir_bytes(&dir) as f64 / n as f64,
            "queries": probes.len(), "found": found,
            "microseconds_per_query": lookup * 1e6 / probes.len() as f64})
    );

    // redb.
    let path = root.join("redb");
    std::fs::create_dir_all(&path)?;
    let start = Instant::now();
    let db = Database::create(path.join("index.redb"))?;
    let tx = db.begin_write()?;
    {
        let mut keys = tx.open_multimap_table(KEYS)?;
        let mut entries = tx.open_table(ENTRIES)?;
        let mut next = values(1);
        let mut record = Vec::new();
        for i in 0..n {
            let u = unit(&mut next);
            for &k in &u.keys {
                keys.insert(k, i as u32)?;
            }
            record.clear();
            for m in &u.mins {
                record.extend_from_slice(&m.to_le_bytes()[..2]);
            }
            record.extend_from_slice(format!("s{i}").as_bytes());
            entries.insert(i as u32, record.as_slice())?;
        }
    }
    tx.commit()?;
    let build = start.elapsed().as_secs_f64();
    let rx = db.begin_read()?;
    let keys = rx.open_multimap_table(KEYS)?;
    let entries = rx.open_table(ENTRIES)?;
    let mut found = 0;
    // The same probes' band keys.
    let mut next = values(1);
    let mut probe_keys = Vec::with_capacity(probes.len());
    for i in 0..n {
        let u = unit(&mut next);
        if i % (n / LOOKUPS).max(1) == 0 && probe_keys.len() < LOOKUPS {
            probe_keys.push(u.keys);
        }
    }
    let start2 = Instant::now();
    for ks in &probe_keys {
        let mut hits: Vec<u32> = Vec::new();
        for &k in ks {
            for e in keys.get(k)? {
                hits.push(e?.value());
            }
        }
        hits.sort_unstable();
        hits.dedup();
        for e in &hits {
            if entries.get(*e)?.is_some() {
                found += 1;
            }
        }
    }
    let lookup = start2.elapsed().as_secs_f64();
    println!(
        "{}",
        serde_json::json!({"store": "redb", "entries": n, "build_seconds": build,
            "bytes": dir_bytes(&path), "bytes_per_entry": dir_bytes(&path) as f64 / n as f64,
            "queries": probe_keys.len(), "found": found,
            "microseconds_per_query": lookup * 1e6 / probe_keys.len() as f64})
    );
    Ok(())
}
