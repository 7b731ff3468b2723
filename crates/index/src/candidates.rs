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

/// A candidate document for a query, from
/// [`MemoryIndex::candidates`](crate::MemoryIndex::candidates),
/// [`MemoryIndex::query_top_k`](crate::MemoryIndex::query_top_k),
/// [`MemoryIndex::query_containment`](crate::MemoryIndex::query_containment) or
/// [`Index::candidate_documents`](crate::Index::candidate_documents).
///
/// `candidates` ranks them by more shared band keys first, then higher best estimated Jaccard,
/// then lower document number; `query_top_k` by higher best estimated Jaccard, then lower
/// document number; `query_containment` by higher containment, then lower document number.
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
    /// The estimated containment of the query in this document, from 0 to 1: the share of the
    /// query covered by this document's chunks ([`unit_containment`] of each query chunk in its
    /// best chunk of this document that shares a band key, averaged over all the query's
    /// chunks weighted by their lengths; chunks without such a partner count as 0).
    pub containment: f64,
}

/// The containment of a query unit in an indexed unit, estimated from their Jaccard similarity
/// `jaccard` and their lengths (in any unit: characters, bytes): `|q ∩ x| / |q|`, which given
/// Jaccard similarity `J` and set sizes `|x| = r·|q|` is exactly `J·(1 + r) / (1 + J)`, at
/// most 1 and at most `r` (a unit cannot hold more than its own size).
///
/// Lengths stand in for the set sizes (a unit of `n` characters has about `n - 11` 12-character
/// shingles). With either length unknown (0: a signature inserted without text) `r` is 1, so
/// the estimate is `2J / (1 + J)`: 1 for a copy, about 0.89 at `J = 0.8`. The error of an
/// estimated `J` is multiplied by about `(1 + r) / (1 + J)²`, so estimates for a short query
/// unit inside a much longer indexed unit are rough; and a candidate pair's `J` is estimated
/// high when it barely shares a band key (that is how it became a candidate), which this
/// passes on. Verification computes the exact value.
///
/// ```
/// use textreuse_index::unit_containment;
///
/// assert_eq!(unit_containment(1.0, 120, 120), 1.0);
/// assert!((unit_containment(0.8, 100, 100) - 0.8889).abs() < 1e-4);
/// // A unit twice as long sharing a third of the union: it holds the whole query unit.
/// assert!((unit_containment(0.5, 100, 200) - 1.0).abs() < 1e-12);
/// // Half as long: at most half of the query unit can be in it.
/// assert!((unit_containment(0.5, 100, 50) - 0.5).abs() < 1e-12);
/// ```
pub fn unit_containment(jaccard: f64, query_len: u64, indexed_len: u64) -> f64 {
    let j = jaccard.clamp(0.0, 1.0);
    let r = if query_len == 0 || indexed_len == 0 {
        1.0
    } else {
        indexed_len as f64 / query_len as f64
    };
    (j * (1.0 + r) / (1.0 + j)).min(r).min(1.0)
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

/// What one bucket member (an indexed unit sharing band keys with the current query unit)
/// contributes to the tally.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Hit {
    /// Its document.
    pub doc: usize,
    /// Its chunk (entry) number.
    pub chunk: usize,
    /// Its estimated Jaccard similarity with the query unit.
    pub estimate: f64,
    /// What "best" means: the exact Jaccard similarity when the query verifies pairs, else
    /// `estimate`.
    pub score: f64,
    /// Its length, in the unit of the query unit's length (0 when unknown).
    pub len: u64,
}

/// One document of the tally: its [`Candidate`] and what building it needs.
#[derive(Clone, Debug)]
pub(crate) struct Tallied {
    /// The candidate (`best_jaccard` holds the best score: exact when pairs were verified).
    pub candidate: Candidate,
    /// Band keys shared by its best pair.
    pub best_shared: usize,
    /// The estimated Jaccard similarity of its best pair.
    pub best_estimate: f64,
    /// The query unit its `unit_best` is of, and that unit's weight.
    unit: usize,
    unit_weight: f64,
    /// The best containment estimate of that query unit in a unit of this document.
    unit_best: f64,
    /// Weighted containment of the query units before it.
    covered: f64,
}

impl Tallied {
    /// Adds the last query unit's coverage to `covered`.
    fn fold_unit(&mut self) {
        self.covered += self.unit_weight * self.unit_best;
        self.unit_best = 0.0;
        self.unit_weight = 0.0;
    }
}

/// How [`Tally::ranked`] orders and cuts the documents.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Order {
    /// More shared keys, then higher best score, then lower document number
    /// ([`MemoryIndex::candidates`](crate::MemoryIndex::candidates)); at most this many.
    SharedKeys(usize),
    /// Higher best score, then lower document number (top-k); at most this many.
    Nearest(usize),
    /// Containment at least this, higher first, then lower document number.
    Contained(f64),
}

