//! Sinks that write a run's results to files.
use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};
use std::fs::File;
use std::io::{self, BufWriter, Write};
use std::ops::Range;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;
use textreuse_align::pan;
use textreuse_corpus::Document;

use crate::{CorpusView, MemoryPlan, PairResult, ReuseSink, ReuseStats};

/// Writes a run into a directory (created if needed), each file under a temporary name renamed
/// into place when the run finishes:
///
/// * `reuse.jsonl`: one line per passage, in candidate order: `{"suspicious": DOC,
///   "source": DOC, "suspicious_offset", "suspicious_length", "source_offset",
///   "source_length", "score", "kind", "jaccard_2", "jaccard_5", "jaccard_10", "jaccard_15",
///   "entity_jaccard", "suspicious_share", "source_share", "suspicious_words",
///   "source_words"}` (the [`ReuseProfile`](crate::ReuseProfile) of the case), offsets in
///   characters, and with [`ReuseOutputDir::passage_texts`] the two passages' texts
///   (`"suspicious_text"`, `"source_text"`); a DOC is `{"doc", "title", "source", "record",
///   "revision", "timestamp", "url"}` (the input's id and provenance: `url` a dump revision's
///   permanent link or a web page's address; absent fields left out);
/// * `pairs.tsv`: every candidate pair: `suspicious_doc, suspicious_title, source_doc,
///   source_title, support, cases, suspicious_chars, source_chars` (characters inside
///   the pair's passages on each side);
/// * `documents.tsv`: every document with a passage, as suspicious or source: `doc, title,
///   input, chars, cases, reused_chars, reused_share` (`input` tells apart documents with the
///   same id, such as two revisions of a page in two dumps);
/// * `stats.json`: the [`ReuseStats`];
/// * `corpus.json`: the corpus view ([`CorpusView`]: the article graph, the distributions of
///   reused length and of word n-gram similarity, class shares and top pairs; its schema is
///   [`CorpusSummary`](crate::CorpusSummary)), of bounded size whatever the run's.
///
/// For the five files to change together, write them into the directory of a
/// [`textreuse_corpus::files::OutputSet`] and commit it after the run, as `textreuse reuse` does.
#[derive(Debug)]
pub struct ReuseOutputDir {
    dir: PathBuf,
    cases: Option<BufWriter<File>>,
    pairs: Option<BufWriter<File>>,
    documents: DocumentTable,
    view: CorpusView,
    texts: bool,
}

/// The rows of `documents.tsv`: every document with a passage, by number, with its reused
/// character ranges (kept merged, so a much-reused document stays small). [`ReuseOutputDir`]
/// fills one from the pairs; an engine that aligns pairs elsewhere fills one with
/// [`DocumentTable::add`] and writes the same file.
///
/// The rows are held in memory up to a budget ([`DocumentTable::with_budget`]; none by
/// default): past it, they are written to a temporary file as one sorted run and the table
/// starts again empty, and [`DocumentTable::write`] merges the runs, adding up the rows of a
/// document that is in several. The file is the same bytes at any budget.
///
/// ```
/// use textreuse_corpus::Document;
/// use textreuse_reuse::DocumentTable;
///
/// let mut small = DocumentTable::with_budget(1, None); // a run on disk after every row
/// let mut all = DocumentTable::default();
/// let doc = Document::new(7, "Bees", "Honey bees live in colonies.");
/// for table in [&mut small, &mut all] {
///     table.add(0, &doc, 28, 1, [0..10])?;
///     table.add(0, &doc, 28, 1, [5..20])?;
/// }
/// assert_eq!(small.runs_on_disk(), 2);
/// let (mut a, mut b) = (Vec::new(), Vec::new());
/// small.write(&mut a)?;
/// all.write(&mut b)?;
/// assert_eq!(a, b);
/// assert!(String::from_utf8(a)?.ends_with("7\tBees\t\t28\t2\t20\t0.7143\n"));
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Debug)]
pub struct DocumentTable {
    rows: BTreeMap<usize, DocumentRow>,
    /// Estimated bytes of `rows`.
    bytes: u64,
    /// Past this many bytes the rows go to a run on disk (`u64::MAX`: never).
    budget: u64,
    tmp_dir: Option<PathBuf>,
    /// Sorted runs of rows written to temporary files, with their lengths in bytes.
    runs: Vec<(File, u64)>,
    /// Runs written since the table was made.
    runs_written: usize,
}

