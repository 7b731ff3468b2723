use std::path::{Path, PathBuf};

use proptest::prelude::*;

use super::*;
use crate::pan::{Annotation, CASE_FEATURE, Evaluation, parse_annotations};

fn slice_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../testdata/align")
}

/// Aligns every pair of the testdata slice and scores it against the truth.
#[test]
fn slice_plagdet() {
    let dir = slice_dir();
    let pairs = std::fs::read_to_string(dir.join("pairs")).unwrap();
    let aligner = Aligner::new();
    let mut eval = Evaluation::new();
    for line in pairs.lines() {
        let (susp, src) = line.split_once(' ').unwrap();
        let st = std::fs::read_to_string(dir.join("susp").join(susp)).unwrap();
        let so = std::fs::read_to_string(dir.join("src").join(src)).unwrap();
        let name = format!(
            "{}-{}.xml",
            susp.trim_end_matches(".txt"),
            src.trim_end_matches(".txt")
        );
        let truth = std::fs::read_to_string(dir.join("truth").join(name)).unwrap();
        eval.add_cases(parse_annotations(&truth, CASE_FEATURE).unwrap());
        for p in aligner.align(&so, &st) {
            let (s, t) = p.char_ranges(&so, &st);
            eval.add_detections([Annotation {
                this_reference: susp.into(),
                this_offset: t.start,
                this_length: t.len(),
                source_reference: src.into(),
                source_offset: s.start,
                source_length: s.len(),
            }]);
        }
    }
    let s = eval.scores();
    // 0.98996 when written; every case found, nothing in the no-plagiarism pair.
    assert_eq!((s.cases, s.detected_cases), (5, 5), "{s}");
    assert!(s.plagdet > 0.95, "{s}");
}

#[test]
fn verbatim_copy_is_found_with_char_offsets() {
    let shared = "Die Würde des Menschen ist unantastbar, sagte der Richter zu allen. \
        Sie zu achten und zu schützen ist Verpflichtung aller staatlichen Gewalt überall. \
        Das Deutsche Volk bekennt sich darum zu unverletzlichen Menschenrechten heute.";
    let source =
        format!("Erste Zeile über etwas ganz anderes hier. {shared} Ende des Textes jetzt.");
    let susp = format!("Völlig andere Einleitung über Gärten und Bäume. {shared}");
    let a = Aligner::builder().min_passage_len(40).build().unwrap();
    let found = a.align(&source, &susp);
    assert_eq!(found.len(), 1, "{found:?}");
    let p = &found[0];
    assert_eq!(&source[p.source.clone()], shared);
    assert_eq!(&susp[p.suspicious.clone()], shared);
    let (s, t) = p.char_ranges(&source, &susp);
    assert_eq!(s.start, source[..p.source.start].chars().count());
    assert_eq!(t.len(), shared.chars().count());
    assert!(p.score > 0.99 && p.score <= 1.0 + 1e-9);
}

#[test]
fn unrelated_documents_give_nothing() {
    let a = "The quick brown fox jumps over the lazy dog near the river bank today. ".repeat(5);
    let b = "Quantum chromodynamics describes strong interactions between quarks and gluons. "
        .repeat(5);
    assert!(Aligner::new().align(&a, &b).is_empty());
    assert!(Aligner::new().align("", &b).is_empty());
    assert!(Aligner::new().align(&a, "").is_empty());
}

#[test]
fn builder_rejects_bad_settings() {
    assert!(matches!(
        Aligner::builder().cosine_threshold(1.5).build(),
        Err(BuildError::Threshold {
            name: "cosine_threshold",
            ..
        })
    ));
    assert!(matches!(
        Aligner::builder().dice_threshold(f64::NAN).build(),
        Err(BuildError::Threshold { .. })
    ));
    assert!(matches!(
        Aligner::builder().best_passage_ratio(1.2).build(),
        Err(BuildError::Threshold {
            name: "best_passage_ratio",
            ..
        })
    ));
    assert!(matches!(
        Aligner::builder().edge_density(-0.1).build(),
        Err(BuildError::Threshold {
            name: "edge_density",
            ..
        })
    ));
    assert_eq!(
        Aligner::builder()
            .sentence_seeds(false)
            .build()
            .unwrap_err(),
        BuildError::NoSeeds
    );
    assert_eq!(
        Aligner::builder().ngram(Some(0)).build().unwrap_err(),
        BuildError::ZeroNgram
    );
    assert_eq!(
        Aligner::builder()
            .fallback_ngram(Some(0))
            .build()
            .unwrap_err(),
        BuildError::ZeroNgram
    );
    assert!(matches!(
        Aligner::builder().summary_ratio(0.0).build(),
        Err(BuildError::SummaryRatio(_))
    ));
    assert_eq!(
        Aligner::builder().max_postings(0).build().unwrap_err(),
        BuildError::ZeroCap("max_postings")
    );
    assert_eq!(
        Aligner::builder().max_seeds(0).build().unwrap_err(),
        BuildError::ZeroCap("max_seeds")
    );
    assert!(
        Aligner::builder()
            .sentence_seeds(false)
            .ngram(Some(3))
            .stopword_ngram(Some(8))
            .build()
            .is_ok()
    );
}

