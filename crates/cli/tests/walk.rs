//! Every numeric flag of every subcommand, walked through 0, 1, its documented maximum and
//! absurd values (2^32 - 1, 2^64 - 1, negative, NaN, infinities): no value makes the binary
//! panic, abort or hang, and a refused value gets an error whose first line names the flag.
//! Inputs are the small bundled test files, so every accepted value finishes quickly; the
//! timeout is only a hang guard, not a measurement.
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::common::workspace;

/// How long one run may take before it counts as hung (debug builds on a busy machine are
/// slow; every accepted value here finishes in well under a second on an idle one).
const HANG: Duration = Duration::from_secs(120);

/// Values every integer flag gets.
const COUNTS: &[&str] = &["0", "1", "4294967295", "18446744073709551615", "-1"];
/// Values every float flag gets.
const FLOATS: &[&str] = &["0", "1", "0.9", "NaN", "inf", "-inf", "-1", "1e308"];
/// Values every size flag (`--work-mem` of dedup, reuse and `index add`) gets.
const SIZES: &[&str] = &[
    "0",
    "1",
    "1KiB",
    "18446744073709551615",
    "1000TB",
    "-1",
    "NaN",
];

/// One flag of one command line: `cmd` holds the placeholders `{docs}` (a small JSON Lines
/// file), `{out}` (a fresh path), `{index}` (a fresh index of sentences), `{dedup_out}` (a fresh
/// copy of a dedup output directory).
struct Flag {
    cmd: &'static str,
    flag: &'static str,
    values: &'static [&'static str],
    /// The flag's documented limits (the largest accepted value and the first refused one).
    limits: &'static [&'static str],
}

const fn flag(
    cmd: &'static str,
    flag: &'static str,
    values: &'static [&'static str],
    limits: &'static [&'static str],
) -> Flag {
    Flag {
        cmd,
        flag,
        values,
        limits,
    }
}

const DEDUP: &str = "dedup {docs} --out {out} --tmp {tmp}";
const DEDUP_PLANNED: &str = "dedup {docs} --out {out} --tmp {tmp} --threshold 0.8";
const SENTENCES: &str = "sentences {docs} --band-keys";
const SIMHASH: &str = "simhash {docs} --pairs";
const WINDOW: &str = "simhash {docs} --pairs --method window";
const TUNE_PLANNED: &str = "tune --threshold 0.8";
const REUSE: &str = "reuse {docs} --out {out} --tmp {tmp}";
const REUSE_MINHASH: &str = "reuse {docs} --out {out} --tmp {tmp} --candidates minhash";
const CHECK: &str = "check {susp} --corpus {corpus}";
const CREATE: &str = "index create {out}";

