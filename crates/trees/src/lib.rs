//! Gradient-boosted regression trees, evaluated.
//!
//! The classifiers of textreuse that are fitted rather than written by hand (the reuse-case
//! classes of `textreuse-reuse`, the cluster types of `textreuse-dedup`) are scikit-learn
//! `GradientBoostingClassifier`s fitted in the studies (`studies/*/fit.py`, which share
//! `studies/trees.py`) and written out as static tables of [`Node`]s. A [`Boosted`] model walks
//! them: each round adds, per class, the value of the leaf a case reaches, times the learning
//! rate, to the class's initial score; one class gives a probability through the logistic
//! function, several through softmax, as scikit-learn's `predict_proba` does.
//!
//! The fit compares single-precision values (scikit-learn's trees store their inputs as `f32`),
//! so each feature is rounded to `f32` before it is compared: every input reaches the same leaf
//! as in the fit, and the probabilities agree with `predict_proba` to rounding (each model's
//! fixture test checks 1e-12).
//!
//! ```
//! use textreuse_trees::{Boosted, Node};
//!
//! // Two rounds, two classes, each tree one split on feature 0 or 1.
//! static NODES: [Node; 12] = [
//!     Node::split(0, 0.5, 1, 2), Node::leaf(-1.0), Node::leaf(1.0),
//!     Node::split(0, 0.5, 4, 5), Node::leaf(1.0), Node::leaf(-1.0),
//!     Node::split(1, 2.0, 7, 8), Node::leaf(0.0), Node::leaf(0.5),
//!     Node::split(1, 2.0, 10, 11), Node::leaf(0.0), Node::leaf(-0.5),
//! ];
//! static MODEL: Boosted = Boosted::new(0.1, &[0.0, 0.0], &[0, 3, 6, 9], &NODES);
//!
//! assert_eq!(MODEL.classes(), 2);
//! let p = MODEL.probabilities(&[1.0, 3.0]);
//! assert!(p[0] > p[1]);
//! assert!((p.iter().sum::<f64>() - 1.0).abs() < 1e-15);
//! assert_eq!(MODEL.most_likely(&[0.0, 0.0]), 1);
//! ```
#![forbid(unsafe_code)]

/// One node of a tree: a split on one feature or a leaf.
///
/// A split sends a case to `left` when its feature (rounded to `f32`) is at most `threshold`,
/// else to `right`; node indices are into the model's node table. A leaf has `left == 0` (no
/// node points back to the table's first node, always a root) and holds its `value`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Node {
    feature: u16,
    left: u32,
    right: u32,
    threshold: f64,
    value: f64,
}

impl Node {
    /// A split on feature `feature` at `threshold`, to node `left` (at most) or `right`.
    ///
    /// # Panics
    ///
    /// At compile time in a static table (at run time otherwise) when `left` is 0: index 0 is a
    /// root, never a child.
    pub const fn split(feature: u16, threshold: f64, left: u32, right: u32) -> Node {
        assert!(left > 0, "a split's left child cannot be node 0, a root");
        Node {
            feature,
            left,
            right,
            threshold,
            value: 0.0,
        }
    }

    /// A leaf with `value`.
    pub const fn leaf(value: f64) -> Node {
        Node {
            feature: 0,
            left: 0,
            right: 0,
            threshold: 0.0,
            value,
        }
    }

    /// Whether this node is a leaf.
    pub const fn is_leaf(&self) -> bool {
        self.left == 0
    }
}

/// A gradient-boosted model: an initial score per class, a learning rate, and per round one
/// tree per class.
///
/// `roots` lists each round's roots class by class (round 0's class 0, class 1, ..., then round
/// 1's), so its length is a multiple of the number of classes, `init.len()`.
#[derive(Clone, Copy, Debug)]
pub struct Boosted<'a> {
    learning_rate: f64,
    init: &'a [f64],
    roots: &'a [u32],
    nodes: &'a [Node],
}

