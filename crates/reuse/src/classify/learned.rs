//! [`Classifier::Learned`](super::Classifier::Learned): gradient-boosted decision trees over a
//! case's measures ([`ReuseProfile::features`]), fitted to the labelled cases of the reuse-class
//! study (`studies/reuse/fit.py` writes `model.rs`; the sample it was scored on, the eleventh,
//! was never read by it).
//!
//! The model scores each class (content reuse, structure reuse, not reuse) as a sum of small
//! trees; the scores' softmax gives the three probabilities. A case is not reuse
//! ([`ReuseKind::Spurious`]) when that probability passes [`NONE_ABOVE`] (a threshold
//! below one half: the fit chose it so that the cases reported as reuse are reuse at least 96
//! times in 100 on its cross-validation), else the likelier of content and structure reuse.
//! Cases without titles are left to the [`Classifier::Rules`](super::Classifier::Rules)
//! rules: the model was fitted on articles only.
use super::{ReuseKind, ReuseProfile};

#[rustfmt::skip]
mod model;

pub use model::NONE_ABOVE;

/// The number of measures in [`ReuseProfile::features`].
pub const FEATURES: usize = 26;

/// The name of each of [`ReuseProfile::features`], in order (the study's files use them).
pub const FEATURE_NAMES: [&str; FEATURES] = [
    "jaccard_2",
    "jaccard_5",
    "jaccard_10",
    "jaccard_15",
    "entity_jaccard",
    "entities_min",
    "entities_max",
    "share_min",
    "share_max",
    "words_min",
    "words_max",
    "containment_2",
    "containment_3",
    "shared_4grams",
    "figure_share_min",
    "figure_share_max",
    "frame_2grams",
    "same_subject",
    "subject_within",
    "shared_bigram",
    "cross_mention",
    "siblings",
    "one_frame",
    "framed",
    "aspects",
    "related",
];

impl ReuseProfile {
    /// The case's measures as the numbers [`Classifier::Learned`](super::Classifier::Learned)
    /// reads, named by [`FEATURE_NAMES`]: symmetric in the two passages (the smaller and the
    /// larger of each pair of sides), and each of the titles' [`Topics`](super::Topics) as 1 or
    /// 0 (-1 when a title is unknown).
    pub fn features(&self) -> [f64; FEATURES] {
        let pair = |a: f64, b: f64| (a.min(b), a.max(b));
        let (entities_min, entities_max) = pair(self.entities.0 as f64, self.entities.1 as f64);
        let (share_min, share_max) = pair(self.source_share, self.suspicious_share);
        let (words_min, words_max) = pair(self.words.0 as f64, self.words.1 as f64);
        let (figure_min, figure_max) = pair(self.figure_share.0, self.figure_share.1);
        let topic = |f: fn(&super::Topics) -> bool| match &self.topics {
            Some(t) => f(t) as u8 as f64,
            None => -1.0,
        };
        let [j2, j5, j10, j15] = self.ngram_jaccard;
        [
            j2,
            j5,
            j10,
            j15,
            self.entity_jaccard,
            entities_min,
            entities_max,
            share_min,
            share_max,
            words_min,
            words_max,
            self.containment[0],
            self.containment[1],
            self.shared_4grams as f64,
            figure_min,
            figure_max,
            self.frame_2grams as f64,
            topic(|t| t.same_subject),
            topic(|t| t.subject_within),
            topic(|t| t.shared_bigram),
            topic(|t| t.cross_mention),
            topic(|t| t.siblings),
            topic(|t| t.one_frame),
            topic(|t| t.framed),
            topic(|t| t.aspects),
            topic(|t| t.related()),
        ]
    }
}

/// The probabilities of content reuse, structure reuse and no reuse the model gives a case's
/// [`ReuseProfile::features`].
pub fn probabilities(features: &[f64; FEATURES]) -> [f64; 3] {
    let p = model::MODEL.probabilities(features);
    [p[0], p[1], p[2]]
}

/// The model's kind for a case with titles (see the [module docs](self)).
pub(super) fn classify(p: &ReuseProfile) -> ReuseKind {
    let [content, structure, none] = probabilities(&p.features());
    if none > NONE_ABOVE {
        ReuseKind::Spurious
    } else if structure > content {
        ReuseKind::Structure
    } else {
        ReuseKind::Content
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Classifier, ReuseKind};

    /// The written trees give the fit's probabilities (the fixture: 64 tuning cases' features
    /// and scikit-learn's `predict_proba`, written by studies/reuse/fit.py with the model).
    #[test]
    fn the_trees_give_the_fits_probabilities() {
        let fixture = include_str!("learned/fixture.tsv");
        assert_eq!(model::MODEL.check_fixture(fixture, FEATURES, 1e-12), Ok(64));
        assert_eq!((model::MODEL.classes(), model::MODEL.rounds()), (3, 150));
        model::MODEL.check(FEATURES).unwrap();
    }

    #[test]
    fn features_do_not_depend_on_which_side_is_the_source() {
        let a = "Zalesie is a village in the administrative district of Gmina Bielsk, within \
            Płock County, Masovian Voivodeship, in east-central Poland. It lies 5 km north.";
        let b = "Nowa Wieś is a village in the administrative district of Gmina Drobin, within \
            Płock County, Masovian Voivodeship, in east-central Poland.";
        let p =
            Classifier::Learned.profile_titled(a, b, 400, b.len(), Some(("Zalesie", "Nowa Wieś")));
        let q =
            Classifier::Learned.profile_titled(b, a, b.len(), 400, Some(("Nowa Wieś", "Zalesie")));
        assert_eq!(p.features(), q.features());
        assert_eq!(p.kind, q.kind);
        // Titles unknown: the topics are -1 and the default rules decide.
        let untitled = Classifier::Learned.profile(a, b, 400, b.len());
        assert!(untitled.features()[17..].iter().all(|&x| x == -1.0));
        assert_eq!(
            untitled.kind,
            Classifier::Rules.profile(a, b, 400, b.len()).kind
        );
    }

    #[test]
    fn sibling_stubs_are_structure_and_one_topic_is_content() {
        // Two villages' stubs from one frame (the thesis's structure example) and one
        // article's paragraph copied into an article on a part of its topic.
        let a = "Zalesie is a village in the administrative district of Gmina Bielsk, within \
            Płock County, Masovian Voivodeship, in east-central Poland.";
        let b = "Nowa Wieś is a village in the administrative district of Gmina Drobin, within \
            Płock County, Masovian Voivodeship, in east-central Poland.";
        let p = Classifier::Learned.profile_titled(
            a,
            b,
            a.len(),
            b.len(),
            Some(("Zalesie, Płock County", "Nowa Wieś, Płock County")),
        );
        assert_eq!(p.kind, ReuseKind::Structure);
        let c = "The port of Burgas handles most of the country's oil imports, and the railway \
            from Sofia to Burgas carries most of its freight, while the motorway along the coast \
            was completed in 2015 after a decade of building.";
        let q = Classifier::Learned.profile_titled(
            c,
            c,
            5 * c.len(),
            2 * c.len(),
            Some(("Economy of Bulgaria", "Transport in Bulgaria")),
        );
        assert_eq!(q.kind, ReuseKind::Content);
    }
}