impl Default for DocumentTable {
    fn default() -> DocumentTable {
        DocumentTable::with_budget(u64::MAX, None)
    }
}

#[derive(Debug)]
struct DocumentRow {
    id: String,
    title: String,
    /// Shared with the document (one input names many).
    input: Arc<str>,
    chars: usize,
    cases: u64,
    ranges: Vec<Range<usize>>,
}

/// Bytes a row costs in memory besides its strings and ranges: the row and its map entry.
const ROW_BYTES: u64 = (std::mem::size_of::<DocumentRow>() + 64) as u64;

impl DocumentRow {
    /// Estimated bytes of the row in a [`DocumentTable`]'s map.
    fn bytes(&self) -> u64 {
        ROW_BYTES
            + (self.id.capacity() + self.title.capacity()) as u64
            + (self.ranges.capacity() * std::mem::size_of::<Range<usize>>()) as u64
    }

    /// Writes the row of document `n` to a run: `n`, `chars`, `cases`, the three strings and the
    /// ranges, each length first, integers as little-endian `u64`.
    fn write_to(&self, n: usize, w: &mut impl Write) -> io::Result<()> {
        for v in [n, self.chars, self.cases as usize] {
            w.write_all(&(v as u64).to_le_bytes())?;
        }
        for s in [&*self.id, &*self.title, &*self.input] {
            w.write_all(&(s.len() as u64).to_le_bytes())?;
            w.write_all(s.as_bytes())?;
        }
        w.write_all(&(self.ranges.len() as u64).to_le_bytes())?;
        for r in &self.ranges {
            w.write_all(&(r.start as u64).to_le_bytes())?;
            w.write_all(&(r.end as u64).to_le_bytes())?;
        }
        Ok(())
    }

    /// Reads a row [`DocumentRow::write_to`] wrote, with its document's number.
    fn read_from(r: &mut impl io::Read) -> io::Result<(usize, DocumentRow)> {
        let damaged = || {
            io::Error::new(
                io::ErrorKind::InvalidData,
                "damaged run of documents.tsv rows",
            )
        };
        let word = |r: &mut dyn io::Read| -> io::Result<usize> {
            let mut b = [0u8; 8];
            r.read_exact(&mut b)?;
            usize::try_from(u64::from_le_bytes(b)).map_err(|_| damaged())
        };
        let (n, chars, cases) = (word(r)?, word(r)?, word(r)? as u64);
        let mut strings = [String::new(), String::new(), String::new()];
        for s in &mut strings {
            let mut b = vec![0u8; word(r)?];
            r.read_exact(&mut b)?;
            *s = String::from_utf8(b).map_err(|_| damaged())?;
        }
        let ranges = (0..word(r)?)
            .map(|_| Ok(word(r)?..word(r)?))
            .collect::<io::Result<Vec<_>>>()?;
        let [id, title, input] = strings;
        let row = DocumentRow {
            id,
            title,
            input: input.into(),
            chars,
            cases,
            ranges,
        };
        Ok((n, row))
    }

    /// Adds `other`'s cases and ranges (the same document's, from another run).
    fn absorb(&mut self, other: DocumentRow) {
        self.cases += other.cases;
        self.add_ranges(other.ranges);
    }

    /// Adds reused ranges, merging them once there are more than 64.
    fn add_ranges(&mut self, ranges: impl IntoIterator<Item = Range<usize>>) {
        self.ranges.extend(ranges);
        if self.ranges.len() > 64 {
            self.ranges = merge(std::mem::take(&mut self.ranges));
        }
    }
}

