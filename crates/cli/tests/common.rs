//! What every test module shares: running the `textreuse` binary and reading its output.
use std::process::{Command, Output};

use serde_json::Value;

/// A file or directory under the workspace's `testdata/` or `data/` (`rel` from the root).
pub fn workspace(rel: &str) -> String {
    format!("{}/../../{rel}", env!("CARGO_MANIFEST_DIR"))
}

/// Runs `textreuse args...` to the end.
pub fn textreuse(args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_textreuse"))
        .args(args)
        .output()
        .expect("run textreuse")
}

/// Runs a command that must succeed; returns its stdout.
pub fn ok(args: &[&str]) -> String {
    let out = textreuse(args);
    assert!(
        out.status.success(),
        "{args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// Runs a command that must end with exit status `code`; returns its stdout and stderr.
pub fn status(args: &[&str], code: i32) -> (String, String) {
    let out = textreuse(args);
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert_eq!(out.status.code(), Some(code), "{args:?}: {stderr}");
    (String::from_utf8(out.stdout).expect("UTF-8 output"), stderr)
}

/// One JSON value per line.
pub fn json_lines(s: &str) -> Vec<Value> {
    s.lines()
        .map(|l| serde_json::from_str(l).expect("one JSON object per line"))
        .collect()
}
