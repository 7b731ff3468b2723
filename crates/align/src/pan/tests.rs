use super::*;

fn ann(t: (usize, usize), s: (usize, usize)) -> Annotation {
    Annotation {
        this_reference: "susp.txt".into(),
        this_offset: t.0,
        this_length: t.1,
        source_reference: "src.txt".into(),
        source_offset: s.0,
        source_length: s.1,
    }
}

fn scores(cases: &[Annotation], dets: &[Annotation]) -> Scores {
    let mut e = Evaluation::new();
    e.add_cases(cases.iter().cloned());
    e.add_detections(dets.iter().cloned());
    e.scores()
}

#[test]
fn half_detected() {
    let s = scores(&[ann((0, 100), (50, 100))], &[ann((0, 50), (50, 50))]);
    assert_eq!((s.precision, s.recall, s.granularity), (1.0, 0.5, 1.0));
    assert!((s.plagdet - 2.0 / 3.0).abs() < 1e-12);
}

#[test]
fn granularity_counts_detections_per_detected_case() {
    let case = ann((0, 100), (0, 100));
    let dets = [ann((0, 50), (0, 50)), ann((50, 50), (50, 50))];
    let s = scores(&[case, ann((500, 100), (500, 100))], &dets);
    assert_eq!(s.granularity, 2.0);
    assert_eq!(s.detected_cases, 1);
    assert_eq!(s.recall, 0.5);
    assert_eq!(s.precision, 1.0);
    let f1 = 2.0 * 0.5 / 1.5;
    assert!((s.plagdet - f1 / 3f64.log2()).abs() < 1e-12);
}

#[test]
fn overlap_in_both_documents_is_required() {
    // Overlaps in the suspicious document only: not a detection of the case.
    let s = scores(&[ann((0, 100), (0, 100))], &[ann((0, 100), (200, 100))]);
    assert_eq!((s.precision, s.recall, s.detected_cases), (0.0, 0.0, 0));
    // Another document pair never detects.
    let mut other = ann((0, 100), (0, 100));
    other.source_reference = "other.txt".into();
    let s = scores(&[ann((0, 100), (0, 100))], &[other]);
    assert_eq!(s.detected_cases, 0);
}

#[test]
fn precision_uses_union_of_cases() {
    // One long detection covering two cases and a gap between them.
    let cases = [ann((0, 100), (0, 100)), ann((200, 100), (200, 100))];
    let s = scores(&cases, &[ann((0, 300), (0, 300))]);
    assert!((s.precision - 400.0 / 600.0).abs() < 1e-12);
    assert_eq!(s.recall, 1.0);
    assert_eq!(s.granularity, 1.0);
}

#[test]
fn empty_corpora_and_duplicates() {
    let s = scores(&[], &[]);
    assert_eq!((s.precision, s.recall, s.plagdet), (1.0, 1.0, 1.0));
    let s = scores(&[ann((0, 10), (0, 10))], &[]);
    assert_eq!((s.precision, s.recall, s.plagdet), (0.0, 0.0, 0.0));
    let s = scores(&[], &[ann((0, 10), (0, 10))]);
    assert_eq!(s.plagdet, 0.0);
    // Identical detections count once, as in the PAN reference implementation.
    let d = ann((0, 10), (0, 10));
    let s = scores(std::slice::from_ref(&d), &[d.clone(), d.clone()]);
    assert_eq!((s.detections, s.granularity, s.plagdet), (1, 1.0, 1.0));
}

#[test]
fn parsing_is_lenient() {
    let xml = "<?xml version='1.0'?>\n<document reference='s.txt'>\
        <feature type='x' source_length='5' this_offset = \"1\" name='plagiarism' \
         source_reference='r.txt' this_length='2' source_offset='3' obfuscation='none'/>\
        <feature name='about' authors='a'/>\
        <feature name='detected-plagiarism' this_offset='0' this_length='1' \
         source_reference='r.txt' source_offset='0' source_length='1'></feature>\
        </document>";
    let cases = parse_annotations(xml, CASE_FEATURE).unwrap();
    assert_eq!(cases.len(), 1);
    let c = &cases[0];
    assert_eq!(c.this_reference, "s.txt");
    assert_eq!(
        (
            c.this_offset,
            c.this_length,
            c.source_offset,
            c.source_length
        ),
        (1, 2, 3, 5)
    );
    assert_eq!(parse_annotations(xml, DETECTION_FEATURE).unwrap().len(), 1);
}