/// The per-document tally of one query's candidates: the query's units are announced with
/// [`Tally::unit`], and the bucket members each shares band keys with handed to
/// [`Tally::add`].
#[derive(Debug, Default)]
pub(crate) struct Tally {
    by_doc: AHashMap<usize, Tallied>,
    /// The current query unit: its span, number (from 1), length and weight.
    span: Range<usize>,
    unit: usize,
    len: u64,
    weight: f64,
    /// The weights of all the query's units.
    total_weight: f64,
}

impl Tally {
    /// Starts the next query unit: its byte span in the query and its length (the weight of
    /// its coverage in containment; units of length 0 weigh 1).
    pub(crate) fn unit(&mut self, span: Range<usize>, len: u64) {
        self.span = span;
        self.unit += 1;
        self.len = len;
        self.weight = len.max(1) as f64;
        self.total_weight += self.weight;
    }

    /// Counts the bucket members of the current query unit (an index may call this once per
    /// part of its storage): `members` holds each member once per shared band key, in any
    /// order (it is sorted). `resolve(member)` gives what the member contributes, or `None`
    /// to leave it out (a removed document). Members are visited in ascending order, so of
    /// equally similar chunks the first counts as the best.
    pub(crate) fn add(&mut self, members: &mut [u32], mut resolve: impl FnMut(u32) -> Option<Hit>) {
        let never = self.try_add(members, |m| Ok::<_, std::convert::Infallible>(resolve(m)));
        match never {
            Ok(()) => {}
            Err(e) => match e {},
        }
    }

    /// [`Tally::add`] with a resolver that can fail (verification reads stored texts); the
    /// first error stops the count.
    pub(crate) fn try_add<E>(
        &mut self,
        members: &mut [u32],
        mut resolve: impl FnMut(u32) -> Result<Option<Hit>, E>,
    ) -> Result<(), E> {
        let mut result = Ok(());
        count_members(members, |member, shared| {
            if result.is_err() {
                return;
            }
            let hit = match resolve(member) {
                Ok(Some(hit)) => hit,
                Ok(None) => return,
                Err(e) => {
                    result = Err(e);
                    return;
                }
            };
            self.count(hit, shared);
        });
        result
    }

    fn count(&mut self, hit: Hit, shared: usize) {
        let span = &self.span;
        let c = self.by_doc.entry(hit.doc).or_insert_with(|| Tallied {
            candidate: Candidate {
                doc: hit.doc,
                shared_keys: 0,
                best_jaccard: -1.0,
                best_chunk: hit.chunk,
                best_query_span: span.clone(),
                containment: 0.0,
            },
            best_shared: 0,
            best_estimate: 0.0,
            unit: self.unit,
            unit_weight: self.weight,
            unit_best: 0.0,
            covered: 0.0,
        });
        c.candidate.shared_keys += shared;
        if hit.score > c.candidate.best_jaccard {
            c.candidate.best_jaccard = hit.score;
            c.candidate.best_chunk = hit.chunk;
            c.candidate.best_query_span = span.clone();
            c.best_shared = shared;
            c.best_estimate = hit.estimate;
        }
        if c.unit != self.unit {
            c.fold_unit();
            c.unit = self.unit;
            c.unit_weight = self.weight;
        }
        let contained = unit_containment(hit.score, self.len, hit.len);
        if contained > c.unit_best {
            c.unit_best = contained;
        }
    }

    /// The documents in `order`, with their containment computed.
    pub(crate) fn ranked(self, order: Order) -> Vec<Tallied> {
        let total = self.total_weight;
        let mut all: Vec<Tallied> = self
            .by_doc
            .into_values()
            .map(|mut t| {
                t.fold_unit();
                t.candidate.containment = if total > 0.0 {
                    (t.covered / total).min(1.0)
                } else {
                    0.0
                };
                t
            })
            .collect();
        let by_doc = |a: &Tallied, b: &Tallied| a.candidate.doc.cmp(&b.candidate.doc);
        match order {
            Order::SharedKeys(top) => {
                all.sort_by(|a, b| {
                    let (a_, b_) = (&a.candidate, &b.candidate);
                    b_.shared_keys
                        .cmp(&a_.shared_keys)
                        .then(b_.best_jaccard.total_cmp(&a_.best_jaccard))
                        .then(by_doc(a, b))
                });
                all.truncate(top);
            }
            Order::Nearest(k) => {
                all.sort_by(|a, b| {
                    b.candidate
                        .best_jaccard
                        .total_cmp(&a.candidate.best_jaccard)
                        .then(by_doc(a, b))
                });
                all.truncate(k);
            }
            Order::Contained(threshold) => {
                all.retain(|t| t.candidate.containment >= threshold);
                all.sort_by(|a, b| {
                    b.candidate
                        .containment
                        .total_cmp(&a.candidate.containment)
                        .then(by_doc(a, b))
                });
            }
        }
        all
    }