const TMP_SUFFIX: &str = ".partial";

/// The header of `pairs.tsv` (the columns of [`write_pair_row`]).
pub const PAIRS_HEADER: &str = "suspicious_doc\tsuspicious_title\tsource_doc\tsource_title\t\
                                support\tcases\tsuspicious_chars\tsource_chars";

impl ReuseOutputDir {
    /// Files that front ends write into the same directory: `report.html`, the page
    /// `textreuse report` makes of the run (a new run replaces it too).
    pub const FRONT_END_FILES: &'static [&'static str] = &["report.html"];

    /// The names of the files it writes.
    pub const FILES: &'static [&'static str] = &[
        "reuse.jsonl",
        "pairs.tsv",
        "documents.tsv",
        "stats.json",
        "corpus.json",
    ];

    /// Outputs into `dir`.
    pub fn new(dir: impl Into<PathBuf>) -> ReuseOutputDir {
        ReuseOutputDir {
            dir: dir.into(),
            cases: None,
            pairs: None,
            documents: DocumentTable::default(),
            view: CorpusView::new(),
            texts: false,
        }
    }

    /// Whether each line of `reuse.jsonl` also carries the two passages' texts (off by
    /// default: the file then stays small beside the corpus it points into).
    pub fn passage_texts(&mut self, yes: bool) -> &mut Self {
        self.texts = yes;
        self
    }

    /// Holds what it keeps per document with a passage within the shares of `plan`, the rest
    /// in temporary files in `tmp_dir`: [`MemoryPlan::documents`], half to `documents.tsv`'s
    /// rows (past it, sorted runs: see [`DocumentTable`]) and half to the corpus view's ids and
    /// titles ([`CorpusViewBuilder::names_memory`]); [`MemoryPlan::articles`] to the view's
    /// article graph ([`CorpusViewBuilder::articles_memory`]). No limit by default; call it
    /// before the run. `textreuse reuse` gives it the run's plan ([`Reuse::memory`]).
    ///
    /// [`CorpusViewBuilder::names_memory`]: crate::CorpusViewBuilder::names_memory
    /// [`CorpusViewBuilder::articles_memory`]: crate::CorpusViewBuilder::articles_memory
    /// [`Reuse::memory`]: crate::Reuse::memory
    pub fn memory(&mut self, plan: &MemoryPlan, tmp_dir: Option<PathBuf>) -> &mut Self {
        self.documents = DocumentTable::with_budget(plan.documents / 2, tmp_dir.clone());
        self.view = CorpusView::builder()
            .names_memory(plan.documents / 2)
            .articles_memory(plan.articles)
            .tmp_dir(tmp_dir)
            .build();
        self
    }

    /// The number of articles when the corpus view's article graph moved to a temporary file
    /// ([`CorpusView::articles_moved_at`]), if it did.
    pub fn articles_moved_at(&self) -> Option<u64> {
        self.view.articles_moved_at()
    }

    /// The runs of `documents.tsv`'s rows written to temporary files (see
    /// [`DocumentTable::runs_on_disk`]).
    pub fn document_runs_on_disk(&self) -> usize {
        self.documents.runs_on_disk()
    }

    fn open(&self, name: &str) -> io::Result<BufWriter<File>> {
        std::fs::create_dir_all(&self.dir)?;
        let path = self.dir.join(format!("{name}{TMP_SUFFIX}"));
        Ok(BufWriter::with_capacity(1 << 20, File::create(path)?))
    }

    fn start(&mut self) -> io::Result<()> {
        if self.cases.is_none() {
            self.cases = Some(self.open("reuse.jsonl")?);
            let mut pairs = self.open("pairs.tsv")?;
            writeln!(pairs, "{PAIRS_HEADER}")?;
            self.pairs = Some(pairs);
        }
        Ok(())
    }

    fn finish_file(&self, name: &str, writer: Option<BufWriter<File>>) -> io::Result<()> {
        if let Some(mut w) = writer {
            w.flush()?;
            w.get_ref().sync_all()?;
        }
        std::fs::rename(
            self.dir.join(format!("{name}{TMP_SUFFIX}")),
            self.dir.join(name),
        )
    }
}