#[test]
fn ngram_seeds_find_verbatim_copies() {
    let shared = "alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi \
        omicron pi rho sigma tau upsilon phi chi psi omega. ";
    let source = format!("one two three. {}", shared.repeat(3));
    let susp = format!("{} four five six.", shared.repeat(3));
    let a = Aligner::builder()
        .sentence_seeds(false)
        .ngram(Some(3))
        .min_passage_len(20)
        .build()
        .unwrap();
    assert!(!a.align(&source, &susp).is_empty());
}

/// `sentences` sentences of made-up words (almost every word occurs once), one passage,
/// repeated `copies` times.
fn copies(sentences: usize, copies: usize) -> String {
    let mut word = made_up_words(0x9e37_79b9_7f4a_7c15);
    let mut passage = String::new();
    for _ in 0..sentences {
        let words: Vec<String> = (0..12).map(|_| word()).collect();
        passage.push_str(&words.join(" "));
        passage.push_str(". ");
    }
    passage.repeat(copies)
}

/// Made-up words of seven letters, a different one each call (a fixed sequence per `seed`).
fn made_up_words(seed: u64) -> impl FnMut() -> String {
    let mut x = seed;
    move || {
        (0..7)
            .map(|_| {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                (b'a' + (x >> 59) as u8 % 26) as char
            })
            .collect()
    }
}

/// A reworded passage whose sentences are too different to seed: six short source sentences
/// became one long suspicious sentence (Dice of each sentence pair below the threshold), with
/// one word in eight replaced. Only the fallback 4-grams find it.
#[test]
fn fallback_ngrams_find_passages_sentences_miss() {
    let mut word = made_up_words(0x2545_f491_4f6c_dd1d);
    let sentence = |word: &mut dyn FnMut() -> String, n: usize| {
        (0..n).map(|_| word()).collect::<Vec<_>>().join(" ")
    };
    let reused: Vec<Vec<String>> = (0..6).map(|_| (0..8).map(|_| word()).collect()).collect();
    let (intro, outro) = (sentence(&mut word, 12), sentence(&mut word, 12));
    let (intro2, outro2) = (sentence(&mut word, 12), sentence(&mut word, 12));
    let source = format!(
        "{intro}. {}. {outro}.",
        reused
            .iter()
            .map(|s| s.join(" "))
            .collect::<Vec<_>>()
            .join(". ")
    );
    let mut reworded = Vec::new();
    for (i, w) in reused.iter().flatten().enumerate() {
        reworded.push(if i % 8 == 5 { word() } else { w.clone() });
    }
    let suspicious = format!("{intro2}. {}. {outro2}.", reworded.join(" "));
    let start = source.find(&reused[0][0]).unwrap();
    let end = source.find(&reused[5][7]).unwrap() + 7;

    let off = Aligner::builder().fallback_ngram(None).build().unwrap();
    assert!(off.align(&source, &suspicious).is_empty());
    let passages = Aligner::new().align(&source, &suspicious);
    assert_eq!(passages.len(), 1, "{passages:?}");
    let p = &passages[0];
    assert!(p.source.start <= start && p.source.end >= end, "{p:?}");
    assert!(p.source.end <= source.len() - outro.len(), "{p:?}");
    assert!(
        suspicious[p.suspicious.clone()].contains(&reworded.join(" ")),
        "{p:?}"
    );
}

/// A passage copied 90 times, aligned with itself: every sentence is identical to 90 sentences
/// of the other document, under the postings cap. The work is bounded by the caps, and grows
/// linearly with the input.
#[test]
fn repetitive_input_does_bounded_work() {
    let aligner = Aligner::new();
    let (p, c) = (aligner.max_postings as u64, aligner.max_seeds as u64);
    let text = copies(10, 90);
    let (passages, w) = aligner.align_counted(&text, &text);
    assert!(!passages.is_empty());
    assert_eq!(w.sentences, (900, 900));
    assert_eq!(w.terms_over_cap, 0);
    // Each suspicious term visits at most the cap of postings, and so does each fallback
    // 4-gram (at most one per word).
    let grams = 900 * 12;
    assert!(w.postings <= p * (w.susp_terms + grams), "{w:?}");
    assert!(w.seeds <= c * 900, "{w:?}");
    // Three extensions (gaps 4, 4 for the fallback seeds, and 24), each re-clustering at most
    // once per gap down to 0.
    let extensions = (4 + 1 + 4 + 1 + 24 + 1) as u64;
    assert!(
        w.cluster_steps <= u64::from(crate::align::MAX_CLUSTER_ROUNDS) * w.seeds * extensions,
        "{w:?}"
    );
    assert_eq!(w.clusters_abandoned, 0);
    // The caps bind: without them every sentence keeps its 90 copies as seeds.
    let uncapped = Aligner::builder()
        .max_postings(usize::MAX)
        .max_seeds(usize::MAX)
        .build()
        .unwrap();
    assert_eq!(uncapped.align_counted(&text, &text).1.seeds, 900 * 90);
    // Twice the input (twice the distinct sentences, as many copies): no counter more than
    // doubles, give or take rounding.
    let text2 = copies(20, 90);
    let (_, w2) = aligner.align_counted(&text2, &text2);
    for (name, a, b) in [
        ("postings", w.postings, w2.postings),
        ("candidates", w.candidates, w2.candidates),
        ("seeds", w.seeds, w2.seeds),
        ("cluster_steps", w.cluster_steps, w2.cluster_steps),
        ("validation_terms", w.validation_terms, w2.validation_terms),
    ] {
        assert!(b <= 2 * a + a / 10, "{name}: {a} -> {b}");
    }
}

