//! Faults a run must survive without mixing or losing results: `kill -9` at any moment, SIGINT
//! and SIGTERM, a full disk for the outputs or for the temporary files, an unwritable output
//! location. The contract: `--out` holds the old results or the new ones, never a mix; nothing
//! is left in the temporary directory (at once after a signal, after the next run after a
//! `kill -9`); errors name the path.
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use super::common;

/// Two inputs with different results: one sample dump (results of about 25 KB), and both
/// (about 8 MB: the samples share many sentences).
fn sample(which: usize) -> Vec<String> {
    let mut files = vec![common::workspace("data/enwiki-sample-206.xml.bz2")];
    if which == 1 {
        files.push(common::workspace("data/enwiki-part-201.xml.bz2"));
    }
    files
}

fn dedup_args(inputs: &[String], out: &Path, tmp: &Path) -> Vec<String> {
    let mut args: Vec<String> = ["--quiet", "--threads", "2", "dedup"]
        .map(String::from)
        .to_vec();
    args.extend(inputs.iter().cloned());
    args.extend(
        [
            "--out",
            out.to_str().unwrap(),
            "--tmp",
            tmp.to_str().unwrap(),
            // Spills, so that the temporary directory fills during the run.
            "--work-mem",
            "64KB",
        ]
        .map(String::from),
    );
    args
}

fn spawn(args: &[String]) -> Child {
    Command::new(env!("CARGO_BIN_EXE_textreuse"))
        .args(args)
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .expect("start textreuse")
}

/// The files of an output directory; `stats.json` without its timings (which differ between
/// runs of the same input).
fn outputs(dir: &Path) -> BTreeMap<String, String> {
    let mut files = BTreeMap::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let name = entry.file_name().to_string_lossy().into_owned();
        let mut text = std::fs::read_to_string(entry.path()).unwrap();
        if name == "stats.json" {
            let mut stats: serde_json::Value = serde_json::from_str(&text).unwrap();
            stats.as_object_mut().unwrap().remove("seconds");
            text = stats.to_string();
        }
        files.insert(name, text);
    }
    files
}

fn entries(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = std::fs::read_dir(dir)
        .map(|d| {
            d.map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        })
        .unwrap_or_default();
    names.sort();
    names
}

/// A finished run of `dedup` on sample `which` into `out`: its outputs.
fn finished(which: usize, out: &Path, tmp: &Path) -> BTreeMap<String, String> {
    let status = spawn(&dedup_args(&sample(which), out, tmp))
        .wait_with_output()
        .unwrap();
    // 3: finished, with damaged parts of the dump skipped (reported on stderr).
    assert!(
        matches!(status.status.code(), Some(0 | 3)),
        "{}",
        String::from_utf8_lossy(&status.stderr)
    );
    outputs(out)
}

/// `kill -9` at moments spread over a whole run, into an --out holding the other sample's
/// results each time: afterwards --out holds exactly one of the two result sets. The next
/// finished run removes what the killed ones left in the temporary directory and beside --out.
#[test]
fn a_killed_run_leaves_the_old_results_or_the_new_ones() {
    let root = tempfile::tempdir().unwrap();
    let (out, tmp) = (root.path().join("out"), root.path().join("tmp"));
    let timed = |which: usize, dir: &str| {
        let started = Instant::now();
        (
            finished(which, &root.path().join(dir), &tmp),
            started.elapsed(),
        )
    };
    let ((a, run_a), (b, run_b)) = (timed(0, "a"), timed(1, "b"));
    let expected = [a, b];
    assert_ne!(expected[0], expected[1]);
    // The longer run sets the schedule of the kills.
    let run = run_a.max(run_b);
    let mut state = {
        let got = finished(0, &out, &tmp);
        assert_eq!(got, expected[0]);
        0
    };
    let tries = 16;
    let mut landed = [0; 2];
    for i in 0..tries {
        let other = 1 - state;
        let mut child = spawn(&dedup_args(&sample(other), &out, &tmp));
        // From the start to past the usual end (a slow machine may take longer).
        std::thread::sleep(run.mul_f64(2.0 * i as f64 / (tries - 1) as f64));
        let _ = child.kill();
        let _ = child.wait();
        let got = outputs(&out);
        state = expected
            .iter()
            .position(|e| *e == got)
            .unwrap_or_else(|| panic!("kill {i}: --out holds neither result: {:?}", got.keys()));
        landed[usize::from(state == other)] += 1;
    }
    // Some kills came before the swap, and some after.
    assert!(landed[0] > 0 && landed[1] > 0, "{landed:?}");
    finished(1 - state, &out, &tmp);
    assert_eq!(entries(&tmp), Vec::<String>::new(), "temporary files left");
    assert_eq!(entries(root.path()), ["a", "b", "out", "tmp"]);
}

/// Waits until the run has started writing temporary files (a spill run or the text store).
fn wait_for_temporaries(child: &mut Child, tmp: &Path) {
    let deadline = Instant::now() + Duration::from_secs(120);
    loop {
        let any_file = std::fs::read_dir(tmp).is_ok_and(|d| {
            d.filter_map(Result::ok)
                .any(|run| entries(&run.path()).iter().any(|f| !f.is_empty()))
        });
        if any_file {
            return;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "the run ended before writing temporary files"
        );
        assert!(Instant::now() < deadline, "no temporary file after 120 s");
        std::thread::sleep(Duration::from_millis(5));
    }
}