impl<'a> Boosted<'a> {
    /// A model of `init.len()` classes (one: a binary model's positive class).
    ///
    /// # Panics
    ///
    /// When `init` is empty or `roots` is not a whole number of rounds. A root or child index
    /// outside `nodes` panics when a case reaches it; [`Boosted::check`] finds those first.
    pub const fn new(
        learning_rate: f64,
        init: &'a [f64],
        roots: &'a [u32],
        nodes: &'a [Node],
    ) -> Boosted<'a> {
        assert!(!init.is_empty(), "a model has at least one class");
        assert!(
            roots.len().is_multiple_of(init.len()),
            "roots must hold one tree per class per round"
        );
        Boosted {
            learning_rate,
            init,
            roots,
            nodes,
        }
    }

    /// The number of classes (1 for a binary model).
    pub fn classes(&self) -> usize {
        self.init.len()
    }

    /// The number of rounds.
    pub fn rounds(&self) -> usize {
        self.roots.len() / self.init.len()
    }

    /// Whether every tree is well formed: its nodes inside the table, each reached by descending
    /// (no cycle), each split's feature below `features`. Meant for the models' tests.
    pub fn check(&self, features: usize) -> Result<(), String> {
        for &root in self.roots {
            let mut stack = vec![(root, 0usize)];
            while let Some((i, depth)) = stack.pop() {
                let Some(n) = self.nodes.get(i as usize) else {
                    return Err(format!(
                        "node {i} is outside the table of {}",
                        self.nodes.len()
                    ));
                };
                if depth > self.nodes.len() {
                    return Err(format!("the tree from root {root} has a cycle"));
                }
                if !n.is_leaf() {
                    if usize::from(n.feature) >= features {
                        return Err(format!("node {i} splits on feature {}", n.feature));
                    }
                    stack.push((n.left, depth + 1));
                    stack.push((n.right, depth + 1));
                }
            }
        }
        Ok(())
    }

    /// Checks the model against a fixture written with it by `studies/trees.py`: lines of
    /// tab-separated numbers, `features` of them then one probability per class (the positive
    /// class's for a one-class model), `#` lines skipped. Returns the number of cases, or the
    /// first case whose probabilities differ from the fixture's by more than `tolerance`.
    /// Meant for the models' tests.
    pub fn check_fixture(
        &self,
        fixture: &str,
        features: usize,
        tolerance: f64,
    ) -> Result<usize, String> {
        let mut checked = 0;
        for line in fixture.lines().filter(|l| !l.starts_with('#')) {
            let v = line
                .split('\t')
                .map(str::parse)
                .collect::<Result<Vec<f64>, _>>()
                .map_err(|e| format!("{e} in {line}"))?;
            if v.len() != features + self.classes() {
                return Err(format!(
                    "{} numbers, not {features} + {}: {line}",
                    v.len(),
                    self.classes()
                ));
            }
            let mine = self.probabilities(&v[..features]);
            if mine
                .iter()
                .zip(&v[features..])
                .any(|(a, b)| (a - b).abs() > tolerance)
            {
                return Err(format!("{mine:?} against {:?}", &v[features..]));
            }
            checked += 1;
        }
        Ok(checked)
    }

    /// Each class's raw score (before the logistic function or softmax) for a case's
    /// `features`, written to `scores` (one per class).
    ///
    /// # Panics
    ///
    /// When `scores` does not hold one value per class, or a split reads a feature beyond
    /// `features`.
    pub fn scores(&self, features: &[f64], scores: &mut [f64]) {
        assert_eq!(scores.len(), self.classes(), "one score per class");
        scores.copy_from_slice(self.init);
        for round in self.roots.chunks_exact(self.init.len()) {
            for (s, &root) in scores.iter_mut().zip(round) {
                *s += self.learning_rate * self.leaf(root, features);
            }
        }
    }

    /// The probability of each class for a case's `features`, as scikit-learn's
    /// `predict_proba` gives it: with one class, the probability of the positive class (the
    /// logistic function of its score); with several, their softmax.
    pub fn probabilities(&self, features: &[f64]) -> Vec<f64> {
        let mut p = vec![0.0; self.classes()];
        self.scores(features, &mut p);
        if let [s] = p[..] {
            p[0] = 1.0 / (1.0 + (-s).exp());
            return p;
        }
        let top = p.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        let mut sum = 0.0;
        for s in &mut p {
            *s = (*s - top).exp();
            sum += *s;
        }
        for s in &mut p {
            *s /= sum;
        }
        p
    }

    /// The index of the likeliest class (the first on a tie); for a one-class model, 1 when the
    /// positive class's probability is above one half, else 0.
    pub fn most_likely(&self, features: &[f64]) -> usize {
        let p = self.probabilities(features);
        if let [p] = p[..] {
            return usize::from(p > 0.5);
        }
        let mut best = 0;
        for (i, &x) in p.iter().enumerate() {
            if x > p[best] {
                best = i;
            }
        }
        best
    }

    /// The value of the leaf a case reaches from `root`.
    fn leaf(&self, root: u32, features: &[f64]) -> f64 {
        let mut i = root as usize;
        loop {
            let n = &self.nodes[i];
            if n.is_leaf() {
                return n.value;
            }
            let x = features[usize::from(n.feature)] as f32 as f64;
            i = if x <= n.threshold {
                n.left as usize
            } else {
                n.right as usize
            };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    static STUMPS: [Node; 3] = [Node::split(0, 0.5, 1, 2), Node::leaf(-2.0), Node::leaf(2.0)];

    #[test]
    fn one_class_is_the_logistic_of_its_score() {
        let m = Boosted::new(0.5, &[1.0], &[0, 0], &STUMPS);
        // 1 + 0.5 * 2 * 2 = 3 above the threshold; 1 - 2 = -1 at or below.
        let p = m.probabilities(&[0.7]);
        assert!((p[0] - 1.0 / (1.0 + (-3.0f64).exp())).abs() < 1e-15);
        let p = m.probabilities(&[0.5]);
        assert!((p[0] - 1.0 / (1.0 + 1.0f64.exp())).abs() < 1e-15);
        assert_eq!((m.most_likely(&[0.7]), m.most_likely(&[0.0])), (1, 0));
        assert_eq!((m.classes(), m.rounds()), (1, 2));
    }

    #[test]
    fn features_are_compared_in_single_precision() {
        // 0.5 + 1e-12 is above 0.5 in f64 but rounds to 0.5 in f32: the left leaf, as in the fit.
        let m = Boosted::new(1.0, &[0.0], &[0], &STUMPS);
        let mut s = [0.0];
        m.scores(&[0.5 + 1e-12], &mut s);
        assert_eq!(s, [-2.0]);
    }

    #[test]
    fn several_classes_are_a_softmax() {
        static NODES: [Node; 6] = [
            Node::split(0, 0.5, 1, 2),
            Node::leaf(0.0),
            Node::leaf(1.0),
            Node::split(0, 0.5, 4, 5),
            Node::leaf(1.0),
            Node::leaf(0.0),
        ];
        let m = Boosted::new(1.0, &[0.0, 0.0, 0.0], &[0, 3, 3], &NODES);
        let p = m.probabilities(&[1.0]);
        let e = 1f64.exp();
        assert!((p[0] - e / (e + 2.0)).abs() < 1e-15);
        assert!((p[1] - 1.0 / (e + 2.0)).abs() < 1e-15);
        assert_eq!(m.most_likely(&[1.0]), 0);
        assert_eq!(
            m.most_likely(&[0.0]),
            1,
            "a tie between 1 and 2 goes to the first"
        );
    }

    #[test]
    fn check_finds_bad_tables() {
        static BAD: [Node; 2] = [Node::split(3, 0.5, 1, 7), Node::leaf(0.0)];
        let m = Boosted::new(1.0, &[0.0], &[0], &BAD);
        assert!(m.check(1).unwrap_err().contains("feature 3"));
        assert!(m.check(4).unwrap_err().contains("node 7"));
        assert!(Boosted::new(1.0, &[0.0], &[0], &STUMPS).check(1).is_ok());
        static CYCLE: [Node; 2] = [Node::leaf(0.0), Node::split(0, 0.5, 1, 1)];
        assert!(
            Boosted::new(1.0, &[0.0], &[1], &CYCLE)
                .check(1)
                .unwrap_err()
                .contains("cycle")
        );
    }

    #[test]
    fn fixtures_are_checked_line_by_line() {
        let m = Boosted::new(0.5, &[1.0], &[0, 0], &STUMPS);
        let p = |x: f64| m.probabilities(&[x])[0];
        let good = format!("# x then p\n0.7\t{}\n0.2\t{}\n", p(0.7), p(0.2));
        assert_eq!(m.check_fixture(&good, 1, 1e-12), Ok(2));
        let off = format!("0.7\t{}\n", p(0.7) + 1e-6);
        assert!(
            m.check_fixture(&off, 1, 1e-12)
                .unwrap_err()
                .contains("against")
        );
        assert!(
            m.check_fixture("0.7\t0.5\t0.5\n", 1, 1e-12)
                .unwrap_err()
                .contains("numbers")
        );
        assert!(m.check_fixture("x\t0.5\n", 1, 1e-12).is_err());
    }

    #[test]
    #[should_panic(expected = "one tree per class per round")]
    fn roots_must_be_whole_rounds() {
        Boosted::new(1.0, &[0.0, 0.0], &[0], &STUMPS);
    }
}
