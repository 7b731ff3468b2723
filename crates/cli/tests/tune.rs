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

/// `tune --study`: one row per setting, the rows add up, the command's JSON equals the
/// library's report (through the facade), and the plots are drawn.
#[test]
fn tune_study_reports_each_setting_as_the_library_does() {
    let dir = tempfile::tempdir().unwrap();
    let base = "The old mill on the river was built in 1820 and still grinds grain for the \
                bakery of the village, which has sold its bread at the market since then.";
    let lines = [
        base.to_string(),
        base.replace("1820", "1821"),
        base.to_uppercase(),
        format!(
            "{} while everything else about the place has changed beyond all recognition in the years.",
            &base[..70]
        ),
        "Quantum chromodynamics describes the strong interaction between quarks and gluons, \
         the particles that make up hadrons such as the proton and the neutron."
            .to_string(),
    ];
    let corpus = dir.path().join("corpus.jsonl");
    let jsonl: String = lines
        .iter()
        .enumerate()
        .map(|(i, text)| {
            format!(
                "{}\n",
                serde_json::json!({"id": i, "title": "", "text": text})
            )
        })
        .collect();
    std::fs::write(&corpus, jsonl).unwrap();
    let (svg, bound) = (dir.path().join("study.svg"), dir.path().join("bound.svg"));
    let corpus = corpus.to_str().unwrap();
    let (ok, stdout, stderr) = textreuse(&[
        "tune",
        "--study",
        corpus,
        "--study-shingles",
        "5-7",
        "--study-rows",
        "2,10",
        "--json",
        "--svg",
        svg.to_str().unwrap(),
        "--bound-svg",
        bound.to_str().unwrap(),
    ]);
    assert!(ok, "{stderr}");
    let v: serde_json::Value = serde_json::from_str(&stdout).unwrap();
    assert_eq!(
        (v["documents"].as_u64(), v["kept"].as_u64()),
        (Some(5), Some(5))
    );
    let rows = v["rows"].as_array().unwrap();
    let settings: Vec<(u64, u64)> = rows
        .iter()
        .map(|r| (r["shingle"].as_u64().unwrap(), r["rows"].as_u64().unwrap()))
        .collect();
    assert_eq!(
        settings,
        [(5, 2), (6, 2), (7, 2), (5, 10), (6, 10), (7, 10)]
    );
    for r in rows {
        let n = |k: &str| r[k].as_u64().unwrap();
        assert_eq!(n("good") + n("bad"), n("candidates"));
        let rate = r["false_positive_rate"].as_f64().unwrap();
        assert!((rate - n("bad") as f64 / n("candidates").max(1) as f64).abs() < 1e-12);
        assert_eq!((n("hashes"), n("bands")), (20, 10));
    }
    // The counts are the library's (seconds aside).
    let report = textreuse::dedup::study::TuningStudy::builder()
        .shingles(5..=7)
        .rows([2, 10])
        .build()
        .unwrap()
        .run(
            textreuse::corpus::Inputs::new([corpus]),
            &textreuse::corpus::NoProgress,
        )
        .unwrap();
    for (cli, lib) in rows.iter().zip(&report.rows) {
        assert_eq!(cli["candidates"].as_u64(), Some(lib.candidates));
        assert_eq!(cli["good"].as_u64(), Some(lib.good));
    }
    assert!(std::fs::read_to_string(&svg).unwrap().contains("K = 10"));
    assert!(
        std::fs::read_to_string(&bound)
            .unwrap()
            .contains("l = 0.05")
    );

    // The table: a header line, the column names, one line per setting.
    let (ok, table, stderr) = textreuse(&["tune", "--study", corpus, "--study-rows", "10"]);
    assert!(ok, "{stderr}");
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].starts_with("5 documents,"), "{table}");
    assert!(lines[1].contains("FP rate"));
    assert_eq!(lines.len(), 2 + 11);
    // --rows is refused with --study; the study flags need --study.
    let (ok, _, stderr) = textreuse(&["tune", "--study", corpus, "--rows", "8"]);
    assert!(!ok && stderr.contains("--study-rows"), "{stderr}");
    let (ok, _, _) = textreuse(&["tune", "--study-rows", "8"]);
    assert!(!ok);
}
