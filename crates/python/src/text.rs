//! Module-level functions: sentences, shingles, exact Jaccard, SimHash, alignment, tuning.
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;
use textreuse_align::Aligner;
use textreuse_dedup::features::sentence_simhash;
use textreuse_minhash::TuneOptions;
use textreuse_minhash::{DEFAULT_BITS, DEFAULT_HASHES, DEFAULT_SEED};
use textreuse_shingle::DEFAULT_SHINGLE_CHARS;
use textreuse_shingle::{
    CharOffsets, Shingler, char_shingle_count, char_shingle_fingerprints, dedup_fingerprints,
    sorted_jaccard,
};
use textreuse_simhash::{
    Fallback, FingerprintSet, ParagraphFingerprinter, ParagraphMethod, ParagraphSplit, SetSearch,
    SimHasher,
};

use crate::signer::{parse_scheme, seed_u64, shingle_len};

/// sentences(text) -> list[tuple[int, int, str]]
///
/// Splits a text into sentences as `textreuse dedup` and `textreuse sentences` do: one
/// (start, end, sentence) per sentence, in order, where start and end are UTF-8 BYTE offsets
/// (text.encode()[start:end].decode() == sentence). Use char_offsets() to turn them into str
/// indices. Linear time; never fails.
#[pyfunction]
pub(crate) fn sentences(py: Python<'_>, text: &str) -> Vec<(usize, usize, String)> {
    py.detach(|| {
        textreuse_shingle::sentences(text)
            .map(|s| (s.span.start, s.span.end, s.as_str().to_owned()))
            .collect()
    })
}

/// char_offsets(text, byte_offsets) -> list[int]
///
/// Converts UTF-8 byte offsets into `text` (as sentences() returns) into character offsets,
/// i.e. str indices. An offset inside a multi-byte character maps past that character;
/// offsets beyond the end map to len(text).
#[pyfunction]
pub(crate) fn char_offsets(text: &str, byte_offsets: Vec<usize>) -> Vec<usize> {
    let offsets = CharOffsets::new(text);
    byte_offsets.iter().map(|&b| offsets.to_char(b)).collect()
}

/// shingles(text, length=DEFAULT_SHINGLE_CHARS as i64, normalize=True) -> list[int]
///
/// The 64-bit fingerprints of the `length`-character shingles of `text`, in text order with
/// repetitions (len(text) - length + 1 of them for a text of at least `length` characters,
/// else none). With normalize=True the text is first lowercased with whitespace collapsed,
/// exactly as `textreuse dedup` prepares a sentence for MinHash. Fingerprints are stable across
/// machines and versions.
#[pyfunction]
#[pyo3(signature = (text, length=DEFAULT_SHINGLE_CHARS as i64, normalize=true))]
pub(crate) fn shingles(text: &str, length: i64, normalize: bool) -> PyResult<Vec<u64>> {
    let length = shingle_len(length)?;
    if normalize {
        Ok(Shingler::with_len(length).fingerprints(text).clone())
    } else {
        let mut out = Vec::new();
        char_shingle_fingerprints(text, length, &mut out);
        Ok(out)
    }
}

/// shingle_count(text, length=DEFAULT_SHINGLE_CHARS as i64) -> int
///
/// max(0, len(text) - length + 1): the number of `length`-character shingles of the text as
/// written (the dedup pipeline keeps sentences with 75 to 600 of them).
#[pyfunction]
#[pyo3(signature = (text, length=DEFAULT_SHINGLE_CHARS as i64))]
pub(crate) fn shingle_count(text: &str, length: i64) -> PyResult<usize> {
    Ok(char_shingle_count(text, shingle_len(length)?))
}

/// jaccard(text_a, text_b, length=DEFAULT_SHINGLE_CHARS as i64) -> float
///
/// The exact Jaccard similarity of the two texts' sets of normalized `length`-character
/// shingles (what Signer.jaccard estimates). 0.0 when either set is empty.
#[pyfunction]
#[pyo3(signature = (text_a, text_b, length=DEFAULT_SHINGLE_CHARS as i64))]
pub(crate) fn jaccard(text_a: &str, text_b: &str, length: i64) -> PyResult<f64> {
    let length = shingle_len(length)?;
    let mut shingler = Shingler::with_len(length);
    let mut a = shingler.fingerprints(text_a).clone();
    let b = shingler.fingerprints(text_b);
    dedup_fingerprints(&mut a);
    dedup_fingerprints(b);
    Ok(sorted_jaccard(&a, b))
}

