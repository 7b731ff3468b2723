//! The aligner's flags of `align`, `check` and `reuse` (`--fallback-ngram`, `--synonyms`, `--lang`).
use crate::args::values::{NgramOrOff, OnOff};

/// The aligner's options of `align` and `check` (`--fallback-ngram`, `--synonyms`), with its
/// defaults.
#[derive(Debug, clap::Args)]
pub struct AlignerArgs {
    /// Where alignment finds no passage, look again from the sentence pairs sharing a word
    /// N-gram (finds heavily reworded passages), or `off`.
    #[arg(
        long,
        value_name = "N|off",
        default_value_t = NgramOrOff(textreuse_align::DEFAULT_FALLBACK_NGRAM)
    )]
    pub fallback_ngram: NgramOrOff,
    #[command(flatten)]
    pub synonyms: SynonymArgs,
}

impl AlignerArgs {
    /// Sets the aligner's fallback n-gram size and synonym matching.
    pub fn apply<'b>(
        &self,
        builder: &'b mut textreuse_align::AlignerBuilder,
    ) -> &'b mut textreuse_align::AlignerBuilder {
        builder
            .fallback_ngram(self.fallback_ngram.0)
            .synonyms(self.synonyms.synonyms.0)
    }
}

/// `--synonyms` of `align`, `check` and `reuse`, with the aligner's default.
#[derive(Debug, clap::Args)]
pub struct SynonymArgs {
    /// Match English words with their WordNet synonyms where the source's word is missing from
    /// the suspicious text (finds paraphrases that swap words), or `off`.
    #[arg(
        long,
        value_name = "on|off",
        default_value_t = OnOff(textreuse_align::DEFAULT_SYNONYMS)
    )]
    pub synonyms: OnOff,
}

/// `--lang`: the language alignment stems and drops stopwords in.
#[derive(Debug, clap::Args)]
pub struct LangArgs {
    /// Language of the texts, for stemming and stopwords: an ISO 639-1 code (en, de, fr, es,
    /// ru, bg, ...; see `textreuse_align::Language`) or `auto` to detect each suspicious
    /// document's language (English when detection is unsure).
    #[arg(long, value_name = "CODE", default_value = "en")]
    pub lang: textreuse_align::LanguageChoice,
}

impl LangArgs {
    /// The fixed language (English under `auto`, the fallback) and whether to detect it.
    pub fn choice(&self) -> (textreuse_align::Language, bool) {
        self.lang.language_and_detection()
    }

    /// Sets the aligner's language (or detection).
    pub fn apply<'b>(
        &self,
        builder: &'b mut textreuse_align::AlignerBuilder,
    ) -> &'b mut textreuse_align::AlignerBuilder {
        builder.language_choice(self.lang)
    }
}
