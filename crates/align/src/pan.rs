//! The PAN text-alignment evaluation: reading and writing PAN XML, and the measures precision,
//! recall, granularity and plagdet (Potthast et al. 2010, "An Evaluation Framework for
//! Plagiarism Detection").
//!
//! A *case* (from a truth file, `<feature name="plagiarism" .../>`) and a *detection* (from a
//! detection file, `<feature name="detected-plagiarism" .../>`) are each a passage in a suspicious
//! document together with a passage in its source document, as character (Unicode code point)
//! offsets and lengths. A detection detects a case when both name the same document pair and the
//! two overlap in both documents. With `s ⊓ r = s ∩ r` if `r` detects `s`, else empty, and each
//! annotation taken as the set of its characters in both documents:
//!
//! - precision = (1/|R|) Σ_r |∪_s (s ⊓ r)| / |r|
//! - recall = (1/|S|) Σ_s |∪_r (s ⊓ r)| / |s|
//! - granularity = mean, over detected cases, of the number of detections that detect the case
//! - plagdet = F1(precision, recall) / log2(1 + granularity)
//!
//! The measures are micro-averaged over the whole corpus: every case and every detection of
//! every document pair counts once. Like the PAN reference implementation, identical annotations
//! are counted once, a corpus without cases and detections has recall and precision 1, and a
//! corpus with cases but no detections (or detections but no cases) has both 0.
//!
//! ```
//! use textreuse_align::pan::{parse_annotations, Evaluation, CASE_FEATURE, DETECTION_FEATURE};
//!
//! let truth = r#"<document reference="susp.txt">
//!   <feature name="plagiarism" this_offset="0" this_length="100"
//!            source_reference="src.txt" source_offset="50" source_length="100"/>
//! </document>"#;
//! let det = r#"<document reference="susp.txt"><feature name="detected-plagiarism"
//!   this_offset="0" this_length="50" source_reference="src.txt" source_offset="50"
//!   source_length="50"/></document>"#;
//! let mut eval = Evaluation::new();
//! eval.add_cases(parse_annotations(truth, CASE_FEATURE)?);
//! eval.add_detections(parse_annotations(det, DETECTION_FEATURE)?);
//! let scores = eval.scores();
//! assert_eq!(scores.precision, 1.0);
//! assert_eq!(scores.recall, 0.5);
//! assert_eq!(scores.granularity, 1.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
use std::collections::BTreeMap;
use std::fmt;
use std::io::{self, Write};
use std::ops::Range;

use quick_xml::events::{BytesStart, Event};

/// The `name` of a truth feature in PAN truth files.
pub const CASE_FEATURE: &str = "plagiarism";
/// The `name` of a detection feature in PAN detection files.
pub const DETECTION_FEATURE: &str = "detected-plagiarism";

/// One PAN annotation: a passage of a suspicious document and its source passage, in characters.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Annotation {
    /// The suspicious document's name (the `reference` of `<document>`).
    pub this_reference: String,
    /// First character of the passage in the suspicious document.
    pub this_offset: usize,
    /// Length of the passage in the suspicious document, in characters.
    pub this_length: usize,
    /// The source document's name (`source_reference`).
    pub source_reference: String,
    /// First character of the passage in the source document.
    pub source_offset: usize,
    /// Length of the passage in the source document, in characters.
    pub source_length: usize,
}

impl Annotation {
    fn this_range(&self) -> Range<usize> {
        self.this_offset..self.this_offset.saturating_add(self.this_length)
    }

    fn source_range(&self) -> Range<usize> {
        self.source_offset..self.source_offset.saturating_add(self.source_length)
    }

    /// True when both annotations name the same document pair and overlap in both documents
    /// (the PAN "detects" relation, which is symmetric).
    pub fn overlaps(&self, other: &Annotation) -> bool {
        self.this_reference == other.this_reference
            && self.source_reference == other.source_reference
            && intersect(&self.this_range(), &other.this_range()).is_some()
            && intersect(&self.source_range(), &other.source_range()).is_some()
    }
}

/// An error reading a PAN XML file.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum PanError {
    /// The XML itself is malformed. Recover by fixing or skipping the file.
    #[error("malformed XML at byte {offset}: {message}")]
    Xml {
        /// Byte offset in the input where the parser stopped.
        offset: u64,
        /// The parser's message.
        message: String,
    },
    /// A `<feature>` of the requested name lacks a required attribute or has a non-numeric
    /// offset or length. Recover by fixing or skipping the file.
    #[error("feature at byte {offset}: attribute {attribute}: {problem}")]
    Attribute {
        /// Byte offset of the feature element.
        offset: u64,
        /// The attribute name.
        attribute: &'static str,
        /// What is wrong ("missing", "not a number: ...").
        problem: String,
    },
    /// A feature appears outside any `<document reference="...">` and has no `this_reference`.
    /// Recover by fixing or skipping the file.
    #[error("feature at byte {offset} has no document reference")]
    NoReference {
        /// Byte offset of the feature element.
        offset: u64,
    },
}

