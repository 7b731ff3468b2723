//! Languages: the stemmer and stopword list that alignment uses for a text's words.
//!
//! Stemmers are the Snowball stemmers of the `rust-stemmers` crate; stopword lists come from the
//! `stop-words` crate (NLTK's list where NLTK has one, Stopwords ISO's otherwise). Languages
//! without a Snowball stemmer (Bulgarian, Czech, Polish, Ukrainian) are aligned on lowercased,
//! unstemmed words: inflected forms of one word then count as different terms, which costs
//! recall on paraphrases but not on copies.
use std::borrow::Cow;
use std::fmt;
use std::str::FromStr;
use std::sync::OnceLock;

use ahash::AHashSet;
use rust_stemmers::{Algorithm, Stemmer};

/// The language of the texts to align ([`crate::AlignerBuilder::language`]): it chooses the
/// stemmer and the stopword list.
///
/// ```
/// use textreuse_align::Language;
///
/// let de: Language = "de".parse()?;
/// assert_eq!(de, Language::German);
/// assert_eq!(de.stem("häuser"), "haus");
/// assert!(de.is_stopword("und"));
/// assert_eq!(Language::detect("Der Hund schläft im Garten, und die Katze sitzt auf dem Dach."),
///            Some(Language::German));
/// # Ok::<(), textreuse_align::UnknownLanguage>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, PartialOrd, Ord)]
#[non_exhaustive]
pub enum Language {
    /// Arabic (`ar`).
    Arabic,
    /// Bulgarian (`bg`; no stemmer).
    Bulgarian,
    /// Czech (`cs`; no stemmer).
    Czech,
    /// Danish (`da`).
    Danish,
    /// Dutch (`nl`).
    Dutch,
    /// English (`en`), the default.
    #[default]
    English,
    /// Finnish (`fi`).
    Finnish,
    /// French (`fr`).
    French,
    /// German (`de`).
    German,
    /// Greek (`el`).
    Greek,
    /// Hungarian (`hu`).
    Hungarian,
    /// Italian (`it`).
    Italian,
    /// Norwegian (`no`).
    Norwegian,
    /// Polish (`pl`; no stemmer).
    Polish,
    /// Portuguese (`pt`).
    Portuguese,
    /// Romanian (`ro`).
    Romanian,
    /// Russian (`ru`).
    Russian,
    /// Spanish (`es`).
    Spanish,
    /// Swedish (`sv`).
    Swedish,
    /// Tamil (`ta`).
    Tamil,
    /// Turkish (`tr`).
    Turkish,
    /// Ukrainian (`uk`; no stemmer).
    Ukrainian,
}

/// One row per language: ISO 639-1 code, English name, Snowball stemmer, whatlang's code.
struct Row {
    language: Language,
    code: &'static str,
    name: &'static str,
    stemmer: Option<Algorithm>,
    detected_as: whatlang::Lang,
}

macro_rules! rows {
    ($($language:ident $code:literal $stemmer:expr, $whatlang:ident;)*) => {
        const ROWS: &[Row] = &[$(Row {
            language: Language::$language,
            code: $code,
            name: stringify!($language),
            stemmer: $stemmer,
            detected_as: whatlang::Lang::$whatlang,
        },)*];
    };
}

rows! {
    Arabic "ar" Some(Algorithm::Arabic), Ara;
    Bulgarian "bg" None, Bul;
    Czech "cs" None, Ces;
    Danish "da" Some(Algorithm::Danish), Dan;
    Dutch "nl" Some(Algorithm::Dutch), Nld;
    English "en" Some(Algorithm::English), Eng;
    Finnish "fi" Some(Algorithm::Finnish), Fin;
    French "fr" Some(Algorithm::French), Fra;
    German "de" Some(Algorithm::German), Deu;
    Greek "el" Some(Algorithm::Greek), Ell;
    Hungarian "hu" Some(Algorithm::Hungarian), Hun;
    Italian "it" Some(Algorithm::Italian), Ita;
    Norwegian "no" Some(Algorithm::Norwegian), Nob;
    Polish "pl" None, Pol;
    Portuguese "pt" Some(Algorithm::Portuguese), Por;
    Romanian "ro" Some(Algorithm::Romanian), Ron;
    Russian "ru" Some(Algorithm::Russian), Rus;
    Spanish "es" Some(Algorithm::Spanish), Spa;
    Swedish "sv" Some(Algorithm::Swedish), Swe;
    Tamil "ta" Some(Algorithm::Tamil), Tam;
    Turkish "tr" Some(Algorithm::Turkish), Tur;
    Ukrainian "uk" None, Ukr;
}