/// A document as `reuse.jsonl` names it: its id and provenance.
#[derive(Serialize)]
struct DocRef<'a> {
    doc: String,
    title: &'a str,
    #[serde(skip_serializing_if = "Option::is_none")]
    source: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    record: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    revision: Option<u64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    timestamp: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    url: Option<&'a str>,
}

impl<'a> DocRef<'a> {
    fn new(doc: &'a Document) -> DocRef<'a> {
        let o = &doc.origin;
        DocRef {
            doc: doc.id.to_string(),
            title: &doc.title,
            source: o.source.as_deref(),
            record: o.record,
            revision: o.revision,
            timestamp: o.timestamp.as_deref(),
            url: o.url.as_deref(),
        }
    }
}

/// One line of `reuse.jsonl`, fields in this order.
#[derive(Serialize)]
struct CaseLine<'a> {
    suspicious: &'a DocRef<'a>,
    source: &'a DocRef<'a>,
    suspicious_offset: usize,
    suspicious_length: usize,
    source_offset: usize,
    source_length: usize,
    score: f64,
    kind: &'static str,
    jaccard_2: f64,
    jaccard_5: f64,
    jaccard_10: f64,
    jaccard_15: f64,
    entity_jaccard: f64,
    suspicious_share: f64,
    source_share: f64,
    suspicious_words: usize,
    source_words: usize,
    #[serde(skip_serializing_if = "Option::is_none")]
    suspicious_text: Option<&'a str>,
    #[serde(skip_serializing_if = "Option::is_none")]
    source_text: Option<&'a str>,
}

/// Characters covered by `ranges` (overlaps counted once).
pub(crate) fn covered(ranges: &mut [Range<usize>]) -> usize {
    ranges.sort_by_key(|r| r.start);
    let (mut total, mut end) = (0, 0);
    for r in ranges.iter() {
        let start = r.start.max(end);
        if r.end > start {
            total += r.end - start;
            end = r.end;
        }
    }
    total
}

/// A TSV field: tabs and line breaks become spaces.
fn field(s: &str) -> String {
    s.replace(['\t', '\n', '\r'], " ")
}

/// Writes the `reuse.jsonl` lines of a pair's passages, with the passages' texts if `texts`
/// (see [`ReuseOutputDir`] for the fields).
pub fn write_case_lines<'a>(
    w: &mut dyn Write,
    pair: &PairResult<'a>,
    texts: bool,
) -> io::Result<()> {
    let (susp_ref, src_ref) = (DocRef::new(pair.suspicious.1), DocRef::new(pair.source.1));
    for c in pair.cases {
        let p = &c.profile;
        let [jaccard_2, jaccard_5, jaccard_10, jaccard_15] = p.ngram_jaccard;
        let text = |t: &'a str, r: &Range<usize>| texts.then(|| t.get(r.clone()).unwrap_or(""));
        let line = CaseLine {
            suspicious: &susp_ref,
            source: &src_ref,
            suspicious_offset: c.suspicious.start,
            suspicious_length: c.suspicious.len(),
            source_offset: c.source.start,
            source_length: c.source.len(),
            score: c.score,
            kind: p.kind.as_str(),
            jaccard_2,
            jaccard_5,
            jaccard_10,
            jaccard_15,
            entity_jaccard: p.entity_jaccard,
            suspicious_share: p.suspicious_share,
            source_share: p.source_share,
            suspicious_words: p.words.1,
            source_words: p.words.0,
            suspicious_text: text(pair.texts.0, &c.suspicious_bytes),
            source_text: text(pair.texts.1, &c.source_bytes),
        };
        serde_json::to_writer(&mut *w, &line)?;
        w.write_all(b"\n")?;
    }
    Ok(())
}