/// Sentences from a vocabulary of 20 words: every term is in more source sentences than the
/// cap, so all are left out, seeding visits nothing and there are no passages.
#[test]
fn over_frequent_terms_are_left_out() {
    let vocab = [
        "river", "mountain", "forest", "village", "market", "harbour", "engine", "garden",
        "winter", "lantern", "copper", "silver", "meadow", "castle", "bridge", "thunder",
        "orchard", "canyon", "glacier", "desert",
    ];
    let doc = |seed: u64| {
        let mut x = seed;
        let mut out = String::new();
        for _ in 0..400 {
            for w in 0..10 {
                x = x.wrapping_mul(6_364_136_223_846_793_005).wrapping_add(1);
                out.push_str(vocab[(x >> 33) as usize % vocab.len()]);
                out.push_str(if w == 9 { ". " } else { " " });
            }
        }
        out
    };
    let (a, b) = (doc(1), doc(2));
    let no_fallback = Aligner::builder().fallback_ngram(None).build().unwrap();
    let (passages, w) = no_fallback.align_counted(&a, &b);
    assert_eq!(w.terms_over_cap, 20);
    assert_eq!((w.postings, w.seeds), (0, 0));
    assert!(passages.is_empty());
    // The fallback 4-grams of these words are rarer than the cap, and shared by chance: they
    // seed, but a passage without terms has no similarity to validate.
    let (passages, w) = Aligner::new().align_counted(&a, &b);
    assert_eq!((w.terms_over_cap, w.seeds), (20, 0));
    assert!(passages.is_empty());
}

/// The seeds cap leaves room for a source passage reused several times.
#[test]
fn a_passage_copied_twice_is_found_twice() {
    let passage = copies(6, 1);
    let source = format!(
        "An introduction about harbours, ships and their cargo from distant ports. {passage}\
         A closing remark on the history of bridges over wide rivers."
    );
    let filler =
        "Completely unrelated words about gardening tomatoes and weather today. ".repeat(8);
    let susp = format!("{filler}{passage}{filler}{passage}{filler}");
    let found = Aligner::new().align(&source, &susp);
    assert_eq!(found.len(), 2, "{found:?}");
    for p in &found {
        assert_eq!(susp[p.suspicious.clone()].trim(), passage.trim());
    }
}

/// A pair with a verbatim copy and, elsewhere, a passage with every other word replaced: the
/// second scores about half the first, so the default drops it and a ratio of 0 keeps it.
#[test]
fn passages_much_weaker_than_the_pairs_best_are_dropped() {
    let mut word = made_up_words(0x1b87_3593_cc9e_2d51);
    let mut sentences = |n: usize| -> Vec<Vec<String>> {
        (0..n).map(|_| (0..12).map(|_| word()).collect()).collect()
    };
    let (copied, reworded, filler) = (sentences(6), sentences(6), sentences(12));
    let mut replacements = sentences(6).into_iter().flatten();
    let half: Vec<Vec<String>> = reworded
        .iter()
        .map(|s| {
            s.iter()
                .enumerate()
                .map(|(i, w)| match i % 2 {
                    0 => w.clone(),
                    _ => replacements.next().unwrap(),
                })
                .collect()
        })
        .collect();
    let join = |s: &[Vec<String>]| {
        s.iter()
            .map(|s| s.join(" ") + ".")
            .collect::<Vec<_>>()
            .join(" ")
    };
    let source = format!(
        "{} {} {}",
        join(&copied),
        join(&filler[..6]),
        join(&reworded)
    );
    let susp = format!("{} {} {}", join(&half), join(&filler[6..]), join(&copied));

    let all = Aligner::builder()
        .best_passage_ratio(0.0)
        .build()
        .unwrap()
        .align(&source, &susp);
    assert_eq!(all.len(), 2, "{all:?}");
    let (weak, strong) = (&all[0], &all[1]);
    assert!(
        weak.score < DEFAULT_BEST_PASSAGE_RATIO * strong.score,
        "{all:?}"
    );
    assert_eq!(susp[strong.suspicious.clone()].trim(), join(&copied));

    let kept = Aligner::new().align(&source, &susp);
    assert_eq!(kept.len(), 1, "{kept:?}");
    assert_eq!(kept[0].suspicious, strong.suspicious);
    // Filtering keeps exactly the passages at or above the share of the best score.
    let best = all.iter().map(|p| p.score).fold(0.0, f64::max);
    let expected: Vec<_> = all
        .iter()
        .filter(|p| p.score >= DEFAULT_BEST_PASSAGE_RATIO * best)
        .map(|p| (p.source.clone(), p.suspicious.clone()))
        .collect();
    let got: Vec<_> = kept
        .iter()
        .map(|p| (p.source.clone(), p.suspicious.clone()))
        .collect();
    assert_eq!(got, expected);
}

