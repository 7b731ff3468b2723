//! Filters over a table's columns and titles, and seeded random samples of the rows that pass.
//!
//! A sample is defined without reference to how it is found: the seed fixes a random order of
//! all rows (a permutation), and the sample is the first `n` rows in that order that pass the
//! filter (after skipping `skip` of them, for the next page). Unselective filters find their
//! rows by walking the order from its start; selective ones by scanning every row and keeping
//! those earliest in the order. Both give the same rows, so a URL with a seed always shows the
//! same sample of the same output.
use std::collections::BinaryHeap;
use std::fmt;

use rayon::prelude::*;

use crate::index::{Names, TableIndex};
use crate::schema::Kind;

/// Most rows one sample returns.
pub const MAX_SAMPLE: usize = 500;

/// Rows a sample shows when the request does not say.
pub const DEFAULT_SAMPLE: usize = 20;

/// Most rows a sample may skip (its pages).
pub const MAX_SKIP: usize = 100_000;

/// Longest title query.
pub const MAX_TITLE_QUERY: usize = 512;

/// Rows tried in the permutation's order, per row wanted, before scanning every row instead.
const PROBES_PER_ROW: u64 = 64;

/// Tables with fewer rows are always scanned whole: it takes milliseconds, and the count of
/// matching rows is exact.
const SCAN_BELOW: u64 = 100_000;

/// What a sample asks for: the filter, how many rows, which page, which order.
#[derive(Debug, Clone, PartialEq)]
pub struct Query {
    /// Rows of a numeric column: (column, lowest, highest), both inclusive.
    pub ranges: Vec<(usize, f64, f64)>,
    /// Rows with any of the category bits: (column, bits).
    pub categories: Vec<(usize, u32)>,
    /// Rows with this id: (column, id).
    pub ids: Vec<(usize, u64)>,
    /// Rows that involve a title containing this text (ignoring case), or equal to it.
    pub title: Option<(String, bool)>,
    /// Rows that involve a website containing this text (ignoring case), or equal to it.
    pub website: Option<(String, bool)>,
    /// Rows to return.
    pub n: usize,
    /// Matching rows to skip first (the earlier pages).
    pub skip: usize,
    /// The seed of the order.
    pub seed: u64,
}

/// Why a query cannot be answered: each says what to change.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum QueryError {
    /// A parameter no column has.
    #[error("unknown filter `{name}`: the table's fields are {known}")]
    UnknownField {
        /// The parameter.
        name: String,
        /// The fields there are.
        known: String,
    },
    /// A value that is not what its parameter takes.
    #[error("`{name}={value}`: {expected}")]
    BadValue {
        /// The parameter.
        name: String,
        /// The value given (cut to 80 characters).
        value: String,
        /// What the parameter takes.
        expected: String,
    },
    /// A parameter given twice.
    #[error("`{name}` is given twice")]
    Repeated {
        /// The parameter.
        name: String,
    },
}

fn bad(name: &str, value: &str, expected: impl Into<String>) -> QueryError {
    QueryError::BadValue {
        name: name.to_string(),
        value: value.chars().take(80).collect(),
        expected: expected.into(),
    }
}

