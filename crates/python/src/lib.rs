//! Python bindings of textreuse: the extension module `textreuse._native` of the `textreuse`
//! Python package (built with maturin from `python/pyproject.toml`, see `python/README.md`).
//!
//! ```python
//! import textreuse
//!
//! signer = textreuse.Signer()            # N = 20, 60 bits, K = 10, M = 10, drawn bands
//! sig = signer.sign("The Old Mill stands beside the river and has done so since 1820.")
//! keys = signer.band_keys(sig)           # the dedup pipeline's band keys (u64)
//! sigs = signer.sign_batch(["...", "..."])  # many texts, GIL released
//!
//! index = textreuse.LSHIndex(threshold=0.8)  # persistent LSH index (a temporary directory)
//! index.insert("mill", "The Old Mill stands beside the river and has done so since 1820.")
//! index.query("The old mill stands beside the river and has done so since 1820!")  # ["mill"]
//! ```
//!
//! # Overview
//!
//! The bindings hold no text-reuse logic of their own: every function calls the workspace crates
//! (`textreuse-minhash`, `-shingle`, `-simhash`, `-align`, `-unionfind`) or the dedup pipeline's
//! library functions (`textreuse_minhash::TextSigner`, `textreuse_shingle::Shingler`,
//! `textreuse_dedup::Cluster`, `textreuse_dedup::within_edit_distance`), so a sentence gets the same shingles,
//! signature, band keys and cluster line in Python, in Spark and in `textreuse dedup`.
//!
//! - `Signer` wraps [`textreuse_minhash::Signer`] (`src/signer.rs`). Signatures go out as numpy
//!   uint64 arrays and come in as any uint64 buffer or sequence of ints (`src/numpy.rs`, through
//!   the buffer protocol and `numpy.frombuffer`: no Rust NumPy dependency).
//! - `OutputSet` wraps [`textreuse_corpus::files::OutputSet`] (`src/files.rs`): the Spark jobs'
//!   outputs are swapped in as one, like the command line's.
//! - `LSHIndex` wraps [`textreuse_index::IndexWriter`] (`src/index.rs`) with datasketch's
//!   `MinHashLSH` vocabulary (`insert`, `query`, `remove`, `in`, `len`), batch methods that sign
//!   on all cores, and pickling by the bytes of the committed files.
//! - The kernels of `textreuse.compat` (drop-in APIs of other MinHash libraries, whose classes
//!   are Python, in `textreuse/compat/`): datasketch's permutation schemes, band tables, Bloom
//!   filters and weighted sampler (`src/compat.rs`); rensa's R-MinHash and C-MinHash sketches,
//!   digest matrices and keyed band tables, reading rensa's token inputs
//!   (`src/compat_rensa.rs`, over [`textreuse_minhash::rensa`] and
//!   [`textreuse_index::KeyedBandTables`]).
//! - Module functions (`src/text.rs`): `sentences`, `char_offsets`, `shingles`,
//!   `shingle_count`, `jaccard` (exact), `simhash`, `paragraph_simhash`, `align`, `tune`,
//!   `plan`; Wang, Liu and Jia's document fingerprints: `wang_fingerprints`, `set_similarity`,
//!   `similar_documents` (what `textreuse docsim` does).
//! - Arrow batch kernels (`src/batch_kernels.rs`, wrapped by `textreuse/kernels.py`):
//!   `band_key_records`, `signatures`, `shingle_counts`, `edit_keep`, `connected_components`,
//!   `cluster_lines`, and the reuse job's `ReuseFileReader` (one input file read as the CLI
//!   reads it, in batches), `reuse_document_terms`, `reuse_chunk_vectors`,
//!   `reuse_pick_documents`, `reuse_align` (`src/reuse.rs`, calling the `textreuse-reuse`
//!   library's steps). They read pyarrow arrays in place through the buffer protocol
//!   (`src/arrow.rs`), loop over the rows in Rust with the GIL released, and return output
//!   buffers that become pyarrow arrays without a copy; no per-row Python work. These are the
//!   steps the Spark backend (`textreuse.spark`) runs inside `mapInArrow`.
//! - The dedup job's kernels (`src/spark.rs`): `sentence_tasks`, `sentence_keys`, `BucketPairs`,
//!   `distinct_pairs`, `pair_clusters`, `member_lines`, `cluster_chunk`, `rank_contradictions`, `article_pairs_tsv`:
//!   read record files in byte ranges, sign, shuffle per partition and format clusters with the
//!   dedup library's own functions, exchanging packed binary records through Spark; for the
//!   random projection over word embeddings (`src/spark_projection.rs`): `projection_settings`,
//!   `record_words`, `unit_words`, `document_words`, `Projection` (the vectors and the unit
//!   signer on the driver), `UnitSigner`, `WindowKeys` (the window search over a distributed
//!   sort).
//!
//! # Performance
//!
//! Batch calls release the GIL and run on the calling thread, so Python threads (or Spark's
//! Python workers) run batches in parallel. See the "python" section of `docs/performance.md`
//! for `sign_batch` throughput next to rensa and gaoya.
//!
//! # Build
//!
//! The crate is a `cdylib` whose Rust tests are disabled (they would have to load libpython);
//! `python/run-tests.sh` builds the wheel with maturin and runs the pytest suite, which
//! checks band keys bit for bit against the `textreuse` command.
#![deny(missing_docs)]
#![warn(missing_debug_implementations)]

