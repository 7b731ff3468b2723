//! End-to-end tests of `textreuse tune`.
use super::common;

fn textreuse(args: &[&str]) -> (bool, String, String) {
    let out = common::textreuse(args);
    (
        out.status.success(),
        String::from_utf8(out.stdout).unwrap(),
        String::from_utf8(out.stderr).unwrap(),
    )
}

#[test]
fn tune_json_has_the_documented_shape() {
    let (ok, stdout, stderr) = textreuse(&["tune", "--json"]);
    assert!(ok, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        v["params"],
        serde_json::json!({"hashes": 20, "bits": 60, "rows": 10, "bands": 10,
                           "seed": 1123456, "scheme": "drawn"})
    );
    let curve = v["curve"].as_array().unwrap();
    assert_eq!(curve.len(), 20);
    assert_eq!(curve[0]["s"], 0.05);
    assert_eq!(curve[2]["s"], 0.15);
    assert_eq!(curve[19]["s"], 1.0);
    let at = |i: usize, k: &str| curve[i][k].as_f64().unwrap();
    // s = 0.9: the independent approximation says 0.986, the exact curve far less.
    assert!((at(17, "independent") - 0.98626).abs() < 1e-4);
    assert!((at(17, "exact") - 0.82699).abs() < 1e-4);
    assert!((at(19, "exact") - 1.0).abs() < 1e-12);
    for i in 1..20 {
        assert!(at(i, "exact") >= at(i - 1, "exact"));
        assert!(at(i, "exact") <= at(i, "independent") + 1e-12);
    }
}

/// `--threshold` plans: the cheapest configuration over all schemes, each scheme's own best
/// listed, and a scheme flag limits the choice.
#[test]
fn tune_plans_the_cheapest_configuration_for_a_threshold() {
    let (ok, stdout, stderr) = textreuse(&["tune", "--threshold", "0.9", "--json"]);
    assert!(ok, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let best = textreuse::minhash::plan(&textreuse::minhash::Target::new(0.9)).unwrap();
    assert_eq!(v["params"]["scheme"], best.scheme.to_string());
    assert_eq!(v["params"]["rows"], best.rows);
    assert_eq!(v["params"]["bands"], best.bands);
    let plan = &v["plan"];
    assert_eq!(
        (plan["threshold"].as_f64(), plan["below"].as_f64()),
        (Some(0.9), Some(0.5))
    );
    let schemes = plan["schemes"].as_array().unwrap();
    assert_eq!(schemes[0]["scheme"], "oph");
    assert!(schemes[0]["recall"].as_f64().unwrap() >= 0.99);
    assert!(
        schemes
            .iter()
            .all(|c| c["candidate_rate"].as_f64().unwrap() <= 0.01)
    );
    // Twenty drawn functions cannot reach this target.
    assert_eq!(plan["unreachable"], serde_json::json!(["drawn"]));
    // The curve at s = 0.9 (the sized column: two sets of 75 shingles at J <= 0.9).
    let at = &v["curve"][17];
    assert!(at["exact"].as_f64().unwrap() >= 0.99);
    assert!(at["sized"].as_f64().unwrap() > 0.98);

    let (ok, stdout, stderr) = textreuse(&[
        "tune",
        "--threshold",
        "0.8",
        "--scheme",
        "disjoint",
        "--hashes",
        "300",
        "--json",
    ]);
    assert!(ok, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    let (k, m) = (
        v["params"]["rows"].as_u64().unwrap(),
        v["params"]["bands"].as_u64().unwrap(),
    );
    assert_eq!(v["params"]["scheme"], "disjoint");
    assert!(k * m <= 300, "K={k} M={m}");
    let (ok, _, stderr) = textreuse(&["tune", "--threshold", "0.5", "--scheme", "drawn"]);
    assert!(!ok);
    assert!(stderr.contains("relax the target"), "{stderr}");
}

#[test]
fn table_output_and_errors() {
    let (ok, stdout, _) = textreuse(&["tune"]);
    assert!(ok);
    assert!(stdout.contains("sized(75)") && stdout.lines().count() == 22);
    let (ok, _, stderr) = textreuse(&["tune", "--rows", "30"]);
    assert!(!ok);
    assert_eq!(stderr.lines().count(), 1, "{stderr}");
    assert!(stderr.contains("rows (K = 30) cannot exceed"), "{stderr}");
}