fn text() -> impl Strategy<Value = String> {
    // Words from a small vocabulary (so that seeds happen), punctuation, newlines and some
    // multi-byte characters.
    let token = prop_oneof![
        4 => prop::sample::select(vec![
            "stone", "river", "house", "gärten", "naïve", "über", "the", "of", "cat", "and",
            "mountain", "日本", "runs", "running", "ran",
        ])
        .prop_map(str::to_string),
        1 => prop::sample::select(vec![". ", "! ", "? ", "\n\n", ", ", " ", "é", "—"])
            .prop_map(str::to_string),
        1 => any::<char>().prop_map(|c| c.to_string()),
    ];
    prop::collection::vec(token, 0..200).prop_map(|v| v.join(" "))
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    #[test]
    fn passages_are_in_bounds_on_char_boundaries(a in text(), b in text(), copy in any::<bool>()) {
        let b = if copy { format!("{b} {a}") } else { b };
        let aligner = Aligner::builder().min_passage_len(10).build().unwrap();
        for p in aligner.align(&a, &b) {
            prop_assert!(p.source.start < p.source.end && p.source.end <= a.len());
            prop_assert!(p.suspicious.start < p.suspicious.end && p.suspicious.end <= b.len());
            prop_assert!(a.is_char_boundary(p.source.start) && a.is_char_boundary(p.source.end));
            prop_assert!(b.is_char_boundary(p.suspicious.start) && b.is_char_boundary(p.suspicious.end));
            prop_assert!((0.0..=1.0 + 1e-9).contains(&p.score));
            let (s, t) = p.char_ranges(&a, &b);
            prop_assert!(s.end <= a.chars().count() && t.end <= b.chars().count());
        }
    }

    #[test]
    fn caps_bound_the_work(a in text(), b in text(), p in 1usize..4, c in 1usize..3) {
        let b = format!("{b} {a} {a}");
        let aligner = Aligner::builder().max_postings(p).max_seeds(c).ngram(Some(2)).build().unwrap();
        let (_, w) = aligner.align_counted(&a, &b);
        // Each term and each n-gram (fewer than its bytes) of the suspicious document visits at
        // most `p` postings.
        prop_assert!(w.postings <= p as u64 * (w.susp_terms + b.len() as u64), "{w:?}");
        prop_assert!(w.seeds <= c as u64 * w.sentences.0.min(w.sentences.1), "{w:?}");
    }

    #[test]
    fn prepared_documents_align_as_texts(a in text(), b in text(), copy in any::<bool>(), msw in 0usize..4) {
        let b = if copy { format!("{b} {a}") } else { b };
        let aligner = Aligner::builder().min_passage_len(10).ngram(Some(2)).build().unwrap();
        let expected = aligner.align(&a, &b);
        prop_assert_eq!(&aligner.align_prepared(&aligner.prepare(&a), &aligner.prepare(&b)), &expected);
        // Documents prepared with other settings are tokenized again.
        let other = Aligner::builder().min_sentence_words(msw).language(Language::German).build().unwrap();
        prop_assert_eq!(&aligner.align_prepared(&other.prepare(&a), &other.prepare(&b)), &expected);
    }

    #[test]
    fn decoded_documents_align_as_prepared(a in text(), b in text(), copy in any::<bool>(), detect in any::<bool>()) {
        let b = if copy { format!("{b} {a}") } else { b };
        let aligner = Aligner::builder().min_passage_len(10).ngram(Some(2)).detect_language(detect).build().unwrap();
        let (pa, pb) = (aligner.prepare(&a), aligner.prepare(&b));
        let (mut ea, mut eb) = (Vec::new(), Vec::new());
        pa.encode(&mut ea);
        pb.encode(&mut eb);
        let (da, db) = (Prepared::decode(&a, &ea).unwrap(), Prepared::decode(&b, &eb).unwrap());
        prop_assert_eq!(aligner.align_prepared(&da, &db), aligner.align_prepared(&pa, &pb));
        let mut again = Vec::new();
        db.encode(&mut again);
        prop_assert_eq!(again, eb);
        // As a source, prepared in another language.
        let source = Prepared::decode(&a, &ea).unwrap();
        let german = Aligner::builder().language(Language::German).build().unwrap();
        prop_assert_eq!(german.align_prepared(&source, &german.prepare(&b)), german.align(&a, &b));
    }

    /// Damaged bytes are refused or decode to a document that aligns without panicking.
    #[test]
    fn damaged_bytes_never_panic(a in text(), b in text(), at in any::<prop::sample::Index>(), byte in any::<u8>(), cut in any::<bool>()) {
        let aligner = Aligner::builder().min_passage_len(10).ngram(Some(2)).build().unwrap();
        let mut bytes = Vec::new();
        aligner.prepare(&a).encode(&mut bytes);
        let i = at.index(bytes.len());
        if cut { bytes.truncate(i) } else { bytes[i] = byte }
        if let Ok(doc) = Prepared::decode(&a, &bytes) {
            let other = aligner.prepare(&b);
            aligner.align_prepared(&doc, &other);
            aligner.align_prepared(&other, &doc);
        }
        // Bytes of another text are refused by its length, or fit it without panicking.
        if let Ok(doc) = Prepared::decode(&b, &bytes) {
            aligner.align_prepared(&doc, &aligner.prepare(&a));
        }
    }

    #[test]
    fn arbitrary_bytes_never_panic(a in text(), bytes in prop::collection::vec(any::<u8>(), 0..200)) {
        let mut with_header = Vec::new();
        Aligner::new().prepare(&a).encode(&mut with_header);
        with_header.truncate(8.min(with_header.len()));
        with_header.extend_from_slice(&bytes);
        for b in [&bytes, &with_header] {
            if let Ok(doc) = Prepared::decode(&a, b) {
                Aligner::new().align_prepared(&doc, &Aligner::new().prepare(&a));
            }
        }
    }
}