mod arrow;
mod batch_kernels;
mod compat;
mod compat_rensa;
mod files;
mod index;
mod numpy;
mod report;
mod reuse;
mod signer;
mod spark;
mod spark_projection;
mod text;

use pyo3::prelude::*;

/// Native core of the textreuse package (import `textreuse` instead).
#[pymodule]
mod _native {
    #[pymodule_export]
    use crate::signer::{PySigner, dedup_settings};

    #[pymodule_export]
    use crate::index::PyLSHIndex;

    #[pymodule_export]
    use crate::compat::{
        PyAffinePermutations, PyBandBloom, PyBandTables, PyWeightedSampler, containment_params,
        lsh_params, optimal_partitions,
    };

    #[pymodule_export]
    use crate::compat_rensa::{
        PyRensaBandTables, PyRensaCMinHash, PyRensaDigestMatrix, PyRensaRMinHash, rensa_c_digests,
        rensa_c_sketches, rensa_hash_token_sets, rensa_r_flat, rensa_r_matrix, rensa_r_sketches,
    };

    #[pymodule_export]
    use crate::files::{PyOutputSet, remove_temporaries};

    #[pymodule_export]
    use crate::report::report;

    #[pymodule_export]
    use crate::reuse::{
        PyReuseCorpusView, PyReuseDocuments, PyReuseFileReader, PyReuseJob, check, reuse_align,
        reuse_chunk_vectors, reuse_document_terms, reuse_pick_documents,
    };

    #[pymodule_export]
    use crate::text::{
        align, char_offsets, classify, jaccard, paragraph_simhash, plan, sentences, set_similarity,
        shingle_count, shingles, simhash, similar_documents, tune, wang_fingerprints,
    };

    #[pymodule_export]
    use crate::spark::{
        PyBucketPairs, article_pairs_tsv, cluster_chunk, dedup_stats_json, distinct_pairs,
        document_keys, input_files, member_lines, pair_clusters, rank_contradictions, real_ids,
        sentence_keys, sentence_tasks,
    };

    #[pymodule_export]
    use crate::spark_projection::{
        PyProjection, PyUnitSigner, PyWindowKeys, document_words, projection_settings,
        record_words, unit_words,
    };

    #[pymodule_export]
    use crate::batch_kernels::{
        band_key_records, cluster_lines, connected_components, edit_keep, shingle_counts,
        signatures,
    };

    use pyo3::prelude::*;