/// Texts longer than this are detected from their first this many bytes (language detection
/// needs a few sentences, not a book).
const DETECT_PREFIX: usize = 4096;

impl Language {
    /// Every supported language, in the order of their English names.
    pub fn all() -> impl ExactSizeIterator<Item = Language> {
        ROWS.iter().map(|r| r.language)
    }

    fn row(self) -> &'static Row {
        // ROWS lists the variants in declaration order.
        &ROWS[self as usize]
    }

    /// The ISO 639-1 code (`"en"`).
    pub fn code(self) -> &'static str {
        self.row().code
    }

    /// The English name (`"English"`).
    pub fn name(self) -> &'static str {
        self.row().name
    }

    /// Whether words are stemmed (a Snowball stemmer exists for the language); otherwise they
    /// are only lowercased.
    pub fn has_stemmer(self) -> bool {
        self.row().stemmer.is_some()
    }

    /// The language `text` is written in, when it is one of the supported languages and the
    /// detection is reliable (a few sentences are usually enough; the first 4 KiB are used).
    pub fn detect(text: &str) -> Option<Language> {
        static DETECTOR: OnceLock<whatlang::Detector> = OnceLock::new();
        let detector = DETECTOR.get_or_init(|| {
            whatlang::Detector::with_allowlist(ROWS.iter().map(|r| r.detected_as).collect())
        });
        let mut end = text.len().min(DETECT_PREFIX);
        while !text.is_char_boundary(end) {
            end -= 1;
        }
        let info = detector.detect(&text[..end])?;
        if !info.is_reliable() {
            return None;
        }
        ROWS.iter()
            .find(|r| r.detected_as == info.lang())
            .map(|r| r.language)
    }

    /// Whether a lowercase word is on the language's stopword list.
    pub fn is_stopword(self, word: &str) -> bool {
        static SETS: OnceLock<Vec<AHashSet<&'static str>>> = OnceLock::new();
        let sets = SETS.get_or_init(|| {
            ROWS.iter()
                .map(|r| {
                    stop_words::lookup(r.code)
                        .unwrap_or_default()
                        .iter()
                        .copied()
                        .collect()
                })
                .collect()
        });
        sets[self as usize].contains(word)
    }

    /// The stem of a lowercase word (the word itself for languages without a stemmer).
    pub fn stem(self, word: &str) -> Cow<'_, str> {
        match self.stemmer() {
            Some(s) => s.stem(word),
            None => Cow::Borrowed(word),
        }
    }

    pub(crate) fn stemmer(self) -> Option<Stemmer> {
        self.row().stemmer.map(Stemmer::create)
    }
}

impl fmt::Display for Language {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.code())
    }
}

/// A language code or name that is not one of the supported [`Language`]s. Recover by passing
/// one of the codes listed in the message (or leaving the language to detection).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
#[error(
    "unknown language {given:?}; supported: {}{}",
    supported(),
    if *auto { ", or auto (detected per document)" } else { "" }
)]
pub struct UnknownLanguage {
    /// The code or name given.
    pub given: String,
    /// Whether `auto` would have been accepted (when parsing a [`LanguageChoice`]).
    pub auto: bool,
}

/// The language of the texts as a user chooses it: one for every pair, or `auto`, detected
/// from each suspicious document ([`Language::detect`], English when detection is unsure).
/// Parsed from an ISO 639-1 code or an English name, or `auto`, ignoring ASCII case; given to
/// [`AlignerBuilder::language_choice`](crate::AlignerBuilder::language_choice).
///
/// ```
/// use textreuse_align::{Language, LanguageChoice};
///
/// assert_eq!("de".parse(), Ok(LanguageChoice::Fixed(Language::German)));
/// assert_eq!("AUTO".parse::<LanguageChoice>()?.language_and_detection(), (Language::English, true));
/// assert!("xx".parse::<LanguageChoice>().unwrap_err().to_string().ends_with("or auto (detected per document)"));
/// # Ok::<(), textreuse_align::UnknownLanguage>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LanguageChoice {
    /// One language for every pair.
    Fixed(Language),
    /// Detected from each suspicious document.
    Auto,
}

impl Default for LanguageChoice {
    /// English for every pair.
    fn default() -> Self {
        LanguageChoice::Fixed(Language::English)
    }
}

