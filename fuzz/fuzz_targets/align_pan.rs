//! `align_pan`: the PAN XML reader and the PAN measures. Arbitrary bytes as a truth or detection
//! file: annotations or a typed error whose byte offset lies inside the input, never a panic.
//! Detections written by `write_detections` (any references, any offsets) read back exactly.
//! The measures of any cases and detections: precision, recall in [0, 1], granularity >= 1,
//! plagdet in [0, 1]; detections scored against themselves have precision and recall 1 (when each
//! has characters in both documents).
#![no_main]

use libfuzzer_sys::arbitrary::{Arbitrary, Unstructured};
use libfuzzer_sys::fuzz_target;
use textreuse_align::pan::{
    Annotation, CASE_FEATURE, DETECTION_FEATURE, Evaluation, PanError, parse_annotations,
    write_detections,
};

fn check_parse(xml: &str) -> Vec<Annotation> {
    let mut all = Vec::new();
    for feature in [CASE_FEATURE, DETECTION_FEATURE] {
        match parse_annotations(xml, feature) {
            Ok(a) => all.extend(a),
            Err(
                PanError::Xml { offset, .. }
                | PanError::Attribute { offset, .. }
                | PanError::NoReference { offset },
            ) => assert!(
                offset <= xml.len() as u64,
                "offset {offset} of {}",
                xml.len()
            ),
            Err(e) => panic!("unexpected error {e}"),
        }
    }
    all
}

fn check_scores(cases: &[Annotation], detections: &[Annotation]) {
    let mut eval = Evaluation::new();
    eval.add_cases(cases.iter().cloned());
    eval.add_detections(detections.iter().cloned());
    let s = eval.scores();
    assert!((0.0..=1.0).contains(&s.precision), "{s:?}");
    assert!((0.0..=1.0).contains(&s.recall), "{s:?}");
    assert!(s.granularity >= 1.0, "{s:?}");
    assert!((0.0..=1.0).contains(&s.plagdet), "{s:?}");
    assert!(s.detected_cases <= s.cases);
}

fuzz_target!(|data: &[u8]| {
    // The bytes as a PAN file.
    let xml = String::from_utf8_lossy(data);
    let parsed = check_parse(&xml);
    check_scores(&parsed, &parsed);

    // Detections from the bytes, written and read back.
    let mut u = Unstructured::new(data);
    let Ok((susp, src)) = <(String, String)>::arbitrary(&mut u) else {
        return;
    };
    let Ok(ranges) = Vec::<(usize, usize, usize, usize)>::arbitrary(&mut u) else {
        return;
    };
    let detections: Vec<_> = ranges
        .iter()
        .map(|&(a, la, b, lb)| (a..a.saturating_add(la), b..b.saturating_add(lb)))
        .collect();
    let mut file = Vec::new();
    write_detections(&mut file, &susp, &src, &detections).unwrap();
    let read = parse_annotations(std::str::from_utf8(&file).unwrap(), DETECTION_FEATURE)
        .unwrap_or_else(|e| panic!("{e} in {}", String::from_utf8_lossy(&file)));
    let want: Vec<Annotation> = detections
        .iter()
        .map(|(t, s)| Annotation {
            this_reference: susp.clone(),
            this_offset: t.start,
            this_length: t.len(),
            source_reference: src.clone(),
            source_offset: s.start,
            source_length: s.len(),
        })
        .collect();
    assert_eq!(read, want);
    check_scores(&want, &parsed);
    check_scores(&parsed, &want);
    // Detections against themselves as cases: each covers itself whole, so when every one
    // has characters in both documents, precision and recall are 1.
    let mut eval = Evaluation::new();
    eval.add_cases(want.iter().cloned())
        .add_detections(want.iter().cloned());
    let s = eval.scores();
    if want
        .iter()
        .all(|a| a.this_length > 0 && a.source_length > 0)
    {
        assert_eq!((s.precision, s.recall), (1.0, 1.0), "{s:?}");
    }
});