fn flags() -> Vec<Flag> {
    let mut all = vec![
        flag("tune", "--threads", COUNTS, &["1024", "1025"]),
        flag(DEDUP, "--threads", &["1", "100000"], &[]),
        // dedup
        flag(DEDUP, "--threshold", FLOATS, &[]),
        flag(DEDUP, "--min-shingles", COUNTS, &[]),
        flag(DEDUP, "--max-shingles", COUNTS, &[]),
        flag(DEDUP, "--shingle", COUNTS, &["65535", "65536"]),
        flag(DEDUP, "--work-mem", SIZES, &[]),
        flag(DEDUP, "--max-bucket", COUNTS, &["2"]),
        flag(DEDUP, "--max-edit", FLOATS, &[]),
        flag(DEDUP, "--max-hamming", COUNTS, &["64", "65"]),
        flag(
            "dedup {docs} --out {out} --tmp {tmp} --method simhash",
            "--max-hamming",
            COUNTS,
            &["64", "65"],
        ),
        flag(DEDUP, "--max-article-pairs", COUNTS, &[]),
        flag(
            "dedup {docs} --out {out} --tmp {tmp} --report",
            "--samples",
            COUNTS,
            &[],
        ),
        // sentences
        flag(
            SENTENCES,
            "--first-seq",
            COUNTS,
            &["2147483647", "2147483648"],
        ),
        flag(SENTENCES, "--min-shingles", COUNTS, &[]),
        flag(SENTENCES, "--max-shingles", COUNTS, &[]),
        flag(SENTENCES, "--shingle", COUNTS, &[]),
        // simhash
        flag(SIMHASH, "--max-hamming", COUNTS, &["64", "65"]),
        flag(WINDOW, "--max-hamming", COUNTS, &["64", "65"]),
        flag(WINDOW, "--permutations", COUNTS, &["1024", "1025"]),
        flag(WINDOW, "--window", COUNTS, &[]),
        flag(WINDOW, "--seed", COUNTS, &[]),
        flag(SIMHASH, "--min-shingles", COUNTS, &[]),
        flag("simhash {docs}", "--shingle", COUNTS, &[]),
        // tune
        flag("tune", "--threshold", FLOATS, &[]),
        flag("tune", "--min-set", COUNTS, &["1048576", "1048577"]),
        flag(TUNE_PLANNED, "--min-set", COUNTS, &["1048576", "1048577"]),
        flag("tune --scheme oph", "--min-set", COUNTS, &["1048576"]),
        // extract
        flag("extract {dump}", "--max-page-mib", COUNTS, &[]),
        // report
        flag("report {dedup_out}", "--samples", COUNTS, &[]),
        flag("report {dedup_out}", "--top-pairs", COUNTS, &[]),
        flag("report {dedup_out}", "--largest", COUNTS, &[]),
        flag("report {dedup_out}", "--max-members", COUNTS, &[]),
        // align
        flag("align {src} {susp}", "--min-length", COUNTS, &[]),
        // reuse
        flag(REUSE, "--terms", COUNTS, &[]),
        flag(REUSE, "--top-docs", COUNTS, &[]),
        flag(REUSE, "--max-postings", COUNTS, &[]),
        flag(REUSE, "--min-score", FLOATS, &[]),
        flag(REUSE, "--min-words", COUNTS, &[]),
        flag(REUSE, "--min-length", COUNTS, &[]),
        flag(REUSE, "--work-mem", SIZES, &[]),
        flag(REUSE_MINHASH, "--ngram", COUNTS, &[]),
        flag(REUSE_MINHASH, "--rows", COUNTS, &["4096"]),
        flag(REUSE_MINHASH, "--bands", COUNTS, &["4096"]),
        flag(REUSE_MINHASH, "--seed", COUNTS, &[]),
        flag(REUSE_MINHASH, "--min-shared", COUNTS, &[]),
        flag(REUSE_MINHASH, "--max-bucket", COUNTS, &[]),
        // check
        flag(CHECK, "--top", COUNTS, &[]),
        flag(CHECK, "--min-length", COUNTS, &[]),
        flag(CHECK, "--ngram", COUNTS, &[]),
        flag(CHECK, "--rows", COUNTS, &["4096", "4097"]),
        flag(CHECK, "--bands", COUNTS, &["4096", "4097"]),
        flag(CHECK, "--excerpt", COUNTS, &[]),
        flag(
            "check {susp} --corpus {corpus} --rows 1000000",
            "--bands",
            &["1000000"],
            &[],
        ),
        // index
        flag(CREATE, "--threshold", FLOATS, &[]),
        flag(CREATE, "--hashes", COUNTS, &["128", "129"]),
        flag(CREATE, "--rows", COUNTS, &[]),
        flag(CREATE, "--bands", COUNTS, &["20", "21"]),
        flag(
            "index create {out} --scheme disjoint",
            "--rows",
            COUNTS,
            &[],
        ),
        flag("index create {out} --scheme oph", "--bands", COUNTS, &[]),
        flag(CREATE, "--seed", COUNTS, &[]),
        flag(CREATE, "--shingle", COUNTS, &[]),
        flag(CREATE, "--min-shingles", COUNTS, &[]),
        flag(CREATE, "--max-shingles", COUNTS, &[]),
        flag(CREATE, "--signature-bytes", COUNTS, &["8", "3", "256"]),
        flag("index add {index} {docs}", "--work-mem", SIZES, &[]),
        flag("index query {index} {docs}", "--min-jaccard", FLOATS, &[]),
        flag("index query {index} {docs}", "--limit", COUNTS, &[]),
    ];
    // The MinHash flags, in every command that takes them, and K and M of every scheme.
    for cmd in [DEDUP, SENTENCES, "tune"] {
        all.extend([
            flag(cmd, "--hashes", COUNTS, &["128", "129"]),
            flag(cmd, "--bits", COUNTS, &["64", "65"]),
            flag(cmd, "--seed", COUNTS, &[]),
        ]);
    }
    for cmd in [
        DEDUP,
        SENTENCES,
        "tune",
        "tune --scheme disjoint",
        "tune --scheme oph",
    ] {
        all.extend([
            flag(cmd, "--rows", COUNTS, &["20", "21", "4096", "4097"]),
            flag(cmd, "--bands", COUNTS, &["20", "21", "4096", "4097"]),
        ]);
    }
    for cmd in [
        "tune --scheme disjoint --rows 100000",
        "dedup {docs} --out {out} --tmp {tmp} --scheme disjoint --rows 100000",
        "sentences {docs} --band-keys --scheme disjoint --rows 100000",
    ] {
        all.push(flag(cmd, "--bands", &["100000"], &[]));
    }
    for cmd in [DEDUP_PLANNED, TUNE_PLANNED] {
        all.extend([
            flag(cmd, "--recall", FLOATS, &[]),
            flag(cmd, "--below", FLOATS, &[]),
            flag(cmd, "--candidate-rate", FLOATS, &[]),
            flag(cmd, "--hashes", COUNTS, &["4096", "4097"]),
        ]);
    }
    all
}

