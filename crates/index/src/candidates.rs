//! Candidate source documents of a query, as the plagiarism checker retrieves them: ONE
//! implementation of the per-document tally and the ranking, used by both the in-memory
//! [`MemoryIndex`](crate::MemoryIndex) and the persistent [`Index`](crate::Index), so that
//! `check --corpus` and `check --index` retrieve the same candidates.
//!
//! Each index looks up the band keys of a query chunk in its own storage (skipping keys of more
//! than its bucket cap) and hands the bucket members it found to a [`Tally`]; the tally sums,
//! per document, the band keys its chunks share with the query's chunks and keeps the best
//! estimated Jaccard similarity, and [`Tally::top`] ranks the documents.
use std::ops::Range;

use ahash::AHashMap;

/// The default bucket cap of chunk queries: band keys shared by more than this many chunks are
/// skipped (like stopwords), so a query chunk costs at most bands × this many lookups however
/// repetitive the corpus. Both [`MemoryIndex`](crate::MemoryIndex) (its default
/// [`MemoryIndexBuilder::max_bucket`](crate::MemoryIndexBuilder::max_bucket)) and
/// [`Index::candidate_documents`](crate::Index::candidate_documents) use it. Of the PAN 2013
/// training sources' 736,179 buckets (25,645 chunks), 6 hold more, the largest 162. The
/// shuffle's `DEFAULT_MAX_BUCKET` (dedup, reuse) is another rule under another name: it keeps
/// the first members of a large bucket instead of skipping it.
pub const DEFAULT_MAX_QUERY_BUCKET: usize = 100;

/// A candidate source document for a query, from
/// [`MemoryIndex::candidates`](crate::MemoryIndex::candidates) or
/// [`Index::candidate_documents`](crate::Index::candidate_documents).
///
/// Candidates are ranked by more shared band keys first, then higher best estimated Jaccard,
/// then lower document number.
#[derive(Clone, Debug, PartialEq)]
pub struct Candidate {
    /// The document: its number in the order of [`MemoryIndex::add`](crate::MemoryIndex::add),
    /// from 0, or its document number in a persistent index
    /// ([`Index::document`](crate::Index::document)).
    pub doc: usize,
    /// Band keys shared by a query chunk and a chunk of this document, summed over chunk pairs.
    pub shared_keys: usize,
    /// The largest estimated Jaccard similarity (of word n-gram sets) between a query chunk and
    /// a chunk of this document that share a band key.
    pub best_jaccard: f64,
    /// The corpus chunk of that best pair: an index into
    /// [`MemoryIndex::chunks`](crate::MemoryIndex::chunks), or an entry number of a persistent
    /// index.
    pub best_chunk: usize,
    /// Byte span in the query of that best pair's query chunk.
    pub best_query_span: Range<usize>,
}

/// Sorts `members` and calls `f(member, count)` once per distinct member, in ascending order:
/// the number of band keys a bucket member shares with the query unit whose buckets were
/// gathered into `members`.
pub(crate) fn count_members(members: &mut [u32], mut f: impl FnMut(u32, usize)) {
    members.sort_unstable();
    let mut i = 0;
    while i < members.len() {
        let id = members[i];
        let mut j = i;
        while j < members.len() && members[j] == id {
            j += 1;
        }
        f(id, j - i);
        i = j;
    }
}

/// The per-document tally of one query's candidates.
#[derive(Debug, Default)]
pub(crate) struct Tally {
    by_doc: AHashMap<usize, Candidate>,
}

impl Tally {
    /// Counts the bucket members of one query chunk (its span in the query: `query_span`):
    /// `members` holds each member once per shared band key, in any order (it is sorted).
    /// `resolve(member)` gives the member's document, its chunk number and its estimated
    /// Jaccard similarity with the query chunk, or `None` to leave it out (a removed
    /// document). Members are visited in ascending order, so of equally similar chunks the
    /// first counts as the best.
    pub(crate) fn add(
        &mut self,
        members: &mut [u32],
        query_span: &Range<usize>,
        mut resolve: impl FnMut(u32) -> Option<(usize, usize, f64)>,
    ) {
        count_members(members, |member, shared| {
            let Some((doc, chunk, jaccard)) = resolve(member) else {
                return;
            };
            let c = self.by_doc.entry(doc).or_insert_with(|| Candidate {
                doc,
                shared_keys: 0,
                best_jaccard: -1.0,
                best_chunk: chunk,
                best_query_span: query_span.clone(),
            });
            c.shared_keys += shared;
            if jaccard > c.best_jaccard {
                c.best_jaccard = jaccard;
                c.best_chunk = chunk;
                c.best_query_span = query_span.clone();
            }
        });
    }

    /// The candidates, best first (more shared keys, then higher best estimated Jaccard, then
    /// lower document number), at most `top` of them.
    pub(crate) fn top(self, top: usize) -> Vec<Candidate> {
        let mut candidates: Vec<Candidate> = self.by_doc.into_values().collect();
        candidates.sort_by(|a, b| {
            b.shared_keys
                .cmp(&a.shared_keys)
                .then(b.best_jaccard.total_cmp(&a.best_jaccard))
                .then(a.doc.cmp(&b.doc))
        });
        candidates.truncate(top);
        candidates
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn members_are_counted_in_order() {
        let mut members = [5, 1, 5, 3, 5, 1];
        let mut got = Vec::new();
        count_members(&mut members, |m, n| got.push((m, n)));
        assert_eq!(got, [(1, 2), (3, 1), (5, 3)]);
        count_members(&mut [], |_, _| unreachable!());
    }

    #[test]
    fn tally_sums_keys_and_ranks() {
        let mut tally = Tally::default();
        // Chunks 0 and 1 belong to document 0, chunk 2 to document 1, chunk 3 is removed.
        let resolve = |m: u32| match m {
            0 => Some((0, 0, 0.5)),
            1 => Some((0, 1, 0.5)),
            2 => Some((1, 2, 0.9)),
            _ => None,
        };
        tally.add(&mut [1, 0, 2, 3, 3], &(0..10), resolve);
        tally.add(&mut [2], &(10..20), resolve);
        let top = tally.top(5);
        assert_eq!(top.len(), 2);
        // Both documents share 2 keys; document 1's best Jaccard is higher, and its best pair
        // stays the first of equally similar ones.
        assert_eq!(
            (top[0].doc, top[0].shared_keys, top[0].best_chunk),
            (1, 2, 2)
        );
        assert_eq!(top[0].best_query_span, 0..10);
        // Document 0: one key through each of its chunks, the first of equal ones the best.
        assert_eq!(
            (top[1].doc, top[1].shared_keys, top[1].best_chunk),
            (0, 2, 0)
        );
        let mut tally = Tally::default();
        tally.add(&mut [0, 2], &(0..1), resolve);
        assert_eq!(
            tally.top(1)[0].doc,
            1,
            "ties on keys go to the higher Jaccard"
        );
    }
}