impl Query {
    /// A query from URL parameters: `COLUMN.min`, `COLUMN.max` for numbers, `COLUMN=a,b` for
    /// categories, `COLUMN=ID` for ids, `title`, `title_exact=1`, `website`, `website_exact=1`,
    /// `n`, `skip`, `seed`. An empty value is no filter.
    pub fn parse<'a>(
        index: &TableIndex,
        params: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<Query, QueryError> {
        let columns = index.table().columns();
        let mut query = Query {
            ranges: Vec::new(),
            categories: Vec::new(),
            ids: Vec::new(),
            title: None,
            website: None,
            n: DEFAULT_SAMPLE,
            skip: 0,
            seed: 1,
        };
        let mut seen: Vec<&str> = Vec::new();
        let mut exact = false;
        let mut title = None;
        let mut website_exact = false;
        let mut website = None;
        let mut bounds: Vec<(usize, f64, f64)> = Vec::new();
        for (name, value) in params {
            if seen.contains(&name) {
                return Err(QueryError::Repeated {
                    name: name.chars().take(80).collect(),
                });
            }
            seen.push(name);
            let value = value.trim();
            if value.is_empty() {
                continue;
            }
            match name {
                "n" => {
                    query.n = value
                        .parse()
                        .ok()
                        .filter(|n| (1..=MAX_SAMPLE).contains(n))
                        .ok_or_else(|| {
                            bad(name, value, format!("a count from 1 to {MAX_SAMPLE}"))
                        })?
                }
                "skip" => {
                    query.skip = value
                        .parse()
                        .ok()
                        .filter(|n| *n <= MAX_SKIP)
                        .ok_or_else(|| bad(name, value, format!("a count up to {MAX_SKIP}")))?
                }
                "seed" => {
                    query.seed = value
                        .parse()
                        .map_err(|_| bad(name, value, "a whole number from 0 to 2^64 - 1"))?
                }
                "title" | "website" => {
                    if value.chars().count() > MAX_TITLE_QUERY {
                        return Err(bad(
                            name,
                            value,
                            format!("at most {MAX_TITLE_QUERY} characters"),
                        ));
                    }
                    if name == "title" {
                        title = Some(value.to_string());
                    } else {
                        website = Some(value.to_string());
                    }
                }
                "title_exact" | "website_exact" => {
                    let flag = match value {
                        "1" | "true" => true,
                        "0" | "false" => false,
                        _ => return Err(bad(name, value, "1 or 0")),
                    };
                    if name == "title_exact" {
                        exact = flag;
                    } else {
                        website_exact = flag;
                    }
                }
                _ => {
                    let (field, bound) = match name.rsplit_once('.') {
                        Some((f, b @ ("min" | "max"))) => (f, Some(b)),
                        _ => (name, None),
                    };
                    let Some(c) = columns.iter().position(|c| c.name == field) else {
                        return Err(unknown(index, name));
                    };
                    match (columns[c].kind, bound) {
                        (Kind::Category, None) => {
                            let names = &index.meta().categories[c];
                            let mut bits = 0u32;
                            for v in value.split(',').map(str::trim).filter(|v| !v.is_empty()) {
                                let bit = names.iter().position(|n| n == v).ok_or_else(|| {
                                    bad(name, v, format!("one of: {}", list(names)))
                                })?;
                                bits |= 1 << bit;
                            }
                            query.categories.push((c, bits));
                        }
                        (Kind::Id, None) => {
                            let id = value.parse().map_err(|_| {
                                bad(name, value, "a whole number from 0 to 2^64 - 1")
                            })?;
                            query.ids.push((c, id));
                        }
                        (Kind::Real | Kind::Count, Some(bound)) => {
                            let x: f64 = value
                                .parse()
                                .ok()
                                .filter(|x: &f64| x.is_finite())
                                .ok_or_else(|| bad(name, value, "a finite number"))?;
                            let slot = match bounds.iter_mut().find(|b| b.0 == c) {
                                Some(slot) => slot,
                                None => {
                                    bounds.push((c, f64::NEG_INFINITY, f64::INFINITY));
                                    bounds.last_mut().expect("pushed")
                                }
                            };
                            if bound == "min" {
                                slot.1 = x;
                            } else {
                                slot.2 = x;
                            }
                        }
                        _ => return Err(unknown(index, name)),
                    }
                }
            }
        }
        for &(c, lo, hi) in &bounds {
            if lo > hi {
                let name = format!("{}.min", columns[c].name);
                return Err(bad(
                    &name,
                    &lo.to_string(),
                    format!("at most {}.max ({hi})", columns[c].name),
                ));
            }
        }
        query.ranges = bounds;
        query.title = title.map(|t| (t, exact));
        query.website = website.map(|w| (w, website_exact));
        Ok(query)
    }

    /// The rows the title and website filters allow, ascending (None: neither is given).
    pub fn named_rows(&self, index: &TableIndex) -> Option<Vec<u64>> {
        let rows_of = |set: Names, (query, exact): &(String, bool)| {
            let names = index.names(set);
            let mut rows: Vec<u64> = names
                .matching(query, *exact)
                .into_iter()
                .flat_map(|id| names.rows_of(id))
                .collect();
            rows.par_sort_unstable();
            rows.dedup();
            rows
        };
        let titles = self.title.as_ref().map(|q| rows_of(Names::Title, q));
        let websites = self.website.as_ref().map(|q| rows_of(Names::Website, q));
        match (titles, websites) {
            (Some(t), Some(w)) => Some(
                t.into_iter()
                    .filter(|r| w.binary_search(r).is_ok())
                    .collect(),
            ),
            (t, w) => t.or(w),
        }
    }

