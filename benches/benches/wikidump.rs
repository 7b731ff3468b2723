//! `wikidump/bz2`: the bundled sample's bzip2 decoded by the dump reader's decoder
//! (`Bz2Decoder`, mibz2 blocks) on one thread, beside libbz2-rs (`bzip2::read::MultiBzDecoder`);
//! `wikidump/xml`: pages out of in-memory dump XML; `wikidump/clean`: wikitext to paragraphs.
//! Input: the bundled sample dump (`data/enwiki-sample-206.xml.bz2`), decompressed once for the
//! last two.
//!
//! Run: `cargo bench -p textreuse-benches --bench wikidump`; on a loaded machine set
//! `TEXTREUSE_BENCH_CPU_TIME=1` to measure the benchmark thread's CPU time (see
//! `textreuse_benches::ThreadCpuTime`).
use std::hint::black_box;
use std::io::Read;

use criterion::measurement::Measurement;
use criterion::{Criterion, Throughput};
use textreuse_wikidump::{Article, Bz2Decoder, Cleaner, ReaderBuilder};

const SAMPLE: &str = concat!(
    env!("CARGO_MANIFEST_DIR"),
    "/../data/enwiki-sample-206.xml.bz2"
);

fn sample_xml() -> Vec<u8> {
    let file = std::fs::File::open(SAMPLE).expect("bundled sample dump");
    let mut xml = Vec::new();
    bzip2::read::MultiBzDecoder::new(file)
        .read_to_end(&mut xml)
        .expect("sample decompresses");
    xml
}

/// Throughput in bytes of XML out; the file is read into memory once.
fn bz2<M: Measurement>(c: &mut Criterion<M>) {
    let compressed = std::fs::read(SAMPLE).expect("bundled sample dump");
    let xml_len = sample_xml().len();
    let mut group = c.benchmark_group("wikidump/bz2");
    group.throughput(Throughput::Bytes(xml_len as u64));
    let mut out = Vec::with_capacity(xml_len);
    group.bench_function("decoder-t1", |b| {
        b.iter(|| {
            out.clear();
            Bz2Decoder::new(std::io::Cursor::new(compressed.clone()), 1)
                .read_to_end(&mut out)
                .expect("sample decodes");
            black_box(out.len())
        });
    });
    // Baseline: libbz2-rs, the reader's decoder for what the block decoder refuses.
    group.bench_function("baseline-libbz2-rs", |b| {
        b.iter(|| {
            out.clear();
            bzip2::read::MultiBzDecoder::new(compressed.as_slice())
                .read_to_end(&mut out)
                .expect("sample decodes");
            black_box(out.len())
        });
    });
    group.finish();
}

fn xml<M: Measurement>(c: &mut Criterion<M>) {
    let xml = sample_xml();
    let mut group = c.benchmark_group("wikidump/xml");
    group.throughput(Throughput::Bytes(xml.len() as u64));
    group.bench_function("pages", |b| {
        b.iter(|| {
            let mut builder = ReaderBuilder::new();
            builder.namespaces(None).redirects(true);
            let reader = builder
                .from_reader(std::io::Cursor::new(xml.as_slice().to_vec()))
                .expect("reader");
            let mut bytes = 0;
            for page in reader {
                bytes += page.expect("sample is clean").text.len();
            }
            black_box(bytes)
        });
    });
    // Baseline: only counting the `<page>` tags with a naive window scan, no parsing.
    group.bench_function("baseline-count-page-tags", |b| {
        b.iter(|| black_box(xml.windows(6).filter(|w| w == b"<page>").count()));
    });
    group.finish();
}

fn clean<M: Measurement>(c: &mut Criterion<M>) {
    let xml = sample_xml();
    let reader = ReaderBuilder::new()
        .from_reader(std::io::Cursor::new(xml))
        .expect("reader");
    let texts: Vec<String> = reader.map(|p| p.expect("clean sample").text).collect();
    let bytes: usize = texts.iter().map(String::len).sum();
    let cleaner = Cleaner::new();
    let mut group = c.benchmark_group("wikidump/clean");
    group.throughput(Throughput::Bytes(bytes as u64));
    group.bench_function("articles", |b| {
        let mut article = Article::new();
        b.iter(|| {
            let mut n = 0;
            for text in &texts {
                cleaner.clean_into(text, &mut article);
                n += article.len();
            }
            black_box(n)
        });
    });
    // Baseline: a naive cleaner that only deletes bracket and quote characters in one pass
    // (no structure, no nesting): the cost of touching every byte once.
    group.bench_function("baseline-strip-chars", |b| {
        let mut out = String::new();
        b.iter(|| {
            let mut n = 0;
            for text in &texts {
                out.clear();
                out.extend(
                    text.chars()
                        .filter(|c| !matches!(c, '[' | ']' | '{' | '}' | '\'')),
                );
                n += out.len();
            }
            black_box(n)
        });
    });
    group.finish();
}

textreuse_benches::cpu_or_wall_main!(bz2, xml, clean);