/// Parses the features named `feature_name` ([`CASE_FEATURE`] or [`DETECTION_FEATURE`]) of one
/// PAN XML document. Attribute order, quote style and extra attributes do not matter; features
/// of other names are skipped.
///
/// # Errors
/// [`PanError`] on malformed XML or a feature with a missing or non-numeric attribute.
pub fn parse_annotations(xml: &str, feature_name: &str) -> Result<Vec<Annotation>, PanError> {
    let mut reader = quick_xml::Reader::from_str(xml);
    let mut document: Option<String> = None;
    let mut out = Vec::new();
    loop {
        let offset = reader.buffer_position();
        let event = reader.read_event().map_err(|e| PanError::Xml {
            offset: reader.error_position(),
            message: e.to_string(),
        })?;
        match event {
            Event::Start(e) | Event::Empty(e) => match e.local_name().as_ref() {
                "document" => {
                    if let Some(r) = attribute(&e, "reference", offset)? {
                        document = Some(r);
                    }
                }
                "feature" => {
                    if attribute(&e, "name", offset)?.as_deref() != Some(feature_name) {
                        continue;
                    }
                    let this_reference = match attribute(&e, "this_reference", offset)? {
                        Some(r) => r,
                        None => document.clone().ok_or(PanError::NoReference { offset })?,
                    };
                    let num = |name: &'static str| -> Result<usize, PanError> {
                        let v = attribute(&e, name, offset)?.ok_or(PanError::Attribute {
                            offset,
                            attribute: name,
                            problem: "missing".into(),
                        })?;
                        v.trim().parse().map_err(|_| PanError::Attribute {
                            offset,
                            attribute: name,
                            problem: format!("not a number: {v:?}"),
                        })
                    };
                    out.push(Annotation {
                        this_reference,
                        this_offset: num("this_offset")?,
                        this_length: num("this_length")?,
                        source_reference: attribute(&e, "source_reference", offset)?.ok_or(
                            PanError::Attribute {
                                offset,
                                attribute: "source_reference",
                                problem: "missing".into(),
                            },
                        )?,
                        source_offset: num("source_offset")?,
                        source_length: num("source_length")?,
                    });
                }
                _ => {}
            },
            Event::Eof => break,
            _ => {}
        }
    }
    Ok(out)
}

fn attribute(e: &BytesStart<'_>, name: &str, offset: u64) -> Result<Option<String>, PanError> {
    for attr in e.attributes().with_checks(false) {
        let attr = attr.map_err(|err| PanError::Xml {
            offset,
            message: err.to_string(),
        })?;
        if attr.key.local_name().as_ref() == name {
            let value = attr
                .normalized_value(quick_xml::XmlVersion::Implicit1_0)
                .map_err(|err| PanError::Xml {
                    offset,
                    message: err.to_string(),
                })?;
            return Ok(Some(value.into_owned()));
        }
    }
    Ok(None)
}

/// Writes one PAN detection file: `<document reference="SUSP">` with one
/// `<feature name="detected-plagiarism" .../>` per detection (character offsets).
///
/// # Errors
/// Any I/O error of `w`.
pub fn write_detections<W: Write>(
    mut w: W,
    suspicious_reference: &str,
    source_reference: &str,
    detections: &[(Range<usize>, Range<usize>)],
) -> io::Result<()> {
    let susp = xml_escape(suspicious_reference);
    let src = xml_escape(source_reference);
    writeln!(w, r#"<?xml version="1.0" encoding="utf-8"?>"#)?;
    writeln!(w, r#"<document reference="{susp}">"#)?;
    for (s, r) in detections {
        writeln!(
            w,
            r#"<feature name="detected-plagiarism" this_offset="{}" this_length="{}" source_reference="{src}" source_offset="{}" source_length="{}"/>"#,
            s.start,
            s.end - s.start,
            r.start,
            r.end - r.start
        )?;
    }
    writeln!(w, "</document>")
}

fn xml_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&apos;"),
            // A reader normalizes white space in attribute values to spaces; character
            // references keep it.
            '\t' => out.push_str("&#9;"),
            '\n' => out.push_str("&#10;"),
            '\r' => out.push_str("&#13;"),
            c => out.push(c),
        }
    }
    out
}

/// The PAN measures of a set of detections against a set of cases.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Scores {
    /// F1 of precision and recall divided by log2(1 + granularity).
    pub plagdet: f64,
    /// Share of the case characters that are detected, micro-averaged over cases.
    pub recall: f64,
    /// Share of the detected characters that belong to a case, micro-averaged over detections.
    pub precision: f64,
    /// Mean number of detections per detected case (1 is best).
    pub granularity: f64,
    /// Number of distinct cases.
    pub cases: usize,
    /// Number of distinct detections.
    pub detections: usize,
    /// Number of cases detected by at least one detection.
    pub detected_cases: usize,
}

impl fmt::Display for Scores {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "plagdet {:.5} recall {:.5} precision {:.5} granularity {:.5} ({} cases, {} detections, {} detected)",
            self.plagdet,
            self.recall,
            self.precision,
            self.granularity,
            self.cases,
            self.detections,
            self.detected_cases
        )
    }
}