#[test]
fn parse_errors() {
    let bad_number = r#"<document reference="s"><feature name="plagiarism" this_offset="x"
        this_length="1" source_reference="r" source_offset="0" source_length="1"/></document>"#;
    assert!(matches!(
        parse_annotations(bad_number, CASE_FEATURE),
        Err(PanError::Attribute {
            attribute: "this_offset",
            ..
        })
    ));
    let missing = r#"<document reference="s"><feature name="plagiarism" this_offset="1"
        this_length="1" source_offset="0" source_length="1"/></document>"#;
    assert!(matches!(
        parse_annotations(missing, CASE_FEATURE),
        Err(PanError::Attribute {
            attribute: "source_reference",
            ..
        })
    ));
    let no_doc = r#"<feature name="plagiarism" this_offset="1" this_length="1"
        source_reference="r" source_offset="0" source_length="1"/>"#;
    assert!(matches!(
        parse_annotations(no_doc, CASE_FEATURE),
        Err(PanError::NoReference { .. })
    ));
    assert!(matches!(
        parse_annotations("<document reference=\"s\"><feature name=", CASE_FEATURE),
        Err(PanError::Xml { .. })
    ));
}

#[test]
fn write_then_parse_round_trips() {
    let mut buf = Vec::new();
    write_detections(
        &mut buf,
        "s&1.txt",
        "r\"2.txt",
        &[(3..10, 20..42), (50..60, 0..5)],
    )
    .unwrap();
    let xml = String::from_utf8(buf).unwrap();
    let dets = parse_annotations(&xml, DETECTION_FEATURE).unwrap();
    assert_eq!(dets.len(), 2);
    assert_eq!(dets[0].this_reference, "s&1.txt");
    assert_eq!(dets[0].source_reference, "r\"2.txt");
    assert_eq!((dets[0].this_offset, dets[0].this_length), (3, 7));
    assert_eq!((dets[0].source_offset, dets[0].source_length), (20, 22));
    assert_eq!((dets[1].this_offset, dets[1].source_length), (50, 5));
}

/// Found by the `align_pan` fuzz target (`testdata/align/fuzz/crash-16ea...`, replayed with
/// `cargo fuzz run align_pan <file>`): references with tabs and line breaks came back with
/// spaces, as XML attribute values are normalized.
#[test]
fn write_then_parse_keeps_white_space_in_references() {
    let (susp, src) = ("a\tb\nc\r\nd", " e\n\tf ");
    let mut buf = Vec::new();
    write_detections(&mut buf, susp, src, &[(0..1, 2..3)]).unwrap();
    let dets = parse_annotations(std::str::from_utf8(&buf).unwrap(), DETECTION_FEATURE).unwrap();
    assert_eq!(dets[0].this_reference, susp);
    assert_eq!(dets[0].source_reference, src);
}

/// Found by the `align_pan` fuzz target (`testdata/align/fuzz/crash-2f45...`): lengths whose
/// sum overflows `usize` panicked in the measures (overflow checks on).
#[test]
fn huge_lengths_do_not_overflow() {
    let xml = format!(
        r#"<document reference="s"><feature name="plagiarism" this_offset="0"
        this_length="{m}" source_reference="r" source_offset="0" source_length="{m}"/></document>"#,
        m = usize::MAX
    );
    let cases = parse_annotations(&xml, CASE_FEATURE).unwrap();
    let s = scores(&cases, &cases);
    assert_eq!((s.precision, s.recall, s.granularity), (1.0, 1.0, 1.0));
}

/// The PAN 2014 winner's detections on a slice of the PAN 2013 training corpus (see
/// `testdata/align/README.md`). On the full translation and summary categories the same code
/// gives the published 0.88399 and 0.57609 (measured with `textreuse pan-eval`, see
/// `docs/performance.md`).
#[test]
fn reference_detections_on_the_slice() {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/align");
    let mut eval = Evaluation::new();
    let mut names: Vec<_> = std::fs::read_dir(dir.join("truth"))
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    names.sort();
    assert_eq!(names.len(), 8);
    for name in names {
        let truth = std::fs::read_to_string(dir.join("truth").join(&name)).unwrap();
        eval.add_cases(parse_annotations(&truth, CASE_FEATURE).unwrap());
        if let Ok(det) = std::fs::read_to_string(dir.join("reference").join(&name)) {
            eval.add_detections(parse_annotations(&det, DETECTION_FEATURE).unwrap());
        }
    }
    let s = eval.scores();
    assert_eq!((s.cases, s.detections, s.detected_cases), (5, 3, 3));
    assert!((s.plagdet - 0.741_395_133_217_263_7).abs() < 1e-12, "{s}");
    assert!((s.recall - 0.592_176_104_327_494_9).abs() < 1e-12, "{s}");
    assert!((s.precision - 0.991_149_043_780_622_7).abs() < 1e-12, "{s}");
}