/// Writes a pair's `pairs.tsv` row.
pub fn write_pair_row(w: &mut dyn Write, pair: &PairResult<'_>) -> io::Result<()> {
    let mut susp_ranges: Vec<_> = pair.cases.iter().map(|c| c.suspicious.clone()).collect();
    let mut src_ranges: Vec<_> = pair.cases.iter().map(|c| c.source.clone()).collect();
    let (susp, src) = (pair.suspicious.1, pair.source.1);
    writeln!(
        w,
        "{}\t{}\t{}\t{}\t{}\t{}\t{}\t{}",
        field(&susp.id.to_string()),
        field(&susp.title),
        field(&src.id.to_string()),
        field(&src.title),
        pair.support,
        pair.cases.len(),
        covered(&mut susp_ranges),
        covered(&mut src_ranges)
    )
}

impl DocumentTable {
    /// A table that holds about `budget` bytes of rows in memory and writes the rest to sorted
    /// runs in temporary files in `tmp_dir` (the system's temporary directory when `None`).
    pub fn with_budget(budget: u64, tmp_dir: Option<PathBuf>) -> DocumentTable {
        DocumentTable {
            rows: BTreeMap::new(),
            bytes: 0,
            budget,
            tmp_dir,
            runs: Vec::new(),
            runs_written: 0,
        }
    }

    /// The number of sorted runs written to temporary files since the table was made (also
    /// after [`DocumentTable::write`] merged them).
    pub fn runs_on_disk(&self) -> usize {
        self.runs_written
    }

    /// Adds `cases` passages covering `ranges` (characters) of document number `n`: its id,
    /// title, input (where it was read from) and length in characters are taken the first time
    /// it is seen. Fails only when the rows past the budget cannot be written to a temporary
    /// file.
    pub fn add(
        &mut self,
        n: usize,
        doc: &Document,
        chars: usize,
        cases: u64,
        ranges: impl IntoIterator<Item = Range<usize>>,
    ) -> io::Result<()> {
        let mut added = 0;
        let row = self.rows.entry(n).or_insert_with(|| {
            let row = DocumentRow {
                id: doc.id.to_string(),
                title: doc.title.clone(),
                input: doc.origin.source.clone().unwrap_or_else(|| Arc::from("")),
                chars,
                cases: 0,
                ranges: Vec::new(),
            };
            added = row.bytes();
            row
        });
        let before = row.bytes();
        row.cases += cases;
        row.add_ranges(ranges);
        self.bytes = (self.bytes + added + row.bytes()).saturating_sub(before);
        if self.bytes > self.budget {
            self.spill()?;
        }
        Ok(())
    }

    /// Writes the rows in memory to a new run, in document order, and empties the map.
    fn spill(&mut self) -> io::Result<()> {
        let file = crate::doc_array::temp_file(self.tmp_dir.as_deref())?;
        let mut w = BufWriter::with_capacity(1 << 16, file);
        for (n, mut row) in std::mem::take(&mut self.rows) {
            row.ranges = merge(row.ranges);
            row.write_to(n, &mut w)?;
        }
        w.flush()?;
        let mut file = w.into_inner().map_err(io::IntoInnerError::into_error)?;
        let len = io::Seek::stream_position(&mut file)?;
        self.runs.push((file, len));
        self.runs_written += 1;
        self.bytes = 0;
        Ok(())
    }

    /// Adds both documents of a pair with passages (nothing for a pair without).
    pub fn add_pair(&mut self, pair: &PairResult<'_>) -> io::Result<()> {
        if pair.cases.is_empty() {
            return Ok(());
        }
        let n = pair.cases.len() as u64;
        let (susp_n, susp) = pair.suspicious;
        let (src_n, src) = pair.source;
        let (susp_chars, src_chars) = (pair.texts.0.chars().count(), pair.texts.1.chars().count());
        let susp_ranges = pair.cases.iter().map(|c| c.suspicious.clone());
        self.add(susp_n, susp, susp_chars, n, susp_ranges)?;
        let src_ranges = pair.cases.iter().map(|c| c.source.clone());
        self.add(src_n, src, src_chars, n, src_ranges)
    }