/// simhash(text, shingle=12) -> int | None
///
/// The 64-bit SimHash of a sentence as `textreuse dedup --method simhash` and
/// `textreuse simhash` compute it (the unweighted set of its normalized shingle fingerprints,
/// default SimHasher), as an unsigned int; None when the normalized text is shorter than one
/// shingle.
#[pyfunction]
#[pyo3(signature = (text, shingle=DEFAULT_SHINGLE_CHARS as i64))]
pub(crate) fn simhash(text: &str, shingle: i64) -> PyResult<Option<u64>> {
    let shingle = shingle_len(shingle)?;
    Ok(sentence_simhash(
        text,
        &mut Shingler::with_len(shingle),
        &SimHasher::new(),
    ))
}

/// paragraph_simhash(text) -> int | None
///
/// The weighted paragraph fingerprint of a paragraph or document, as `textreuse dedup --unit
/// paragraph|document --method simhash` and `textreuse simhash --unit paragraph|document`
/// compute it (its longest sentences weighted by keyword frequency, length and position, after
/// Wang, Liu and Jia; 64 bits, default seed), as an unsigned int; None when no sentence is long
/// enough.
#[pyfunction]
pub(crate) fn paragraph_simhash(py: Python<'_>, text: &str) -> Option<u64> {
    py.detach(|| ParagraphFingerprinter::new().fingerprint_paragraph(text))
}

/// The Wang fingerprinter of the Python arguments (the paper's `k`, `m`, `b`, the fallback and
/// the paragraph split); a bad value is a ValueError naming the argument.
fn wang_fingerprinter(
    words: usize,
    sentences: usize,
    bits: u32,
    fallback: &str,
    paragraphs: &str,
) -> PyResult<ParagraphFingerprinter> {
    let fallback = match fallback {
        "document" => Fallback::Document,
        "paragraph" => Fallback::Paragraph,
        "none" => Fallback::Skip,
        other => {
            return Err(PyValueError::new_err(format!(
                "fallback must be 'document', 'paragraph' or 'none', got {other:?}"
            )));
        }
    };
    let split = match paragraphs {
        "blank-lines" => ParagraphSplit::BlankLines,
        "lines" => ParagraphSplit::Lines,
        other => {
            return Err(PyValueError::new_err(format!(
                "paragraphs must be 'blank-lines' or 'lines', got {other:?}"
            )));
        }
    };
    ParagraphFingerprinter::builder()
        .method(ParagraphMethod::Wang)
        .min_sentence_words(words)
        .sentences_per_paragraph(sentences)
        .bits(bits)
        .fallback(fallback)
        .paragraph_split(split)
        .build()
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

const WANG: ParagraphMethod = ParagraphMethod::Wang;

/// wang_fingerprints(text, words=11, sentences=9, bits=32, fallback="document",
/// paragraphs="blank-lines") -> list[int]
///
/// The document's set of paragraph fingerprints by Wang, Liu and Jia's method, as
/// `textreuse docsim --fingerprints` writes it: sorted ascending, each once, as unsigned ints
/// below 2**bits. Paragraphs end at blank lines ("lines": at every line break); sentences end
/// at . ! ? ; (followed by white space) ; in each paragraph the `sentences` longest sentences of
/// at least `words` words are weighted by keyword share + lg(length) + position, hashed to
/// `bits` bits and folded into one fingerprint. A paragraph without a long sentence gets the
/// fingerprint of the `words` longest sentences of the whole document ("document", the
/// paper's rule), of its own longest ("paragraph"), or none ("none"). ValueError for a
/// parameter out of range. Runs with the GIL released.
#[pyfunction]
#[pyo3(signature = (
    text, words=WANG.default_min_sentence_words(), sentences=WANG.default_sentences_per_paragraph(),
    bits=WANG.default_bits(), fallback="document", paragraphs="blank-lines"
))]
pub(crate) fn wang_fingerprints(
    py: Python<'_>,
    text: &str,
    words: usize,
    sentences: usize,
    bits: u32,
    fallback: &str,
    paragraphs: &str,
) -> PyResult<Vec<u64>> {
    let fp = wang_fingerprinter(words, sentences, bits, fallback, paragraphs)?;
    Ok(py.detach(|| fp.fingerprint_set(text).as_slice().to_vec()))
}