/// Accumulates cases and detections of a corpus, then computes the PAN [`Scores`].
#[derive(Clone, Debug, Default)]
pub struct Evaluation {
    cases: Vec<Annotation>,
    detections: Vec<Annotation>,
}

impl Evaluation {
    /// An empty evaluation.
    pub fn new() -> Evaluation {
        Evaluation::default()
    }

    /// Adds truth cases.
    pub fn add_cases(&mut self, cases: impl IntoIterator<Item = Annotation>) -> &mut Self {
        self.cases.extend(cases);
        self
    }

    /// Adds detections.
    pub fn add_detections(
        &mut self,
        detections: impl IntoIterator<Item = Annotation>,
    ) -> &mut Self {
        self.detections.extend(detections);
        self
    }

    /// Computes the measures over everything added so far.
    pub fn scores(&self) -> Scores {
        let mut cases = self.cases.clone();
        cases.sort();
        cases.dedup();
        let mut detections = self.detections.clone();
        detections.sort();
        detections.dedup();
        // Group by document pair; both lists are sorted by (this_reference, ...), so a map from
        // the pair to index lists is enough.
        let mut by_pair: BTreeMap<(&str, &str), CaseAndDetectionIds> = BTreeMap::new();
        for (i, c) in cases.iter().enumerate() {
            by_pair
                .entry((&c.this_reference, &c.source_reference))
                .or_default()
                .0
                .push(i);
        }
        for (i, d) in detections.iter().enumerate() {
            by_pair
                .entry((&d.this_reference, &d.source_reference))
                .or_default()
                .1
                .push(i);
        }
        let mut recall_sum = 0.0;
        let mut precision_sum = 0.0;
        let mut detected_cases = 0usize;
        let mut detections_of_detected = 0usize;
        for (case_ids, det_ids) in by_pair.values() {
            for &c in case_ids {
                let (covered, n) = coverage(&cases[c], det_ids.iter().map(|&d| &detections[d]));
                recall_sum += covered;
                if n > 0 {
                    detected_cases += 1;
                    detections_of_detected += n;
                }
            }
            for &d in det_ids {
                let (covered, _) = coverage(&detections[d], case_ids.iter().map(|&c| &cases[c]));
                precision_sum += covered;
            }
        }
        let (recall, precision) = match (cases.len(), detections.len()) {
            (0, 0) => (1.0, 1.0),
            (0, _) | (_, 0) => (0.0, 0.0),
            (nc, nd) => (recall_sum / nc as f64, precision_sum / nd as f64),
        };
        let granularity = if detected_cases == 0 {
            1.0
        } else {
            detections_of_detected as f64 / detected_cases as f64
        };
        Scores {
            plagdet: plagdet(precision, recall, granularity),
            recall,
            precision,
            granularity,
            cases: cases.len(),
            detections: detections.len(),
            detected_cases,
        }
    }
}

/// Indices of the cases and of the detections of one document pair.
type CaseAndDetectionIds = (Vec<usize>, Vec<usize>);

/// plagdet = F1(precision, recall) / log2(1 + granularity); 0 when both are 0.
pub fn plagdet(precision: f64, recall: f64, granularity: f64) -> f64 {
    if precision + recall <= 0.0 || granularity < 1.0 {
        return 0.0;
    }
    (2.0 * precision * recall / (precision + recall)) / (1.0 + granularity).log2()
}

/// The share of `a`'s characters (both documents) covered by the union of its intersections with
/// the `others` that overlap it, and how many of them do.
fn coverage<'a>(a: &Annotation, others: impl Iterator<Item = &'a Annotation>) -> (f64, usize) {
    let mut this_parts = Vec::new();
    let mut source_parts = Vec::new();
    let (ar, asr) = (a.this_range(), a.source_range());
    for o in others {
        if let (Some(t), Some(s)) = (
            intersect(&ar, &o.this_range()),
            intersect(&asr, &o.source_range()),
        ) {
            this_parts.push(t);
            source_parts.push(s);
        }
    }
    // In u128: a file may give lengths near usize::MAX, whose sum overflows usize.
    let total = a.this_length as u128 + a.source_length as u128;
    if total == 0 {
        return (0.0, this_parts.len());
    }
    let covered = union_len(&mut this_parts) as u128 + union_len(&mut source_parts) as u128;
    (covered as f64 / total as f64, this_parts.len())
}

fn intersect(a: &Range<usize>, b: &Range<usize>) -> Option<Range<usize>> {
    let r = a.start.max(b.start)..a.end.min(b.end);
    (r.start < r.end).then_some(r)
}

fn union_len(parts: &mut [Range<usize>]) -> usize {
    parts.sort_by_key(|r| r.start);
    let mut total = 0;
    let mut end = 0;
    for r in parts.iter() {
        let start = r.start.max(end);
        if r.end > start {
            total += r.end - start;
            end = r.end;
        }
    }
    total
}

#[cfg(test)]
mod tests;