/// Documents prepared once (and read back from bytes) and aligned in every combination give
/// what aligning their texts gives: the PAN slice (English), and the languages' paragraphs with detection, so that a
/// source prepared in its own language is tokenized again in its suspicious document's.
#[test]
fn prepared_documents_are_reused_across_pairs() {
    let dir = slice_dir();
    let mut texts: Vec<String> = ["src", "susp"]
        .iter()
        .flat_map(|side| {
            let mut files: Vec<PathBuf> = std::fs::read_dir(dir.join(side))
                .unwrap()
                .map(|e| e.unwrap().path())
                .collect();
            files.sort();
            files
        })
        .map(|f| std::fs::read_to_string(f).unwrap())
        .collect();
    for file in ["bg.txt", "ru.txt", "de.txt"] {
        let p = lang_text(file);
        texts.push(format!("{}\n\n{}", p[0], p[1]));
        texts.push(format!("{}\n\n{}\n\n{}", p[2], p[0], p[3]));
    }
    for aligner in [
        Aligner::new(),
        Aligner::builder().detect_language(true).build().unwrap(),
    ] {
        let prepared: Vec<Prepared<'_>> = texts.iter().map(|t| aligner.prepare(t)).collect();
        // And read back from bytes, as a run keeps them on disk.
        let decoded: Vec<Prepared<'_>> = prepared
            .iter()
            .map(|p| {
                let mut bytes = Vec::new();
                p.encode(&mut bytes);
                Prepared::decode(p.text(), &bytes).unwrap()
            })
            .collect();
        let mut found = 0;
        for (i, source) in prepared.iter().enumerate() {
            for (j, suspicious) in prepared.iter().enumerate() {
                let expected = aligner.align(&texts[i], &texts[j]);
                found += expected.len();
                assert_eq!(
                    aligner.align_prepared(source, suspicious),
                    expected,
                    "{i} {j}"
                );
                assert_eq!(
                    aligner.align_prepared(&decoded[i], &decoded[j]),
                    expected,
                    "decoded {i} {j}"
                );
            }
        }
        assert!(found > texts.len(), "{found}");
    }
}

fn lang_text(file: &str) -> Vec<String> {
    let path = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/lang")
        .join(file);
    let text = std::fs::read_to_string(path).unwrap();
    text.split("\n\n").map(|p| p.trim().to_string()).collect()
}

/// A paragraph of real Wikipedia text copied into other text of its language is found, in
/// each language's settings and with detection, exactly where it was copied.
#[test]
fn copies_in_other_languages_are_found() {
    for (file, language) in [
        ("bg.txt", Language::Bulgarian),
        ("ru.txt", Language::Russian),
        ("de.txt", Language::German),
        ("uk.txt", Language::Ukrainian),
    ] {
        let p = lang_text(file);
        assert!(p.len() >= 4, "{file}");
        assert_eq!(Language::detect(&p.join("\n\n")), Some(language), "{file}");
        let source = format!("{}\n\n{}", p[0], p[1]);
        let suspicious = format!("{}\n\n{}\n\n{}", p[2], p[0], p[3]);
        let copied = p[2].len() + 2..p[2].len() + 2 + p[0].len();
        for aligner in [
            Aligner::builder().language(language).build().unwrap(),
            Aligner::builder().detect_language(true).build().unwrap(),
        ] {
            assert_eq!(aligner.language_of(&suspicious), language, "{file}");
            let found = aligner.align(&source, &suspicious);
            assert_eq!(found.len(), 1, "{file}: {found:?}");
            assert_eq!(found[0].suspicious, copied, "{file}");
            assert_eq!(found[0].source, 0..p[0].len(), "{file}");
        }
    }
}

/// The same sentences with their words in other inflected forms: the language's stemmer maps
/// the forms together, so the pair scores higher than with English rules (which leave these
/// words as they are), and is found.
#[test]
fn stemming_joins_inflected_forms() {
    let ru = lang_text("ru.txt");
    let ru_source = format!("{}\n\n{}", ru[0], ru[1]);
    let ru_inflected = format!(
        "{}\n\n{}\n\n{}",
        ru[3],
        "В XIV — начале XV века территории Великое княжество Литовское стремительно расширяло, \
         в основном присоединяя земли Западной Руси. Включением в состав государства славянской \
         земли, многократно превышавшей по площадям и количествам населения собственно литовскую \
         землю, литовские князья, получившие во владения русскую землю, переняли православную \
         культуру и западнорусский язык. Со временем западнорусский язык стал официальный язык \
         канцелярий великого князя. Собственно литовскому языку до XVI века оставаться \
         бесписьменным, хотя и продолжая использоваться на этнически литовской земле.",
        ru[4]
    );
    let de = lang_text("de.txt");
    let de_source = format!("{}\n\n{}\n\n{}", de[0], de[1], de[2]);
    let de_inflected = format!(
        "{}\n\n{}\n\n{}",
        de[5],
        "Die Nut einer Welle wird mit scheibenförmigen Formfräsern gefräst, die den inneren \
         Durchmessern und den Keilbreiten in einem einzigen Arbeitsgang fertigen. Die Fräser \
         müssen daher genau zu den gewünschten Toleranz-Paarungen für die inneren Durchmesser und \
         die Keilbreiten passen. Alternativ können Keilwellenprofile auch durch das Wälzfräsen \
         auf Wälzfräsmaschinen gefertigt werden, genauso wie man Zahnräder fertigt.",
        de[6]
    );
    for (language, source, suspicious) in [
        (Language::Russian, &ru_source, &ru_inflected),
        (Language::German, &de_source, &de_inflected),
    ] {
        let score = |language| {
            let aligner = Aligner::builder().language(language).build().unwrap();
            let found = aligner.align(source, suspicious);
            found.iter().map(|p| p.score).fold(0.0, f64::max)
        };
        let (stemmed, english) = (score(language), score(Language::English));
        assert!(stemmed > 0.0, "{language:?}: not found");
        assert!(
            stemmed > english,
            "{language:?}: {stemmed} vs English {english}"
        );
        eprintln!("{language:?}: {stemmed:.3} vs English rules {english:.3}");
    }
}