    /// Whether `row` passes the column filters (the title and website filters are applied
    /// by [`Query::named_rows`]).
    pub fn matches(&self, index: &TableIndex, row: u64) -> bool {
        self.ranges.iter().all(|&(c, lo, hi)| {
            let x = index.number(row, c);
            x >= lo && x <= hi
        }) && self
            .categories
            .iter()
            .all(|&(c, bits)| index.categories(row, c) & bits != 0)
            && self.ids.iter().all(|&(c, id)| index.id(row, c) == id)
    }
}

fn list(names: &[String]) -> String {
    if names.is_empty() {
        return "(none: no row has this field)".to_string();
    }
    names.join(", ")
}

fn unknown(index: &TableIndex, name: &str) -> QueryError {
    let mut known: Vec<String> = vec![
        "n".into(),
        "skip".into(),
        "seed".into(),
        "title".into(),
        "title_exact".into(),
        "website".into(),
        "website_exact".into(),
    ];
    for c in index.table().columns() {
        match c.kind {
            Kind::Category | Kind::Id => known.push(c.name.to_string()),
            Kind::Real | Kind::Count => {
                known.push(format!("{}.min", c.name));
                known.push(format!("{}.max", c.name));
            }
        }
    }
    QueryError::UnknownField {
        name: name.chars().take(80).collect(),
        known: known.join(", "),
    }
}

/// A sample: its rows in the order's sequence, and how many rows match in all.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sample {
    /// The rows, earliest in the seed's order first.
    pub rows: Vec<u64>,
    /// Rows that pass the filter: exact if `exact`, else estimated from the rows tried.
    pub matched: u64,
    /// Whether `matched` was counted over every row.
    pub exact: bool,
}

impl fmt::Display for Sample {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let about = if self.exact { "" } else { "about " };
        write!(
            f,
            "{} rows of {about}{} matching",
            self.rows.len(),
            self.matched
        )
    }
}

/// The sample `query` asks for.
pub fn sample(index: &TableIndex, query: &Query) -> Sample {
    let n = index.len();
    let order = Permutation::new(n, query.seed);
    let want = (query.skip + query.n) as u64;
    let take = |mut ranked: Vec<(u64, u64)>| -> Vec<u64> {
        ranked.sort_unstable();
        ranked
            .into_iter()
            .skip(query.skip)
            .map(|(_, row)| row)
            .collect()
    };
    if let Some(rows) = query.named_rows(index) {
        let (matched, ranked) = earliest(rows.par_iter().copied(), index, query, &order, want);
        return Sample {
            rows: take(ranked),
            matched,
            exact: true,
        };
    }
    // Walk the order from its start while that finds rows fast enough.
    let budget = if n < SCAN_BELOW {
        0
    } else {
        n.min(PROBES_PER_ROW.saturating_mul(want).max(4096))
    };
    let mut found = Vec::new();
    let mut tried = 0;
    while tried < budget && (found.len() as u64) < want {
        let row = order.at(tried);
        if query.matches(index, row) {
            found.push((tried, row));
        }
        tried += 1;
    }
    if found.len() as u64 == want || (n > 0 && tried == n) {
        let matched = if tried == n {
            found.len() as u64
        } else {
            ((found.len() as f64 / tried as f64) * n as f64).round() as u64
        };
        return Sample {
            rows: take(found),
            matched,
            exact: tried == n,
        };
    }
    let (matched, ranked) = earliest((0..n).into_par_iter(), index, query, &order, want);
    Sample {
        rows: take(ranked),
        matched,
        exact: true,
    }
}