    #[pymodule_init]
    fn init(m: &Bound<'_, PyModule>) -> PyResult<()> {
        m.add("__version__", env!("CARGO_PKG_VERSION"))?;
        m.add(
            "IndexLockedError",
            m.py().get_type::<crate::index::IndexLockedError>(),
        )?;
        m.add("MissingKeyError", crate::index::missing_key_error(m.py())?)?;
        // The defaults of `textreuse dedup`, from the libraries that own them, for the Python
        // side (kernels.py, the Spark backend) to read instead of repeating them.
        let defaults = pyo3::types::PyDict::new(m.py());
        defaults.set_item("shingle", textreuse_shingle::DEFAULT_SHINGLE_CHARS)?;
        defaults.set_item(
            "min_shingles",
            textreuse_shingle::units::DEFAULT_MIN_SHINGLES,
        )?;
        defaults.set_item(
            "max_shingles",
            textreuse_shingle::units::DEFAULT_MAX_SHINGLES,
        )?;
        defaults.set_item(
            "min_shingles_long_units",
            textreuse_shingle::units::DEFAULT_MIN_SHINGLES_LONG_UNITS,
        )?;
        defaults.set_item("hashes", textreuse_minhash::DEFAULT_HASHES)?;
        defaults.set_item("bits", textreuse_minhash::DEFAULT_BITS)?;
        defaults.set_item("rows", textreuse_minhash::DEFAULT_ROWS)?;
        defaults.set_item("bands", textreuse_minhash::DEFAULT_BANDS)?;
        defaults.set_item("oph_rows", textreuse_minhash::DEFAULT_OPH_ROWS)?;
        defaults.set_item("oph_bands", textreuse_minhash::DEFAULT_OPH_BANDS)?;
        defaults.set_item("seed", textreuse_minhash::DEFAULT_SEED)?;
        defaults.set_item("max_bucket", textreuse_shuffle::DEFAULT_MAX_BUCKET)?;
        defaults.set_item(
            "max_article_pairs",
            textreuse_dedup::DEFAULT_MAX_ARTICLE_PAIRS,
        )?;
        defaults.set_item("max_hamming", textreuse_dedup::DEFAULT_MAX_HAMMING)?;
        // ... of `textreuse dedup --method rp-embed` (whose --max-hamming defaults to the
        // window search's threshold, not SimHash's).
        defaults.set_item("projection_bits", textreuse_simhash::DEFAULT_DENSE_BITS)?;
        defaults.set_item("permutations", textreuse_simhash::DEFAULT_PERMUTATIONS)?;
        defaults.set_item("window", textreuse_simhash::DEFAULT_WINDOW)?;
        defaults.set_item(
            "projection_max_hamming",
            textreuse_simhash::DEFAULT_WINDOW_MAX_HAMMING,
        )?;
        let projection = textreuse_dedup::projection::EmbeddingProjection::new();
        defaults.set_item("stem", projection.stems())?;
        defaults.set_item("center", projection.centers())?;
        defaults.set_item("dim", textreuse_embed::defaults::DIM)?;
        defaults.set_item("epochs", textreuse_embed::defaults::EPOCHS)?;
        // ... and of `textreuse reuse`.
        defaults.set_item("reuse_terms", textreuse_reuse::DEFAULT_TERMS)?;
        defaults.set_item("reuse_top_docs", textreuse_reuse::DEFAULT_TOP_DOCS)?;
        defaults.set_item(
            "reuse_max_postings",
            textreuse_reuse::DEFAULT_MAX_TERM_POSTINGS,
        )?;
        defaults.set_item("reuse_min_score", textreuse_reuse::DEFAULT_MIN_SCORE)?;
        defaults.set_item(
            "reuse_min_words",
            textreuse_shingle::DEFAULT_CHUNK_MIN_WORDS,
        )?;
        defaults.set_item("reuse_min_length", textreuse_align::DEFAULT_MIN_PASSAGE_LEN)?;
        defaults.set_item(
            "reuse_fallback_ngram",
            textreuse_reuse::DEFAULT_REUSE_FALLBACK_NGRAM,
        )?;
        defaults.set_item("synonyms", textreuse_align::DEFAULT_SYNONYMS)?;
        m.add("DEFAULTS", defaults)?;
        // The files of each job's output directory (what an OutputSet for it may replace).
        let dedup_outputs = [
            textreuse_dedup::OutputDir::FILES,
            textreuse_dedup::OutputDir::FRONT_END_FILES,
        ]
        .concat();
        m.add("DEDUP_OUTPUTS", dedup_outputs)?;
        let reuse_outputs = [
            textreuse_reuse::ReuseOutputDir::FILES,
            textreuse_reuse::ReuseOutputDir::FRONT_END_FILES,
        ]
        .concat();
        m.add("REUSE_OUTPUTS", reuse_outputs)?;
        m.add("REUSE_PAIRS_HEADER", textreuse_reuse::PAIRS_HEADER)
    }
}