/// A copy that starts inside a source sentence and ends inside another: sentence extension
/// takes the whole sentences, fitting the copy finds where it begins and ends.
#[test]
fn copies_get_exact_boundaries() {
    let copied = "the river flooded the whole valley during the wet spring of that year. \
        Farmers moved their cattle to the hills above the old mill and waited for the water \
        to fall. The mill itself was never rebuilt after the flood destroyed its wheel";
    let source = format!(
        "Gardens need patience and good soil in every season. Old records say that {copied}, \
         and nobody remembers exactly why the wheel was not replaced."
    );
    let suspicious = format!(
        "Quantum computers use qubits that hold superpositions of states. {copied}. Then the \
         essay returns to computing with entirely unrelated words."
    );
    let at = |text: &str| text.find(copied).unwrap()..text.find(copied).unwrap() + copied.len();
    let fitted = Aligner::builder().min_passage_len(50).build().unwrap();
    let found = fitted.align(&source, &suspicious);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].source, at(&source));
    // The suspicious side keeps the copy's final period, which the source lacks.
    assert_eq!(found[0].suspicious, at(&suspicious));
    let sentences = Aligner::builder()
        .min_passage_len(50)
        .copy_cover(None)
        .build()
        .unwrap();
    let found = sentences.align(&source, &suspicious);
    assert_eq!(found.len(), 1, "{found:?}");
    assert!(found[0].source.start < at(&source).start, "{found:?}");
}

/// Reused sentences in another order, the first of them split around the others: nearly all
/// the suspicious words lie in word 4-grams of the source, but its first and last 4-grams come
/// from one source sentence. That is no copy (fitted, its sides would be 30 words against 10):
/// the passage keeps the source sentences that extension found.
#[test]
fn shuffled_sentences_are_not_fitted_as_copies() {
    let mut word = made_up_words(0x9b05_688c_2b3e_6c1f);
    let mut words = |n: usize| (0..n).map(|_| word()).collect::<Vec<_>>();
    let s: Vec<String> = (0..4).map(|_| words(10).join(" ")).collect();
    let (before, after, intro, outro) = (words(12), words(12), words(12), words(12));
    let source = format!(
        "{}. {}. {}. {}. {}. {}.",
        before.join(" "),
        s[0],
        s[1],
        s[2],
        s[3],
        after.join(" ")
    );
    let (s1a, s1b) = s[1].split_at(s[1].match_indices(' ').nth(4).unwrap().0);
    let reused = format!("{s1a} {}. {}. {}", s[0], s[3], s1b.trim_start());
    let suspicious = format!("{}. {reused}. {}.", intro.join(" "), outro.join(" "));
    let found = Aligner::new().align(&source, &suspicious);
    assert_eq!(found.len(), 1, "{found:?}");
    let at = |text: &str, part: &str| text.find(part).unwrap();
    assert_eq!(found[0].source.start, at(&source, &s[0]));
    assert!(
        found[0].source.end >= at(&source, &s[3]) + s[3].len(),
        "{found:?}"
    );
    assert_eq!(found[0].suspicious.start, at(&suspicious, &reused));
}

/// A summary: three sentences whose seeds spread over most of a longer source. The passages
/// become one pair whose source side is the whole source document.
#[test]
fn summaries_cover_their_source() {
    let sentences: Vec<String> = (0..12)
        .map(|i| {
            format!(
                "Sentence {i} reports that the {} committee approved {} new rules for the {} harbour district.",
                ["northern", "eastern", "coastal", "central"][i % 4],
                ["several", "three", "many", "two"][i / 4 % 4],
                ["fishing", "shipping", "ferry", "cargo", "tourist", "naval"][i % 6],
            )
        })
        .collect();
    let source = sentences.join(" ");
    let suspicious = format!(
        "An unrelated opening about mountain climbing and alpine weather. {} {} {} A closing \
         remark on mountain huts.",
        sentences[1], sentences[5], sentences[10]
    );
    let aligner = Aligner::builder().min_passage_len(50).build().unwrap();
    let found = aligner.align(&source, &suspicious);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].source, 0..source.len());
    let unsnapped = Aligner::builder()
        .min_passage_len(50)
        .summary_snap(None)
        .build()
        .unwrap();
    let found = unsnapped.align(&source, &suspicious);
    assert!(
        found.iter().all(|p| p.source != (0..source.len())),
        "{found:?}"
    );
}