/// Among `rows`, those passing `query`: how many, and the `want` earliest in `order` as
/// (rank, row).
fn earliest(
    rows: impl ParallelIterator<Item = u64>,
    index: &TableIndex,
    query: &Query,
    order: &Permutation,
    want: u64,
) -> (u64, Vec<(u64, u64)>) {
    let want = want as usize;
    let (count, heap) = rows
        .fold(
            || (0u64, BinaryHeap::<(u64, u64)>::new()),
            |(mut count, mut heap), row| {
                if query.matches(index, row) {
                    count += 1;
                    let rank = order.rank(row);
                    if heap.len() < want {
                        heap.push((rank, row));
                    } else if heap.peek().is_some_and(|&(top, _)| rank < top) {
                        heap.pop();
                        heap.push((rank, row));
                    }
                }
                (count, heap)
            },
        )
        .reduce(
            || (0, BinaryHeap::new()),
            |(a, mut ha), (b, hb)| {
                for item in hb {
                    if ha.len() < want {
                        ha.push(item);
                    } else if ha.peek().is_some_and(|&top| item < top) {
                        ha.pop();
                        ha.push(item);
                    }
                }
                (a + b, ha)
            },
        );
    (count, heap.into_vec())
}

/// A seeded permutation of `0..n`: a four-round Feistel network over the smallest even power
/// of two at least `n`, walked until it lands inside (cycle walking). [`Permutation::rank`] is
/// its inverse.
#[derive(Debug, Clone)]
pub struct Permutation {
    n: u64,
    half: u32,
    mask: u64,
    keys: [u64; 4],
}

/// SplitMix64's finalizer: a fixed 64-bit mixer (the same on every machine).
pub(crate) fn mix(mut x: u64) -> u64 {
    x = (x ^ (x >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    x = (x ^ (x >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    x ^ (x >> 31)
}

impl Permutation {
    /// The permutation of `0..n` fixed by `seed`.
    pub fn new(n: u64, seed: u64) -> Permutation {
        let bits = (64 - n.saturating_sub(1).leading_zeros()).max(2);
        let half = bits.div_ceil(2);
        let mut state = seed;
        let keys = std::array::from_fn(|_| {
            state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
            mix(state)
        });
        Permutation {
            n,
            half,
            mask: (1u64 << half) - 1,
            keys,
        }
    }

    fn round(&self, k: usize, x: u64) -> u64 {
        mix(x ^ self.keys[k]) & self.mask
    }

    fn forward(&self, x: u64) -> u64 {
        let (mut l, mut r) = (x >> self.half, x & self.mask);
        for k in 0..4 {
            (l, r) = (r, l ^ self.round(k, r));
        }
        (l << self.half) | r
    }

    fn backward(&self, y: u64) -> u64 {
        let (mut l, mut r) = (y >> self.half, y & self.mask);
        for k in (0..4).rev() {
            (l, r) = (r ^ self.round(k, l), l);
        }
        (l << self.half) | r
    }

    /// The row at position `i` of the order (`i < n`).
    pub fn at(&self, i: u64) -> u64 {
        let mut x = self.forward(i);
        while x >= self.n {
            x = self.forward(x);
        }
        x
    }

    /// The position of `row` in the order (`row < n`).
    pub fn rank(&self, row: u64) -> u64 {
        let mut i = self.backward(row);
        while i >= self.n {
            i = self.backward(i);
        }
        i
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    #[test]
    fn a_permutation_visits_every_row_once() {
        for n in [1, 2, 3, 5, 17, 1000, 4097] {
            let p = Permutation::new(n, 7);
            let mut seen: Vec<u64> = (0..n).map(|i| p.at(i)).collect();
            seen.sort_unstable();
            assert_eq!(seen, (0..n).collect::<Vec<_>>(), "n = {n}");
        }
    }

    #[test]
    fn different_seeds_give_different_orders() {
        let a: Vec<u64> = (0..50).map(|i| Permutation::new(1000, 1).at(i)).collect();
        let b: Vec<u64> = (0..50).map(|i| Permutation::new(1000, 2).at(i)).collect();
        assert_ne!(a, b);
    }

    proptest! {
        #[test]
        fn rank_inverts_at(n in 1u64..1_000_000, seed: u64, i in 0u64..1_000_000) {
            let i = i % n;
            let p = Permutation::new(n, seed);
            let row = p.at(i);
            prop_assert!(row < n);
            prop_assert_eq!(p.rank(row), i);
        }
    }
}
