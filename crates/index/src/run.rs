//! Whole inputs through an index: every document of a stream of [`Source`]s added, or queried,
//! signing in parallel and keeping input order, with `dedup`'s skip policy for bad inputs.
use rayon::prelude::*;
use textreuse_corpus::{Document, InputError, Progress, Source, Stage};
use textreuse_wikidump::Cleaner;

use crate::Error;
use crate::index::{DocumentQuery, Index, IndexWriter, Match, QueryOptions, UnitMatches};
use crate::params::SignedUnit;
use crate::plan::MemoryPlan;

/// What a run over inputs did.
#[derive(Clone, Debug, Default, PartialEq, Eq, serde::Serialize)]
#[non_exhaustive]
pub struct RunStats {
    /// Documents read.
    pub documents: u64,
    /// Their units signed (added, or queried).
    pub units: u64,
    /// Query runs: units with at least one match (not counted by
    /// [`Index::query_documents_all`], whose matches are documents).
    pub units_matched: u64,
    /// Query runs: documents with at least one matched unit (or, for
    /// [`Index::query_documents_all`], at least one matched document).
    pub documents_matched: u64,
    /// Bad files, records and damaged dump parts, reported and skipped.
    pub input_problems: u64,
}

/// Reads `sources` in chunks of documents (of at most `plan`'s documents and bytes), handing
/// each chunk to `f`; problems go to `progress` and are counted.
fn chunks<I, E>(
    plan: MemoryPlan,
    sources: I,
    progress: &dyn Progress,
    stats: &mut RunStats,
    mut f: impl FnMut(Vec<Document>, &mut RunStats) -> Result<(), E>,
) -> Result<(), E>
where
    I: IntoIterator<Item = Result<Source, InputError>>,
{
    let cleaner = Cleaner::new();
    let mut chunk = Vec::new();
    let mut bytes = 0;
    progress.start(Stage::ReadDocuments, None);
    for source in sources {
        match source {
            Ok(s) => {
                let doc = s.into_document(&cleaner);
                bytes += doc.text.len();
                chunk.push(doc);
                if chunk.len() >= plan.chunk_docs || bytes >= plan.chunk_bytes {
                    progress.advance(chunk.len() as u64);
                    f(std::mem::take(&mut chunk), stats)?;
                    bytes = 0;
                }
            }
            Err(e) => {
                stats.input_problems += 1;
                progress.input_problem(&e);
            }
        }
    }
    if !chunk.is_empty() {
        progress.advance(chunk.len() as u64);
        f(chunk, stats)?;
    }
    progress.finish();
    Ok(())
}

impl IndexWriter {
    /// Adds every document of `sources` (a [`textreuse_corpus::Inputs`], say), signing on all
    /// threads and adding in input order; bad inputs are reported to `progress` and skipped.
    /// Commits at the end (and whenever the batch fills half the memory budget).
    pub fn add_all<I>(&mut self, sources: I, progress: &dyn Progress) -> Result<RunStats, Error>
    where
        I: IntoIterator<Item = Result<Source, InputError>>,
    {
        let mut stats = RunStats::default();
        let plan = self.memory();
        chunks(plan, sources, progress, &mut stats, |docs, stats| {
            let signed = sign_all(self.index(), &docs);
            for (doc, units) in docs.iter().zip(&signed) {
                self.add_signed(doc, units)?;
                stats.documents += 1;
                stats.units += units.len() as u64;
            }
            Ok::<(), Error>(())
        })?;
        self.commit()?;
        Ok(stats)
    }
}

fn sign_all(index: &Index, docs: &[Document]) -> Vec<Vec<SignedUnit>> {
    docs.par_iter()
        .map_init(|| index.recipe(), |recipe, d| recipe.units(&d.text))
        .collect()
}

impl Index {
    /// Queries every document of `sources` against this index, on all threads, and hands each
    /// document with its units' matches to `each`, in input order (units without matches
    /// included). With `add`, each chunk of documents is then added to that writer (which
    /// must write to this index; this snapshot does not see what it adds, so a batch is not
    /// matched against itself). Bad inputs are reported to `progress` and skipped.
    pub fn query_all<I, E>(
        &self,
        sources: I,
        options: &QueryOptions,
        progress: &dyn Progress,
        mut add: Option<&mut IndexWriter>,
        mut each: impl FnMut(&Document, &[UnitMatches]) -> Result<(), E>,
    ) -> Result<RunStats, E>
    where
        I: IntoIterator<Item = Result<Source, InputError>>,
        E: From<Error>,
    {
        let mut stats = RunStats::default();
        let plan = self.memory();
        chunks(plan, sources, progress, &mut stats, |docs, stats| {
            type Queried = Result<(Vec<SignedUnit>, Vec<UnitMatches>), Error>;
            let results: Vec<Queried> = docs
                .par_iter()
                .map_init(
                    || self.recipe(),
                    |recipe, d| {
                        let units = recipe.units(&d.text);
                        let matches = self.match_units(&d.text, &units, recipe, options)?;
                        Ok((units, matches))
                    },
                )
                .collect();
            self.release_pages();
            for (doc, result) in docs.iter().zip(results) {
                let (units, matches) = result?;
                stats.documents += 1;
                stats.units += units.len() as u64;
                let matched = matches.iter().filter(|u| !u.matches.is_empty()).count() as u64;
                stats.units_matched += matched;
                stats.documents_matched += (matched > 0) as u64;
                each(doc, &matches)?;
                if let Some(w) = add.as_deref_mut() {
                    w.add_signed(doc, &units)?;
                }
            }
            Ok::<(), E>(())
        })?;
        if let Some(w) = add {
            w.commit()?;
        }
        Ok(stats)
    }

    /// Asks `question` ([`Index::query_top_k`] or [`Index::query_containment`]) of every
    /// document of `sources`, on all threads, and hands each document with the indexed
    /// documents answering it to `each`, in input order (documents without any included). Bad
    /// inputs are reported to `progress` and skipped; a containment threshold outside `0..=1`
    /// is [`Error::Threshold`] before anything is read.
    pub fn query_documents_all<I, E>(
        &self,
        sources: I,
        question: DocumentQuery,
        options: &QueryOptions,
        progress: &dyn Progress,
        mut each: impl FnMut(&Document, &[Match]) -> Result<(), E>,
    ) -> Result<RunStats, E>
    where
        I: IntoIterator<Item = Result<Source, InputError>>,
        E: From<Error>,
    {
        question.check()?;
        let mut stats = RunStats::default();
        let plan = self.memory();
        chunks(plan, sources, progress, &mut stats, |docs, stats| {
            type Queried = Result<(usize, Vec<Match>), Error>;
            let results: Vec<Queried> = docs
                .par_iter()
                .map_init(
                    || self.recipe(),
                    |recipe, d| {
                        let units = recipe.units(&d.text);
                        let found =
                            self.rank_documents(&d.text, &units, recipe, question, options)?;
                        Ok((units.len(), found))
                    },
                )
                .collect();
            self.release_pages();
            for (doc, result) in docs.iter().zip(results) {
                let (units, found) = result?;
                stats.documents += 1;
                stats.units += units as u64;
                stats.documents_matched += (!found.is_empty()) as u64;
                each(doc, &found)?;
            }
            Ok::<(), E>(())
        })?;
        Ok(stats)
    }
}