/// Two copies far apart in both documents: together they span many times more source than
/// suspicious text, but they cover little of the suspicious text between them, so they are two
/// cases, not one summary.
#[test]
fn passages_far_apart_are_not_one_summary() {
    let mut word = made_up_words(0x1f83_d9ab_fb41_bd6b);
    let mut sentences = |n: usize| {
        (0..n)
            .map(|_| (0..10).map(|_| word()).collect::<Vec<_>>().join(" "))
            .collect::<Vec<_>>()
            .join(". ")
    };
    let (a, b) = (sentences(3), sentences(3));
    let (filler, intro, middle, outro) = (sentences(60), sentences(2), sentences(10), sentences(2));
    let source = format!("{a}. {filler}. {b}.");
    let suspicious = format!("{intro}. {a}. {middle}. {b}. {outro}.");
    let found = Aligner::new().align(&source, &suspicious);
    assert_eq!(found.len(), 2, "{found:?}");
    assert_eq!(&source[found[0].source.clone()], format!("{a}."));
    assert_eq!(&source[found[1].source.clone()], format!("{b}."));
}

/// Paraphrases that replace words by synonyms: with WordNet synonyms, the replaced words count
/// as the same terms and the passages are much more similar; without, only the words left
/// alone are shared.
#[test]
fn synonyms_match_paraphrases_that_swap_words() {
    let source = "Visitors could purchase tickets at a lower price before the journey would \
        begin. Every customer who wanted help found a large car waiting outside. The guides \
        would build a fire and tell stories about the wealthy families.";
    let suspicious = "Some opening words about gardens and tomatoes come first here. Visitors \
        could buy tickets at a lower cost before the travel would start. Every client who \
        wanted aid found a big automobile waiting outside. The guides would construct a fire \
        and tell stories about the affluent families. Then the essay returns to gardening.";
    let align = |synonyms, language| {
        Aligner::builder()
            .synonyms(synonyms)
            .language(language)
            .build()
            .unwrap()
            .align(source, suspicious)
    };
    let with = align(true, Language::English);
    assert_eq!(with.len(), 1, "{with:?}");
    assert!(suspicious[with[0].suspicious.clone()].starts_with("Visitors could buy"));
    assert!(source[with[0].source.clone()].ends_with("wealthy families."));
    let without = align(false, Language::English);
    assert_eq!(without.len(), 1, "{without:?}");
    assert!(
        with[0].score > without[0].score + 0.4,
        "{} vs {}",
        with[0].score,
        without[0].score
    );
    // English only: aligned by German rules, the texts share no synonyms.
    let german = align(true, Language::German);
    let german_off = align(false, Language::German);
    assert_eq!(german, german_off);
}

/// Sentences of words joined by ". ", each sentence's words reversed if `reverse` (reworded
/// but with the same words, so not a copy: it shares no word 4-gram).
fn sentences(words: &[Vec<String>], reverse: bool) -> String {
    let sentence = |s: &Vec<String>| {
        let mut s = s.clone();
        if reverse {
            s.reverse();
        }
        s.join(" ")
    };
    words.iter().map(sentence).collect::<Vec<_>>().join(". ")
}

/// Reworded reuse that begins inside a source sentence: its first part (four words, two of
/// them replaced) is too short and too changed to seed, the reused sentences after it (their
/// words reversed, so not a copy) seed. The passage's edges grow over that first part in
/// both documents, and not over the unrelated words before it, nor across a blank line.
#[test]
fn edges_grow_over_reworded_parts_of_sentences() {
    let mut word = made_up_words(0x7f4a_7c15_9e37_79b9);
    let mut words = |n: usize| (0..n).map(|_| word()).collect::<Vec<_>>();
    let (before, part, replaced) = (words(10), words(4), words(2));
    let reused: Vec<Vec<String>> = (0..4).map(|_| words(10)).collect();
    let (intro, outro, outro2) = (words(12), words(12), words(12));
    let join = |w: &[String]| w.join(" ");
    let source = format!(
        "{} {}. {}. {}.",
        join(&before),
        join(&part),
        sentences(&reused, false),
        join(&outro)
    );
    let reworded = sentences(&reused, true);
    let first = format!("{} {} {} {}", part[1], replaced[0], part[3], replaced[1]);
    let suspicious = |gap: &str| {
        format!(
            "{}. {first}.{gap}{reworded}. {}.",
            join(&intro),
            join(&outro2)
        )
    };
    let grown = Aligner::new();
    let sentences = Aligner::builder().edge_window(None).build().unwrap();

    let susp = suspicious(" ");
    let found = sentences.align(&source, &susp);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].source.start, source.find(&reused[0][0]).unwrap());
    assert_eq!(found[0].suspicious.start, susp.find(&reworded).unwrap());
    let found = grown.align(&source, &susp);
    assert_eq!(found.len(), 1, "{found:?}");
    // The source side starts at the first word the suspicious side kept, the suspicious side
    // at its first sentence, whose first word is kept.
    assert_eq!(found[0].source.start, source.find(&part[1]).unwrap());
    assert_eq!(found[0].suspicious.start, susp.find(&first).unwrap());
    // The ends meet unrelated words: they stay.
    assert_eq!(
        &source[found[0].source.end..],
        format!(" {}.", join(&outro))
    );

    let susp = suspicious("\n\n");
    let found = grown.align(&source, &susp);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].suspicious.start, susp.find(&reworded).unwrap());
}