/// set_similarity(a, b, max_hamming=0) -> float
///
/// Wang, Liu and Jia's S(M, N) = |M & N| / sqrt(|M| * |N|) of two documents' fingerprint sets
/// (lists or tuples of ints; duplicates count once): 1.0 for equal non-empty sets, 0.0 when they
/// share nothing or either is empty. With max_hamming > 0 fingerprints within that many bits
/// match (one to one, a maximum matching).
#[pyfunction]
#[pyo3(signature = (a, b, max_hamming=0))]
pub(crate) fn set_similarity(a: Vec<u64>, b: Vec<u64>, max_hamming: u32) -> f64 {
    textreuse_simhash::set_similarity_within(
        &FingerprintSet::from_fingerprints(a),
        &FingerprintSet::from_fingerprints(b),
        max_hamming,
    )
}

/// similar_documents(texts, queries=None, threshold=0.8, max_hamming=0, words=11, sentences=9,
/// bits=32, fallback="document", paragraphs="blank-lines") -> list[tuple[int, int, float]]
///
/// The pairs (a, b, S) of documents whose Wang fingerprint sets have S >= threshold, as
/// `textreuse docsim` finds them: without queries every pair a < b of `texts`; with queries
/// (a list of texts) every query `a` against every text `b`. Sorted by (a, b). Documents are
/// indexed by fingerprint, so only those sharing one are compared. ValueError for a parameter
/// out of range. Runs with the GIL released.
#[pyfunction]
#[pyo3(signature = (
    texts, queries=None, threshold=textreuse_simhash::DEFAULT_SET_THRESHOLD, max_hamming=0,
    words=WANG.default_min_sentence_words(), sentences=WANG.default_sentences_per_paragraph(),
    bits=WANG.default_bits(), fallback="document", paragraphs="blank-lines"
))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn similar_documents(
    py: Python<'_>,
    texts: Vec<String>,
    queries: Option<Vec<String>>,
    threshold: f64,
    max_hamming: u32,
    words: usize,
    sentences: usize,
    bits: u32,
    fallback: &str,
    paragraphs: &str,
) -> PyResult<Vec<(u32, u32, f64)>> {
    let fp = wang_fingerprinter(words, sentences, bits, fallback, paragraphs)?;
    let search = SetSearch::builder()
        .threshold(threshold)
        .max_hamming(max_hamming)
        .build()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    py.detach(|| {
        let sets = |texts: &[String]| -> Vec<FingerprintSet> {
            texts.iter().map(|t| fp.fingerprint_set(t)).collect()
        };
        let corpus = sets(&texts);
        let pairs = match &queries {
            None => search.pairs(&corpus),
            Some(q) => search.pairs_between(&sets(q), &corpus),
        }
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
        Ok(pairs.iter().map(|p| (p.a, p.b, p.similarity)).collect())
    })
}

/// A `lang` argument: an ISO 639-1 code or name, or "auto" (detection, English when unsure).
pub(crate) fn language_choice(lang: &str) -> PyResult<(textreuse_align::Language, bool)> {
    lang.parse::<textreuse_align::LanguageChoice>()
        .map(textreuse_align::LanguageChoice::language_and_detection)
        .map_err(|e| PyValueError::new_err(e.to_string()))
}

