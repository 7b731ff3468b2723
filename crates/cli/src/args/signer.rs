//! The MinHash flags (`--hashes`, `--rows`, `--bands`, `--scheme`, ...) and their errors.
use textreuse_dedup::features::SignerOptions;
use textreuse_minhash::{DEFAULT_BITS, DEFAULT_CANDIDATE_RATE, DEFAULT_RECALL, DEFAULT_SEED};

use crate::args::values::{fraction, open_fraction};

/// The flags of [`SignerArgs`] (and `index create`'s, which have the same names) that a
/// MinHash parameter error is about.
pub fn signer_flags(e: &textreuse_minhash::BuildError) -> &'static str {
    use textreuse_minhash::BuildError as E;
    match e {
        E::ZeroRows => "--rows",
        E::ZeroBands | E::TooManyBands { .. } => "--bands",
        E::RowsExceedHashes { .. } => "--rows/--hashes",
        E::DisjointMismatch { .. } | E::TooManyHashes { .. } => "--hashes",
        E::TooManyBins { .. } | E::TooManyDisjointHashes { .. } => "--rows/--bands",
        E::Hash(_) => "--bits",
        E::Threshold { .. } => "--threshold/--below",
        E::OutOfRange { name, .. } if *name == "recall" => "--recall",
        E::OutOfRange { name, .. } if *name == "candidate_rate" => "--candidate-rate",
        E::Unreachable { .. } => "--threshold/--recall/--below/--candidate-rate",
        E::SetTooLarge { .. } => "--min-shingles",
        _ => "MinHash parameters",
    }
}

/// A MinHash parameter error as the CLI prints it: `invalid --rows/--bands: <the error>`.
pub fn signer_error(e: textreuse_minhash::BuildError) -> anyhow::Error {
    anyhow::anyhow!("invalid {}: {e}", signer_flags(&e))
}

/// The MinHash flags of the commands that sign sentences (`dedup`, `sentences --band-keys`),
/// with `dedup`'s defaults, so both build the same signer from the same flags.
#[derive(Debug, clap::Args)]
pub struct SignerArgs {
    /// Number of hash functions N of drawn bands (at most 128) [default: 20; K*M for disjoint
    /// and oph]. With --threshold: the budget K*M of disjoint bands.
    #[arg(long, value_name = "N")]
    pub hashes: Option<usize>,
    /// Output bits of each hash function.
    #[arg(long, default_value_t = DEFAULT_BITS)]
    pub bits: u32,
    /// Rows K per band [default: the scheme's (10; oph 11), or planned for dedup's --threshold].
    #[arg(long, short = 'k')]
    pub rows: Option<usize>,
    /// Bands M [default: the scheme's (10; oph 13), or planned for dedup's --threshold]. Drawn
    /// bands: M at most 20 and K at most N; disjoint and oph: K*M at most 4096.
    #[arg(long, short = 'm')]
    pub bands: Option<usize>,
    /// Seed of the hash functions and band subsets.
    #[arg(long, default_value_t = DEFAULT_SEED)]
    pub seed: u64,
    /// How minhashes and bands are formed: drawn K-subsets of N functions (the Weissman
    /// preset), disjoint (N = K*M functions), or oph (one hash per shingle into K*M bins)
    /// [default: drawn for sentences, oph for paragraphs and documents; with --threshold the
    /// cheapest that meets the target].
    #[arg(long, value_enum)]
    pub scheme: Option<Scheme>,
    /// With --threshold: the probability of finding a pair at or above the threshold that the
    /// planned configuration must reach.
    #[arg(long, default_value_t = DEFAULT_RECALL, value_name = "P", value_parser = fraction)]
    pub recall: f64,
    /// With --threshold: pairs at or below this similarity [default: max(T - 0.4, T / 6)] ...
    #[arg(long, value_name = "S", value_parser = open_fraction)]
    pub below: Option<f64>,
    /// ... may become candidates with at most this probability.
    #[arg(long, default_value_t = DEFAULT_CANDIDATE_RATE, value_name = "P", value_parser = fraction)]
    pub candidate_rate: f64,
}

/// How bands are formed (`--scheme`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum Scheme {
    /// K-subsets of the N functions drawn from the seed.
    Drawn,
    /// Classic banding, N = K*M.
    Disjoint,
    /// One-permutation hashing with optimal densification, K*M bins.
    Oph,
}

impl From<Scheme> for textreuse_minhash::BandScheme {
    fn from(s: Scheme) -> Self {
        match s {
            Scheme::Drawn => textreuse_minhash::BandScheme::Drawn,
            Scheme::Disjoint => textreuse_minhash::BandScheme::Disjoint,
            Scheme::Oph => textreuse_minhash::BandScheme::Oph,
        }
    }
}

impl SignerArgs {
    /// These flags as the library's options (the rule that turns them into a signer is
    /// [`SignerOptions`]'s, shared with the Spark job).
    pub fn options(&self) -> SignerOptions {
        SignerOptions {
            scheme: self.scheme.map(Into::into),
            hashes: self.hashes,
            rows: self.rows,
            bands: self.bands,
            bits: self.bits,
            seed: self.seed,
            recall: self.recall,
            below: self.below,
            candidate_rate: self.candidate_rate,
        }
    }

    /// Whether -k or -m was given (they win over a threshold's plan).
    pub fn explicit_bands(&self) -> bool {
        self.options().explicit_bands()
    }

    /// What the planner must meet for `threshold`, for units of at least `min_set` shingles
    /// ([`SignerOptions::target`]).
    pub fn target(&self, threshold: f64, min_set: usize) -> textreuse_minhash::Target {
        self.options().target(threshold, min_set)
    }

    /// The signer these flags describe for `unit`: the scheme's preset (the unit's default
    /// scheme when none is given) with the flags that were given.
    pub fn build(
        &self,
        unit: textreuse_shingle::units::Unit,
    ) -> anyhow::Result<textreuse_minhash::Signer> {
        self.options().builder(unit).build().map_err(signer_error)
    }
}