/// SIGINT and SIGTERM in the middle of a run: the process ends with 128 + the signal, the
/// temporary directory and the unfinished output directory are removed at once, and --out keeps
/// the old results.
#[test]
fn signals_remove_the_temporary_files_and_keep_the_old_results() {
    for (signal, number) in [("INT", 2), ("TERM", 15)] {
        let root = tempfile::tempdir().unwrap();
        let (out, tmp) = (root.path().join("out"), root.path().join("tmp"));
        let old = finished(0, &out, &tmp);
        let mut child = spawn(&dedup_args(&sample(1), &out, &tmp));
        wait_for_temporaries(&mut child, &tmp);
        let sent = Command::new("kill")
            .args([&format!("-{signal}"), &child.id().to_string()])
            .status()
            .unwrap();
        assert!(sent.success());
        let done = child.wait_with_output().unwrap();
        assert_eq!(
            done.status.code(),
            Some(128 + number),
            "SIG{signal}: {}",
            String::from_utf8_lossy(&done.stderr)
        );
        assert_eq!(entries(&tmp), Vec::<String>::new(), "SIG{signal}");
        assert_eq!(entries(root.path()), ["out", "tmp"], "SIG{signal}");
        assert_eq!(outputs(&out), old, "SIG{signal}");
    }
}

/// Mounts a tmpfs of `size` at `dir` (the test needs root; it says so and passes otherwise).
struct Tmpfs(PathBuf);

impl Tmpfs {
    fn mount(dir: &Path, options: &str) -> Option<Tmpfs> {
        std::fs::create_dir_all(dir).unwrap();
        let ok = Command::new("mount")
            .args(["-t", "tmpfs", "-o", options, "tmpfs", dir.to_str().unwrap()])
            .stderr(Stdio::null())
            .status()
            .is_ok_and(|s| s.success());
        if !ok {
            eprintln!("cannot mount a tmpfs (needs root): the full-disk checks did not run");
            return None;
        }
        Some(Tmpfs(dir.to_path_buf()))
    }
}

impl Drop for Tmpfs {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg(&self.0).status();
    }
}

fn failed(args: &[String]) -> String {
    let done = spawn(args).wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&done.stderr).into_owned();
    assert_eq!(done.status.code(), Some(1), "{args:?}: {stderr}");
    stderr
}

/// A file system too small for the new outputs, or for the temporary files: the run fails
/// with an error naming the place, --out keeps the old results, nothing is left behind.
#[test]
fn a_full_disk_keeps_the_old_results_and_names_the_path() {
    let root = tempfile::tempdir().unwrap();
    let (small, big_tmp) = (root.path().join("small"), root.path().join("tmp"));
    // The results of sample 0 fit, those of sample 1 do not.
    let Some(_fs) = Tmpfs::mount(&small, "size=1m") else {
        return;
    };
    let out = small.join("out");
    let old = finished(0, &out, &big_tmp);
    let stderr = failed(&dedup_args(&sample(1), &out, &big_tmp));
    assert!(stderr.contains(small.to_str().unwrap()), "{stderr}");
    assert!(stderr.contains("No space left on device"), "{stderr}");
    assert_eq!(outputs(&out), old);
    assert_eq!(entries(&small), ["out"]);
    assert_eq!(entries(&big_tmp), Vec::<String>::new());

    // Spill runs and the sentence text file on a full file system.
    let tiny = root.path().join("tiny");
    let Some(_tiny) = Tmpfs::mount(&tiny, "size=64k") else {
        return;
    };
    let stderr = failed(&dedup_args(&sample(1), &out, &tiny));
    assert!(stderr.contains(tiny.to_str().unwrap()), "{stderr}");
    assert_eq!(outputs(&out), old);
    assert_eq!(entries(&tiny), Vec::<String>::new());
    assert_eq!(entries(&small), ["out"]);
}

/// An output location that cannot be written fails before any input is read (the input here
/// does not exist: its error would come first otherwise), naming the location.
#[test]
fn an_unwritable_output_fails_before_any_work() {
    let root = tempfile::tempdir().unwrap();
    let ro = root.path().join("ro");
    // A read-only file system (permission bits do not stop root).
    let Some(_fs) = Tmpfs::mount(&ro, "size=64k,ro") else {
        return;
    };
    let missing = root.path().join("no-such-input.jsonl");
    let out = ro.join("out");
    let stderr = failed(&[
        "dedup".into(),
        missing.to_str().unwrap().into(),
        "--out".into(),
        out.to_str().unwrap().into(),
    ]);
    assert!(stderr.contains(out.to_str().unwrap()), "{stderr}");
    assert!(!stderr.contains("no-such-input"), "{stderr}");

    // A file where --out should be, and a directory of someone else's files.
    let file = root.path().join("file");
    std::fs::write(&file, "").unwrap();
    let stderr = failed(&[
        "dedup".into(),
        missing.to_str().unwrap().into(),
        "--out".into(),
        file.to_str().unwrap().into(),
    ]);
    assert!(stderr.contains("a file is in the way"), "{stderr}");
    let theirs = root.path().join("theirs");
    std::fs::create_dir(&theirs).unwrap();
    std::fs::write(theirs.join("notes.txt"), "keep me").unwrap();
    let stderr = failed(&[
        "reuse".into(),
        missing.to_str().unwrap().into(),
        "--out".into(),
        theirs.to_str().unwrap().into(),
    ]);
    assert!(stderr.contains("notes.txt"), "{stderr}");
    assert_eq!(
        std::fs::read_to_string(theirs.join("notes.txt")).unwrap(),
        "keep me"
    );
}
