//! Benches of textreuse-shingle on real Wikipedia prose (`testdata/shingle/wiki-articles.txt`,
//! 168 KB of three articles, CC BY-SA), in MB/s of input text.
//!
//! * `shingle/sentences`: our splitter against unicode-segmentation's UAX #29 sentence bounds.
//! * `shingle/char_shingles`: sentence splitting plus 12-char shingle fingerprints per sentence
//!   (the dedup pipeline's hot path), the same with deduplication, and the naive baseline that
//!   collects every shingle of a sentence as a `String` into a `HashSet`.
//!
//! Run: `cargo bench -p textreuse-benches --bench shingle`. On a shared, loaded machine set
//! `TEXTREUSE_BENCH_CPU_TIME=1` to measure the benchmark thread's CPU time (Linux
//! `CLOCK_THREAD_CPUTIME_ID`) instead of wall time: per-core throughput that does not count
//! the time other processes hold the core.
use std::collections::HashSet;
use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::measurement::{Measurement, ValueFormatter, WallTime};
use criterion::{BenchmarkId, Criterion, Throughput};
use textreuse_shingle::{
    CharShingles, char_shingle_fingerprints, dedup_fingerprints, sentences, words,
};
use unicode_segmentation::UnicodeSegmentation;

const TEXT: &str = include_str!("../../testdata/shingle/wiki-articles.txt");

fn bench_sentences<M: Measurement>(c: &mut Criterion<M>) {
    let mut g = c.benchmark_group("shingle/sentences");
    g.throughput(Throughput::Bytes(TEXT.len() as u64));
    g.bench_function(BenchmarkId::new("ours", TEXT.len()), |b| {
        b.iter(|| sentences(black_box(TEXT)).count())
    });
    g.bench_function(BenchmarkId::new("uax29-baseline", TEXT.len()), |b| {
        b.iter(|| black_box(TEXT).unicode_sentences().count())
    });
    g.bench_function(BenchmarkId::new("words", TEXT.len()), |b| {
        b.iter(|| words(black_box(TEXT)).count())
    });
    g.finish();
}

fn bench_char_shingles<M: Measurement>(c: &mut Criterion<M>) {
    let mut g = c.benchmark_group("shingle/char_shingles");
    g.throughput(Throughput::Bytes(TEXT.len() as u64));
    g.bench_function(
        BenchmarkId::new("sentences+fingerprints-L12", TEXT.len()),
        |b| {
            let mut fps = Vec::with_capacity(1024);
            b.iter(|| {
                let mut total = 0;
                for s in sentences(black_box(TEXT)) {
                    total += char_shingle_fingerprints(s.as_str(), 12, &mut fps);
                }
                total
            })
        },
    );
    g.bench_function(
        BenchmarkId::new("sentences+fingerprints+dedup-L12", TEXT.len()),
        |b| {
            let mut fps = Vec::with_capacity(1024);
            b.iter(|| {
                let mut total = 0;
                for s in sentences(black_box(TEXT)) {
                    char_shingle_fingerprints(s.as_str(), 12, &mut fps);
                    total += dedup_fingerprints(&mut fps);
                }
                total
            })
        },
    );
    g.bench_function(
        BenchmarkId::new("fingerprints-whole-text-L12", TEXT.len()),
        |b| {
            let mut fps = Vec::with_capacity(TEXT.len());
            b.iter(|| char_shingle_fingerprints(black_box(TEXT), 12, &mut fps))
        },
    );
    g.bench_function(BenchmarkId::new("iterator-spans-L12", TEXT.len()), |b| {
        b.iter(|| {
            CharShingles::new(black_box(TEXT), 12)
                .map(|s| s.fingerprint)
                .fold(0u64, |a, f| a ^ f)
        })
    });
    g.bench_function(
        BenchmarkId::new("hashset-string-baseline-L12", TEXT.len()),
        |b| {
            b.iter(|| {
                let mut total = 0;
                for s in sentences(black_box(TEXT)) {
                    let chars: Vec<char> = s.as_str().chars().collect();
                    let set: HashSet<String> =
                        chars.windows(12).map(|w| w.iter().collect()).collect();
                    total += set.len();
                }
                total
            })
        },
    );
    g.finish();
}

/// The calling thread's CPU time in nanoseconds (`clock_gettime(CLOCK_THREAD_CPUTIME_ID)`,
/// which is exact to the nanosecond, unlike `/proc/thread-self/schedstat` which only advances at
/// scheduler ticks).
#[cfg(all(target_os = "linux", target_pointer_width = "64"))]
fn thread_cpu_ns() -> Option<u64> {
    #[repr(C)]
    struct Timespec {
        tv_sec: i64,
        tv_nsec: i64,
    }
    const CLOCK_THREAD_CPUTIME_ID: i32 = 3;
    unsafe extern "C" {
        fn clock_gettime(clock: i32, tp: *mut Timespec) -> i32;
    }
    let mut ts = Timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec (two 64-bit fields on 64-bit Linux), and this
    // clock id exists on every Linux since 2.6.12.
    let rc = unsafe { clock_gettime(CLOCK_THREAD_CPUTIME_ID, &mut ts) };
    (rc == 0).then(|| ts.tv_sec as u64 * 1_000_000_000 + ts.tv_nsec as u64)
}

#[cfg(not(all(target_os = "linux", target_pointer_width = "64")))]
fn thread_cpu_ns() -> Option<u64> {
    None
}

/// Criterion measurement of the benchmark thread's CPU time (wall time where unavailable).
struct ThreadCpuTime {
    wall: WallTime,
}

impl Measurement for ThreadCpuTime {
    type Intermediate = (Option<u64>, Instant);
    type Value = Duration;

    fn start(&self) -> Self::Intermediate {
        (thread_cpu_ns(), Instant::now())
    }
    fn end(&self, (cpu, wall): Self::Intermediate) -> Duration {
        match (cpu, thread_cpu_ns()) {
            (Some(a), Some(b)) => Duration::from_nanos(b.saturating_sub(a)),
            _ => wall.elapsed(),
        }
    }
    fn add(&self, a: &Duration, b: &Duration) -> Duration {
        *a + *b
    }
    fn zero(&self) -> Duration {
        Duration::ZERO
    }
    fn to_f64(&self, value: &Duration) -> f64 {
        value.as_nanos() as f64
    }
    fn formatter(&self) -> &dyn ValueFormatter {
        self.wall.formatter()
    }
}

fn main() {
    if std::env::var_os("TEXTREUSE_BENCH_CPU_TIME").is_some() {
        let mut c = Criterion::default()
            .with_measurement(ThreadCpuTime { wall: WallTime })
            .configure_from_args();
        bench_sentences(&mut c);
        bench_char_shingles(&mut c);
        c.final_summary();
    } else {
        let mut c = Criterion::default().configure_from_args();
        bench_sentences(&mut c);
        bench_char_shingles(&mut c);
        c.final_summary();
    }
}