/// Reworded reuse that begins inside a long source sentence: sentence-level extension takes the
/// whole sentence, trimming cuts the unrelated words before the reused ones.
#[test]
fn edges_are_trimmed_to_the_reused_words() {
    let mut word = made_up_words(0x3c6e_f372_fe94_f82b);
    let mut words = |n: usize| (0..n).map(|_| word()).collect::<Vec<_>>();
    let (before, intro, outro, outro2) = (words(12), words(12), words(12), words(12));
    let reused: Vec<Vec<String>> = (0..4).map(|_| words(10)).collect();
    let join = |w: &[String]| w.join(" ");
    let source = format!(
        "{} {}. {}.",
        join(&before),
        sentences(&reused, false),
        join(&outro)
    );
    let reworded = sentences(&reused, true);
    let suspicious = format!("{}. {reworded}. {}.", join(&intro), join(&outro2));
    let untrimmed = Aligner::builder().edge_trim(None).build().unwrap();
    let found = untrimmed.align(&source, &suspicious);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].source.start, 0);
    let found = Aligner::new().align(&source, &suspicious);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].source.start, source.find(&reused[0][0]).unwrap());
    assert_eq!(
        found[0].suspicious.start,
        suspicious.find(&reworded).unwrap()
    );
    // Fewer unrelated words than the lead stay.
    let found = Aligner::builder()
        .edge_trim(Some(13))
        .build()
        .unwrap()
        .align(&source, &suspicious);
    assert_eq!(found[0].source.start, 0);
}

/// Heavily shortened reuse: the suspicious text keeps 2 of every 7 source words in its first
/// three sentences and 3 of every 7 in the last three. Its first sentences share fewer words
/// than the rest, but not much fewer than the passage as a whole does: they are part of the
/// reuse and the source side keeps them.
#[test]
fn sparse_reuse_keeps_its_edges() {
    let mut word = made_up_words(0x6a09_e667_f3bc_c908);
    let mut words = |n: usize| (0..n).map(|_| word()).collect::<Vec<_>>();
    let reused: Vec<Vec<String>> = (0..6).map(|_| words(14)).collect();
    let (before, after, intro, outro) = (words(12), words(12), words(12), words(12));
    let kept = |i: usize, s: &Vec<String>| {
        let keep: &[usize] = if i < 3 { &[2, 6] } else { &[2, 4, 6] };
        s.iter()
            .enumerate()
            .filter(|(k, _)| keep.contains(&(k % 7)))
            .map(|(_, w)| w.clone())
            .collect::<Vec<_>>()
    };
    let shortened: Vec<Vec<String>> = reused.iter().enumerate().map(|(i, s)| kept(i, s)).collect();
    let source = format!(
        "{}. {}. {}.",
        before.join(" "),
        sentences(&reused, false),
        after.join(" ")
    );
    let suspicious = format!(
        "{}. {}. {}.",
        intro.join(" "),
        sentences(&shortened, false),
        outro.join(" ")
    );
    let found = Aligner::new().align(&source, &suspicious);
    assert_eq!(found.len(), 1, "{found:?}");
    assert_eq!(found[0].source.start, source.find(&reused[0][0]).unwrap());
    assert_eq!(
        found[0].suspicious.start,
        suspicious.find(&shortened[0][0]).unwrap()
    );
}

/// Reuse inside text without sentence punctuation (a list, a web page's lines): the whole text
/// is one sentence, cut into parts of at most 50 words, and the parts holding the reused words
/// seed.
#[test]
fn reuse_inside_unpunctuated_text_is_found() {
    let mut word = made_up_words(0x510e_527f_ade6_82d1);
    let mut words = |n: usize| (0..n).map(|_| word()).collect::<Vec<_>>();
    let (intro, outro) = (words(150), words(150));
    let reused: Vec<Vec<String>> = (0..4).map(|_| words(12)).collect();
    let source = format!("{}.", sentences(&reused, false));
    let reworded = reused
        .iter()
        .flatten()
        .rev()
        .cloned()
        .collect::<Vec<_>>()
        .join(" ");
    let suspicious = format!("{} {reworded} {}", intro.join(" "), outro.join(" "));
    let found = Aligner::new().align(&source, &suspicious);
    assert!(!found.is_empty());
    let at = suspicious.find(&reworded).unwrap();
    let reused_part = at..at + reworded.len();
    for p in &found {
        assert!(
            p.suspicious.start < reused_part.end && reused_part.start < p.suspicious.end,
            "{p:?}"
        );
    }
}

/// The thread's cache of normalized words changes no passage, whatever its size: documents of
/// made-up words (each about 300 new forms) make the smallest cache start over every few
/// documents, and the two aligners alternate on one thread, so each finds the cache as the
/// other left it.
#[test]
fn the_size_of_the_word_cache_changes_no_passage() {
    let mut word = made_up_words(0x5851_f42d_4c95_7f2d);
    let mut sentence = |n: usize| (0..n).map(|_| word()).collect::<Vec<_>>().join(" ");
    let small = Aligner::builder()
        .min_passage_len(40)
        .cache_memory(0)
        .build()
        .unwrap();
    let default = Aligner::builder().min_passage_len(40).build().unwrap();
    let mut found = 0;
    for _ in 0..40 {
        let shared: Vec<String> = (0..8).map(|_| sentence(12)).collect();
        let source = format!("{}. {}. {}.", sentence(40), shared.join(". "), sentence(60));
        let suspicious = format!(
            "{}. {}. {}.",
            sentence(50),
            shared[1..].join(". "),
            sentence(30)
        );
        let expected = default.align(&source, &suspicious);
        assert_eq!(small.align(&source, &suspicious), expected);
        let (s, t) = (small.prepare(&source), small.prepare(&suspicious));
        assert_eq!(small.align_prepared(&s, &t), expected);
        assert_eq!(default.align_prepared(&s, &t), expected);
        found += expected.len();
    }
    assert_eq!(found, 40, "each pair shares one passage");
}