/// align(source, suspicious, min_length=150, lang="en") -> list[dict]
///
/// Passages of `suspicious` reused from `source` (PAN text alignment, as `textreuse align`
/// does), one dict per detection in the suspicious document's order:
/// {"source_offset", "source_length", "suspicious_offset", "suspicious_length"} in characters
/// (str indices), "score" (the passages' tf-idf cosine) and "source_text" / "suspicious_text".
/// Passages shorter than `min_length` bytes on either side are dropped. `lang` is the texts'
/// language for stemming and stopwords (an ISO 639-1 code such as "en", "de", "ru", "bg"), or
/// "auto" to detect it from `suspicious` (English when unsure); an unknown code raises
/// ValueError listing the supported ones. `synonyms` matches English words with their WordNet
/// synonyms (`textreuse align --synonyms`). Runs with the GIL released.
#[pyfunction]
#[pyo3(signature = (
    source, suspicious, min_length=textreuse_align::DEFAULT_MIN_PASSAGE_LEN, lang="en",
    synonyms=textreuse_align::DEFAULT_SYNONYMS,
))]
pub(crate) fn align<'py>(
    py: Python<'py>,
    source: &str,
    suspicious: &str,
    min_length: usize,
    lang: &str,
    synonyms: bool,
) -> PyResult<Vec<Bound<'py, PyDict>>> {
    let (language, detect) = language_choice(lang)?;
    let aligner = Aligner::builder()
        .min_passage_len(min_length)
        .language(language)
        .detect_language(detect)
        .synonyms(synonyms)
        .build()
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let passages = py.detach(|| aligner.align(source, suspicious));
    passages
        .iter()
        .map(|p| {
            let (s, t) = p.char_ranges(source, suspicious);
            let d = PyDict::new(py);
            d.set_item("source_offset", s.start)?;
            d.set_item("source_length", s.len())?;
            d.set_item("suspicious_offset", t.start)?;
            d.set_item("suspicious_length", t.len())?;
            d.set_item("score", p.score)?;
            d.set_item("source_text", &source[p.source.clone()])?;
            d.set_item("suspicious_text", &suspicious[p.suspicious.clone()])?;
            Ok(d)
        })
        .collect()
}

/// tune(threshold, hashes=20, scheme="drawn", max_bands=16, bits=60, seed=1123456,
///      false_positive_weight=0.5, false_negative_weight=0.5) -> dict
///
/// Recommends rows K and bands M for a Jaccard threshold by minimizing the weighted areas of
/// false positives (the S-curve below the threshold) and false negatives (above it) under the
/// exact curve, as `textreuse tune --threshold` does. For "drawn" the bands are drawn from
/// `hashes` functions (M <= max_bands); for "disjoint" K * M <= hashes. Returns {"rows",
/// "bands", "false_positive", "false_negative", "error"}; Signer(rows=..., bands=...,
/// hashes=...) builds the recommended signer. Raises ValueError unless 0 < threshold < 1.
#[pyfunction]
#[pyo3(signature = (threshold, hashes=DEFAULT_HASHES, scheme="drawn", max_bands=16, bits=DEFAULT_BITS, seed=DEFAULT_SEED as i128,
    false_positive_weight=0.5, false_negative_weight=0.5))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn tune<'py>(
    py: Python<'py>,
    threshold: f64,
    hashes: usize,
    scheme: &str,
    max_bands: usize,
    bits: u32,
    seed: i128,
    false_positive_weight: f64,
    false_negative_weight: f64,
) -> PyResult<Bound<'py, PyDict>> {
    let options = TuneOptions {
        scheme: parse_scheme(scheme)?,
        hashes,
        max_bands,
        bits,
        seed: seed_u64(seed)?,
        false_positive_weight,
        false_negative_weight,
    };
    let best = py
        .detach(|| textreuse_minhash::tune(threshold, &options))
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let d = PyDict::new(py);
    d.set_item("rows", best.rows)?;
    d.set_item("bands", best.bands)?;
    d.set_item("false_positive", best.false_positive)?;
    d.set_item("false_negative", best.false_negative)?;
    d.set_item("error", best.error)?;
    Ok(d)
}