    /// Writes `documents.tsv`: the header and a row per document, by number (the runs on disk
    /// and the rows in memory merged).
    pub fn write(&mut self, w: &mut dyn Write) -> io::Result<()> {
        writeln!(
            w,
            "doc\ttitle\tinput\tchars\tcases\treused_chars\treused_share"
        )?;
        let mut runs = Vec::with_capacity(self.runs.len());
        for (file, len) in &self.runs {
            let mut file = file.try_clone()?;
            io::Seek::rewind(&mut file)?;
            runs.push(RunReader::new(file, *len)?);
        }
        // The smallest document number of each run's next row, and the rows in memory last.
        let mut memory = std::mem::take(&mut self.rows).into_iter().peekable();
        let mut heap: BinaryHeap<Reverse<(usize, usize)>> = runs
            .iter()
            .enumerate()
            .filter_map(|(i, r)| r.next.as_ref().map(|(n, _)| Reverse((*n, i))))
            .collect();
        loop {
            let next_run = heap.peek().map(|Reverse((n, _))| *n);
            let next_mem = memory.peek().map(|(n, _)| *n);
            let n = match (next_run, next_mem) {
                (None, None) => break,
                (Some(a), Some(b)) => a.min(b),
                (a, b) => a.or(b).expect("one is some"),
            };
            let mut row: Option<DocumentRow> = None;
            while let Some(&Reverse((m, i))) = heap.peek() {
                if m != n {
                    break;
                }
                heap.pop();
                let (_, r) = runs[i].take()?;
                if let Some((m, _)) = &runs[i].next {
                    heap.push(Reverse((*m, i)));
                }
                match &mut row {
                    Some(row) => row.absorb(r),
                    None => row = Some(r),
                }
            }
            if next_mem == Some(n) {
                let (_, r) = memory.next().expect("peeked");
                match &mut row {
                    Some(row) => row.absorb(r),
                    None => row = Some(r),
                }
            }
            let mut row = row.expect("a row of document n");
            let reused = covered(&mut row.ranges);
            writeln!(
                w,
                "{}\t{}\t{}\t{}\t{}\t{}\t{:.4}",
                field(&row.id),
                field(&row.title),
                field(&row.input),
                row.chars,
                row.cases,
                reused,
                reused as f64 / row.chars.max(1) as f64
            )?;
        }
        self.runs.clear();
        self.bytes = 0;
        Ok(())
    }
}

/// Reads one run of a [`DocumentTable`] row by row, one row ahead.
struct RunReader {
    reader: io::Take<io::BufReader<File>>,
    next: Option<(usize, DocumentRow)>,
}

impl RunReader {
    fn new(file: File, len: u64) -> io::Result<RunReader> {
        let reader = io::Read::take(io::BufReader::with_capacity(1 << 14, file), len);
        let mut run = RunReader { reader, next: None };
        run.advance()?;
        Ok(run)
    }

    fn advance(&mut self) -> io::Result<()> {
        self.next = match self.reader.limit() {
            0 => None,
            _ => Some(DocumentRow::read_from(&mut self.reader)?),
        };
        Ok(())
    }

    /// The next row, and the one after it read ahead.
    fn take(&mut self) -> io::Result<(usize, DocumentRow)> {
        let row = self.next.take().expect("a row is ahead");
        self.advance()?;
        Ok(row)
    }
}

impl ReuseSink for ReuseOutputDir {
    fn pair(&mut self, pair: &PairResult<'_>) -> io::Result<()> {
        self.write_pair(pair).map_err(|e| in_dir(&self.dir, e))
    }

    fn finish(&mut self, stats: &ReuseStats) -> io::Result<()> {
        self.write_rest(stats).map_err(|e| in_dir(&self.dir, e))
    }
}

/// `e`, saying that it happened in `dir` (an I/O error alone names no file).
fn in_dir(dir: &Path, e: io::Error) -> io::Error {
    io::Error::new(e.kind(), format!("in {}: {e}", dir.display()))
}