impl LanguageChoice {
    /// The fixed language (English under `Auto`: the fallback when detection is unsure) and
    /// whether to detect, as [`AlignerBuilder::language`](crate::AlignerBuilder::language) and
    /// [`AlignerBuilder::detect_language`](crate::AlignerBuilder::detect_language) take them.
    #[must_use]
    pub fn language_and_detection(self) -> (Language, bool) {
        match self {
            LanguageChoice::Fixed(language) => (language, false),
            LanguageChoice::Auto => (Language::English, true),
        }
    }
}

impl FromStr for LanguageChoice {
    type Err = UnknownLanguage;

    fn from_str(s: &str) -> Result<LanguageChoice, UnknownLanguage> {
        if s.eq_ignore_ascii_case("auto") {
            return Ok(LanguageChoice::Auto);
        }
        s.parse()
            .map(LanguageChoice::Fixed)
            .map_err(|e: UnknownLanguage| UnknownLanguage { auto: true, ..e })
    }
}

fn supported() -> String {
    ROWS.iter().map(|r| r.code).collect::<Vec<_>>().join(", ")
}

impl FromStr for Language {
    type Err = UnknownLanguage;

    /// Parses an ISO 639-1 code (`de`) or an English name (`German`), ignoring ASCII case.
    fn from_str(s: &str) -> Result<Language, UnknownLanguage> {
        ROWS.iter()
            .find(|r| r.code.eq_ignore_ascii_case(s) || r.name.eq_ignore_ascii_case(s))
            .map(|r| r.language)
            .ok_or_else(|| UnknownLanguage {
                given: s.to_string(),
                auto: false,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rows_follow_the_variants() {
        for (i, r) in ROWS.iter().enumerate() {
            assert_eq!(r.language as usize, i, "{}", r.name);
            assert_eq!(format!("{:?}", r.language), r.name);
            assert_eq!(r.code.parse::<Language>(), Ok(r.language));
            assert_eq!(r.name.to_uppercase().parse::<Language>(), Ok(r.language));
            assert!(
                stop_words::lookup(r.code).is_some_and(|w| w.len() >= 20),
                "{}: no stopword list",
                r.name
            );
        }
        let err = "xx".parse::<Language>().unwrap_err();
        assert!(err.to_string().contains("bg, cs"), "{err}");
    }

    #[test]
    fn stems_and_stopwords_per_language() {
        use Language::*;
        for (lang, words, stem) in [
            (
                English,
                ["connections", "connected", "connecting"],
                "connect",
            ),
            (German, ["häuser", "hauses", "haus"], "haus"),
            (Russian, ["книги", "книгой", "книга"], "книг"),
            (French, ["nationales", "nationale", "national"], "national"),
            (Spanish, ["canciones", "canción", "canción"], "cancion"),
        ] {
            for w in words {
                assert_eq!(lang.stem(w), stem, "{lang:?} {w}");
            }
        }
        assert_eq!(Bulgarian.stem("книгите"), "книгите");
        for (lang, stop, content) in [
            (English, "the", "volcano"),
            (German, "und", "vulkan"),
            (Russian, "и", "вулкан"),
            (Bulgarian, "и", "вулкан"),
            (French, "les", "volcan"),
        ] {
            assert!(lang.is_stopword(stop), "{lang:?} {stop}");
            assert!(!lang.is_stopword(content), "{lang:?} {content}");
        }
    }

    #[test]
    fn detects_supported_languages_only() {
        for (text, lang) in [
            (
                "The volcano erupted in the night, and the villages below were covered in ash.",
                Some(Language::English),
            ),
            (
                "Вулканът изригна през нощта и селата под него бяха покрити с пепел.",
                Some(Language::Bulgarian),
            ),
            (
                "Вулкан извергался ночью, и деревни внизу были покрыты пеплом.",
                Some(Language::Russian),
            ),
            (
                "Le volcan est entré en éruption pendant la nuit et les villages ont été couverts de cendres.",
                Some(Language::French),
            ),
            ("", None),
            ("12345 67890", None),
        ] {
            assert_eq!(Language::detect(text), lang, "{text}");
        }
        // A long text is detected from its start, on a char boundary.
        let long = "Вулканът изригна през нощта и селата бяха покрити с пепел. ".repeat(200);
        assert_eq!(Language::detect(&long), Some(Language::Bulgarian));
    }
}