/// The test's files and directories.
struct Fixture {
    tmp: tempfile::TempDir,
    dedup_out: PathBuf,
    next: AtomicUsize,
}

impl Fixture {
    fn new() -> Fixture {
        let tmp = tempfile::tempdir().unwrap();
        let dedup_out = tmp.path().join("dedup-out");
        let docs = workspace("testdata/shingle/docs.jsonl");
        super::common::ok(&["-q", "dedup", &docs, "--out", dedup_out.to_str().unwrap()]);
        Fixture {
            tmp,
            dedup_out,
            next: AtomicUsize::new(0),
        }
    }

    /// A path no other run uses.
    fn fresh(&self, what: &str) -> PathBuf {
        let n = self.next.fetch_add(1, Ordering::Relaxed);
        self.tmp.path().join(format!("{what}-{n}"))
    }

    /// The arguments of `cmd` with its placeholders filled in (fresh paths for this run).
    fn args(&self, cmd: &str) -> Vec<String> {
        let mut args = vec!["--quiet".to_string()];
        for word in cmd.split_whitespace() {
            let path = |p: PathBuf| p.to_str().unwrap().to_string();
            args.push(match word {
                "{docs}" => workspace("testdata/shingle/docs.jsonl"),
                "{dump}" => workspace("testdata/wikidump/mini.xml"),
                "{src}" => workspace("testdata/check/corpus/b-bees.txt"),
                "{susp}" => workspace("testdata/check/suspicious.txt"),
                "{corpus}" => workspace("testdata/check/corpus"),
                "{tmp}" => path(self.tmp.path().to_path_buf()),
                "{out}" => path(self.fresh("out")),
                "{index}" => {
                    let dir = self.fresh("index");
                    super::common::ok(&["-q", "index", "create", dir.to_str().unwrap()]);
                    path(dir)
                }
                "{dedup_out}" => {
                    let dir = self.fresh("report");
                    copy_dir(&self.dedup_out, &dir);
                    path(dir)
                }
                w => w.to_string(),
            });
        }
        args
    }
}

fn copy_dir(from: &Path, to: &Path) {
    std::fs::create_dir_all(to).unwrap();
    for entry in std::fs::read_dir(from).unwrap() {
        let entry = entry.unwrap();
        std::fs::copy(entry.path(), to.join(entry.file_name())).unwrap();
    }
}

/// Runs one command line; a description of what went wrong, if anything.
fn check(args: &[String], flag: &str) -> Option<String> {
    let mut child = Command::new(env!("CARGO_BIN_EXE_textreuse"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("run textreuse");
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().unwrap() {
            break status;
        }
        if start.elapsed() > HANG {
            let _ = child.kill();
            let _ = child.wait();
            return Some(format!("{args:?}: still running after {HANG:?}"));
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let mut stderr = String::new();
    std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut stderr).unwrap();
    let code = match status.code() {
        // 0: done; 3: done, skipping bad input.
        Some(0 | 3) => return None,
        // 1: an error stopped the run; 2: a usage error.
        Some(code @ (1 | 2)) => code,
        _ => return Some(format!("{args:?}: ended with {status} (a crash): {stderr}")),
    };
    let first = stderr.lines().next().unwrap_or_default();
    // The flag, or its name as a message writes it (`max_bucket`, `signature bytes`).
    let name = flag.trim_start_matches('-');
    let named = [
        flag.to_string(),
        name.to_string(),
        name.replace('-', "_"),
        name.replace('-', " "),
    ]
    .iter()
    .any(|n| first.contains(n.as_str()));
    if !named {
        return Some(format!(
            "{args:?}: the error does not name {flag}: {stderr}"
        ));
    }
    if code == 1 && stderr.lines().count() != 1 {
        return Some(format!("{args:?}: the error is not one line: {stderr}"));
    }
    None
}

#[test]
fn every_numeric_flag_survives_absurd_values() {
    let fixture = Fixture::new();
    let mut runs = Vec::new();
    for f in flags() {
        for value in f.values.iter().chain(f.limits) {
            runs.push((f.cmd, f.flag, *value));
        }
    }
    let queue = Mutex::new(runs.into_iter());
    let problems = Mutex::new(Vec::new());
    // A few runs at a time: most of them wait on process start-up, not on the CPU.
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                loop {
                    let Some((cmd, flag, value)) = queue.lock().unwrap().next() else {
                        break;
                    };
                    let mut args = fixture.args(cmd);
                    // `--flag=value`, so that `-1` is a value and not a flag.
                    args.push(format!("{flag}={value}"));
                    if let Some(p) = check(&args, flag) {
                        problems.lock().unwrap().push(p);
                    }
                }
            });
        }
    });
    let problems = problems.into_inner().unwrap();
    assert!(problems.is_empty(), "{}", problems.join("\n"));
}