    /// The candidates in `order` ([`Tally::ranked`] without what only an index needs).
    pub(crate) fn candidates(self, order: Order) -> Vec<Candidate> {
        self.ranked(order)
            .into_iter()
            .map(|t| t.candidate)
            .collect()
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

    /// Chunks 0 and 1 belong to document 0, chunk 2 to document 1, chunk 3 is removed; all
    /// of length 10.
    fn resolve(m: u32) -> Option<Hit> {
        let (doc, estimate) = match m {
            0 | 1 => (0, 0.5),
            2 => (1, 0.9),
            _ => return None,
        };
        Some(Hit {
            doc,
            chunk: m as usize,
            estimate,
            score: estimate,
            len: 10,
        })
    }

    #[test]
    fn tally_sums_keys_and_ranks() {
        let mut tally = Tally::default();
        tally.unit(0..10, 10);
        tally.add(&mut [1, 0, 2, 3, 3], resolve);
        tally.unit(10..20, 10);
        tally.add(&mut [2], resolve);
        let top = tally.candidates(Order::SharedKeys(5));
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
        tally.unit(0..1, 1);
        tally.add(&mut [0, 2], resolve);
        assert_eq!(
            tally.candidates(Order::SharedKeys(1))[0].doc,
            1,
            "ties on keys go to the higher Jaccard"
        );
    }

    #[test]
    fn nearest_ranks_by_score_then_document() {
        let mut tally = Tally::default();
        tally.unit(0..10, 10);
        // Document 0 shares more keys (3) but document 1 is more similar.
        tally.add(&mut [0, 0, 1, 2], resolve);
        let near = tally.candidates(Order::Nearest(5));
        assert_eq!(near.iter().map(|c| c.doc).collect::<Vec<_>>(), [1, 0]);
        // Equal scores: the lower document number first, whatever the insertion order.
        let mut tally = Tally::default();
        tally.unit(0..10, 10);
        let same = |m: u32| {
            Some(Hit {
                doc: 9 - m as usize,
                chunk: m as usize,
                estimate: 0.7,
                score: 0.7,
                len: 10,
            })
        };
        tally.add(&mut [0, 1, 2, 3], same);
        let near = tally.candidates(Order::Nearest(3));
        assert_eq!(near.iter().map(|c| c.doc).collect::<Vec<_>>(), [6, 7, 8]);
        assert!(Tally::default().candidates(Order::Nearest(3)).is_empty());
        let mut tally = Tally::default();
        tally.unit(0..10, 10);
        tally.add(&mut [0, 1], same);
        assert!(tally.candidates(Order::Nearest(0)).is_empty(), "k = 0");
    }

    #[test]
    fn containment_weighs_units_by_length() {
        let mut tally = Tally::default();
        // Three query units of lengths 10, 30 and 60; document 1 (chunk 2, estimate 0.9)
        // matches the first two, the second through two calls (two parts of an index) and the
        // better of them counts once; document 0 (estimate 0.5) matches the last.
        tally.unit(0..10, 10);
        tally.add(&mut [2], resolve);
        tally.unit(10..40, 30);
        tally.add(&mut [2], resolve);
        tally.add(&mut [2, 2], resolve);
        tally.unit(40..100, 60);
        tally.add(&mut [0], resolve);
        let c = |j: f64, q: u64| unit_containment(j, q, 10);
        let all = tally.candidates(Order::Contained(0.0));
        assert_eq!(all.len(), 2);
        let (one, zero) = if all[0].doc == 1 {
            (&all[0], &all[1])
        } else {
            (&all[1], &all[0])
        };
        let want_one = (10.0 * c(0.9, 10) + 30.0 * c(0.9, 30)) / 100.0;
        assert!((one.containment - want_one).abs() < 1e-12, "{one:?}");
        assert!((zero.containment - 60.0 * c(0.5, 60) / 100.0).abs() < 1e-12);
        assert_eq!(one.shared_keys, 4);
        // Ranked by containment, and cut at the threshold.
        assert!(all[0].containment >= all[1].containment);
        let mut tally = Tally::default();
        tally.unit(0..10, 10);
        tally.add(&mut [0, 2], resolve);
        let above = tally.candidates(Order::Contained(0.9));
        assert_eq!(above.iter().map(|c| c.doc).collect::<Vec<_>>(), [1]);
        assert!(above[0].containment >= 0.9);
    }

    #[test]
    fn unit_containment_is_a_fraction() {
        for j in [0.0, 0.1, 0.5, 0.9, 1.0, 1.5, -0.2] {
            for (q, x) in [(0, 0), (10, 0), (100, 100), (100, 10), (10, 1000)] {
                let c = unit_containment(j, q, x);
                assert!((0.0..=1.0).contains(&c), "{j} {q} {x}: {c}");
                // Never below the Jaccard similarity when the indexed unit is no shorter.
                if x >= q {
                    assert!(c >= j.clamp(0.0, 1.0) - 1e-12);
                }
            }
        }
        assert_eq!(unit_containment(1.0, 0, 0), 1.0);
        assert_eq!(unit_containment(0.0, 50, 50), 0.0);
        // A unit a tenth as long holds at most a tenth of the query unit.
        assert!(unit_containment(1.0, 100, 10) <= 0.1 + 1e-12);
    }
}