impl ReuseOutputDir {
    fn write_pair(&mut self, pair: &PairResult<'_>) -> io::Result<()> {
        self.start()?;
        write_case_lines(self.cases.as_mut().expect("started"), pair, self.texts)?;
        write_pair_row(self.pairs.as_mut().expect("started"), pair)?;
        self.documents.add_pair(pair)?;
        self.view.add_pair(pair)?;
        Ok(())
    }

    fn write_rest(&mut self, stats: &ReuseStats) -> io::Result<()> {
        self.start()?;
        let cases = self.cases.take();
        self.finish_file("reuse.jsonl", cases)?;
        let pairs = self.pairs.take();
        self.finish_file("pairs.tsv", pairs)?;
        let mut docs = self.open("documents.tsv")?;
        self.documents.write(&mut docs)?;
        self.finish_file("documents.tsv", Some(docs))?;
        let mut w = self.open("stats.json")?;
        serde_json::to_writer_pretty(&mut w, stats)?;
        w.write_all(b"\n")?;
        self.finish_file("stats.json", Some(w))?;
        self.view.finish(stats)?;
        let mut w = self.open("corpus.json")?;
        self.view.write_json(&mut w)?;
        self.finish_file("corpus.json", Some(w))
    }
}

/// `ranges` merged into disjoint ranges, in order.
fn merge(mut ranges: Vec<Range<usize>>) -> Vec<Range<usize>> {
    ranges.sort_by_key(|r| r.start);
    let mut out: Vec<Range<usize>> = Vec::with_capacity(ranges.len());
    for r in ranges {
        match out.last_mut() {
            Some(last) if r.start <= last.end => last.end = last.end.max(r.end),
            _ => out.push(r),
        }
    }
    out
}

/// Writes a PAN detection file per pair with passages, `SUSP-SRC.xml` (the documents' file
/// stems), into a directory, for `textreuse pan-eval`. A document's reference is the file name
/// of its input (else its title).
///
/// Two pairs whose names are the same (two documents of one input file, as in a JSON Lines
/// corpus, or `a-b` with `c` and `a` with `b-c`) are an error, not one file written twice:
/// the format needs one document per file, as PAN corpora have.
#[derive(Debug)]
pub struct PanOutput {
    dir: PathBuf,
    /// The file name of each pair written so far, with its documents' numbers.
    written: std::collections::HashMap<String, (usize, usize)>,
}

impl PanOutput {
    /// Detections into `dir` (created if needed).
    pub fn new(dir: impl Into<PathBuf>) -> PanOutput {
        PanOutput {
            dir: dir.into(),
            written: Default::default(),
        }
    }
}

fn reference(doc: &Document) -> String {
    doc.origin
        .source
        .as_deref()
        .and_then(|s| Path::new(s).file_name())
        .map_or_else(|| doc.title.clone(), |n| n.to_string_lossy().into_owned())
}

fn stem(name: &str) -> &str {
    name.strip_suffix(".txt").unwrap_or(name)
}

impl ReuseSink for PanOutput {
    fn pair(&mut self, pair: &PairResult<'_>) -> io::Result<()> {
        self.write_pair(pair).map_err(|e| in_dir(&self.dir, e))
    }
}