/// plan(threshold, recall=0.99, below=None, candidate_rate=0.01, min_set=75, schemes=None,
///      hashes=20, max_hashes=512, bits=60, seed=1123456) -> dict
///
/// The cheapest scheme, rows K and bands M that find at least `recall` of the pairs at Jaccard
/// >= threshold while making at most `candidate_rate` of the pairs at <= `below` (default
/// max(threshold - 0.4, threshold / 6)) candidates, for sets of `min_set` shingles and more,
/// as `textreuse tune --threshold` does. `schemes` (default all: "drawn", "disjoint", "oph")
/// limits the choice; `hashes` is N of drawn bands, `max_hashes` the largest K * M of disjoint
/// ones. Returns {"scheme", "hashes", "rows", "bands", "recall", "candidate_rate", "cost_ns"};
/// Signer(scheme=..., hashes=..., rows=..., bands=...) builds the signer. Raises ValueError
/// when no configuration meets the target (relax it) or a similarity is not in (0, 1).
#[pyfunction]
#[pyo3(signature = (threshold, recall=textreuse_minhash::DEFAULT_RECALL, below=None, candidate_rate=textreuse_minhash::DEFAULT_CANDIDATE_RATE, min_set=75, schemes=None,
    hashes=DEFAULT_HASHES, max_hashes=512, bits=DEFAULT_BITS, seed=DEFAULT_SEED as i128))]
#[allow(clippy::too_many_arguments)]
pub(crate) fn plan<'py>(
    py: Python<'py>,
    threshold: f64,
    recall: f64,
    below: Option<f64>,
    candidate_rate: f64,
    min_set: usize,
    schemes: Option<Vec<String>>,
    hashes: usize,
    max_hashes: usize,
    bits: u32,
    seed: i128,
) -> PyResult<Bound<'py, PyDict>> {
    let mut target = textreuse_minhash::Target::new(threshold);
    target.recall = recall;
    if let Some(b) = below {
        target.below = b;
    }
    target.candidate_rate = candidate_rate;
    target.min_set = min_set.max(1);
    if let Some(schemes) = schemes {
        target.schemes = schemes
            .iter()
            .map(|s| parse_scheme(s))
            .collect::<PyResult<_>>()?;
    }
    target.hashes = hashes;
    target.max_hashes = max_hashes;
    target.bits = bits;
    target.seed = seed_u64(seed)?;
    let p = py
        .detach(|| textreuse_minhash::plan(&target))
        .map_err(|e| PyValueError::new_err(e.to_string()))?;
    let d = PyDict::new(py);
    d.set_item("scheme", p.scheme.to_string())?;
    d.set_item("hashes", p.hashes)?;
    d.set_item("rows", p.rows)?;
    d.set_item("bands", p.bands)?;
    d.set_item("recall", p.recall)?;
    d.set_item("candidate_rate", p.candidate_rate)?;
    d.set_item("cost_ns", p.cost_ns)?;
    Ok(d)
}

/// classify(members) -> str
///
/// The type of a cluster of sentences, as `textreuse dedup` types its clusters, with the
/// evidence and, for factual drift, the contradiction: one JSON object `{"type",
/// "confidence", "rule", "rule_type", "groups", "differences", "contradiction"}`
/// (`contradiction` null unless the type is
/// `factual_drift`; its `statements` name members by their index in `members`). Each member
/// is `(doc, title, text, revision, timestamp, url)`: `doc` a string key (members with equal
/// keys or equal titles are one article), the last three may be None.
#[pyfunction]
#[allow(clippy::type_complexity)]
pub(crate) fn classify(
    py: Python<'_>,
    members: Vec<(
        String,
        String,
        String,
        Option<u64>,
        Option<String>,
        Option<String>,
    )>,
) -> PyResult<String> {
    if members.is_empty() {
        return Err(PyValueError::new_err("a cluster needs at least one member"));
    }
    Ok(py.detach(|| {
        let members = members
            .into_iter()
            .enumerate()
            .map(|(i, (doc, title, text, revision, timestamp, url))| {
                let mut m = textreuse_dedup::Member::new(i as u64, doc, title, text);
                m.origin.revision = revision;
                m.origin.timestamp = timestamp.map(Into::into);
                m.origin.url = url.map(Into::into);
                m
            })
            .collect();
        let cluster = textreuse_dedup::Cluster::in_order(0, members);
        let contradiction = textreuse_dedup::contradictions::Contradiction::of(&cluster);
        serde_json::json!({
            "type": cluster.kind.as_str(),
            "confidence": cluster.confidence,
            "rule": cluster.evidence.rule.as_str(),
            "rule_type": cluster.evidence.rule_type.as_str(),
            "groups": cluster.evidence.groups,
            "differences": cluster.evidence.differences,
            "contradiction": contradiction,
        })
        .to_string()
    }))
}