impl PanOutput {
    fn write_pair(&mut self, pair: &PairResult<'_>) -> io::Result<()> {
        if pair.cases.is_empty() {
            return Ok(());
        }
        std::fs::create_dir_all(&self.dir)?;
        let (susp, src) = (reference(pair.suspicious.1), reference(pair.source.1));
        let name = format!("{}-{}.xml", stem(&susp), stem(&src));
        let numbers = (pair.suspicious.0, pair.source.0);
        match self.written.get(&name) {
            Some(&first) if first != numbers => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    format!(
                        "two pairs would be written to {name} (documents {} and {}, then {} \
                         and {}): PAN detection files need one document per input file",
                        first.0, first.1, numbers.0, numbers.1
                    ),
                ));
            }
            _ => {
                self.written.insert(name.clone(), numbers);
            }
        }
        let path = self.dir.join(name);
        let detections: Vec<_> = pair
            .cases
            .iter()
            .map(|c| (c.suspicious.clone(), c.source.clone()))
            .collect();
        let mut w = BufWriter::new(File::create(path)?);
        pan::write_detections(&mut w, &susp, &src, &detections)?;
        w.flush()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn covered_counts_overlaps_once() {
        assert_eq!(covered(&mut [0..10, 5..15, 20..25]), 20);
        assert_eq!(covered(&mut []), 0);
        assert_eq!(merge(vec![5..8, 0..3, 2..6, 10..11]), vec![0..8, 10..11]);
    }

    proptest::proptest! {
        /// Rows spilled to runs on disk at any budget (one byte: a run per row) merge into the
        /// file the table writes from memory, whatever documents recur in which runs.
        #[test]
        fn documents_tsv_is_the_same_at_any_budget(
            adds in proptest::collection::vec((0usize..40, 1u64..4, 0usize..300, 1usize..200), 1..120),
            budget in proptest::prop_oneof![proptest::strategy::Just(1u64), 1u64..20_000],
        ) {
            let docs: Vec<Document> = (0..40u64)
                .map(|i| {
                    let mut d = Document::new(i * 3, format!("Title\t{i}"), "");
                    d.origin.source = Some(format!("input-{}.jsonl", i % 3).into());
                    d
                })
                .collect();
            let dir = tempfile::tempdir().unwrap();
            let mut small = DocumentTable::with_budget(budget, Some(dir.path().to_path_buf()));
            let mut all = DocumentTable::default();
            for &(n, cases, start, len) in &adds {
                let chars = 300 + n;
                for t in [&mut small, &mut all] {
                    t.add(n, &docs[n], chars, cases, [start..start + len, start / 2..start]).unwrap();
                }
            }
            proptest::prop_assert_eq!(all.runs_on_disk(), 0);
            if budget == 1 {
                proptest::prop_assert_eq!(small.runs_on_disk(), adds.len());
            }
            let (mut a, mut b) = (Vec::new(), Vec::new());
            small.write(&mut a).unwrap();
            all.write(&mut b).unwrap();
            proptest::prop_assert_eq!(String::from_utf8(a).unwrap(), String::from_utf8(b).unwrap());
        }
    }

    #[test]
    fn pan_files_of_two_pairs_never_share_a_name() {
        let dir = tempfile::tempdir().unwrap();
        let doc = |id: u64| {
            let mut d = Document::new(id, "t", "");
            d.origin.source = Some("corpus.jsonl".into());
            d
        };
        let (a, b, c) = (doc(1), doc(2), doc(3));
        let case = crate::ReuseCase {
            suspicious: 0..10,
            source: 0..10,
            suspicious_bytes: 0..10,
            source_bytes: 0..10,
            score: 1.0,
            profile: crate::profile("", "", 10, 10),
        };
        let cases = [case];
        fn pair<'a>(
            suspicious: (usize, &'a Document),
            source: (usize, &'a Document),
            cases: &'a [crate::ReuseCase],
        ) -> PairResult<'a> {
            PairResult {
                suspicious,
                source,
                texts: ("", ""),
                support: 1,
                cases,
            }
        }
        let mut out = PanOutput::new(dir.path());
        out.pair(&pair((1, &b), (0, &a), &cases)).unwrap();
        let e = out.pair(&pair((2, &c), (0, &a), &cases)).unwrap_err();
        assert!(
            e.to_string().contains("corpus.jsonl-corpus.jsonl.xml"),
            "{e}"
        );
        assert!(e.to_string().contains(dir.path().to_str().unwrap()), "{e}");
    }

    #[test]
    fn tsv_fields_stay_on_one_line() {
        assert_eq!(field("a\tb\nc"), "a b c");
    }
}
