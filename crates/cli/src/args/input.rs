//! The input flags of the commands that read documents, and the bundled samples.

/// The bundled sample dumps (see `data/README.md`), used when no input is given.
pub fn bundled_samples() -> Vec<std::path::PathBuf> {
    let data = std::path::Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../../data"));
    // Canonical, so that the `source` of every cluster member is a plain path.
    let data = data.canonicalize().unwrap_or_else(|_| data.to_path_buf());
    ["enwiki-part-201.xml.bz2", "enwiki-sample-206.xml.bz2"]
        .iter()
        .map(|f| data.join(f))
        .collect()
}

/// The input flags of every command that reads documents: the field names of JSON Lines records.
#[derive(Debug, clap::Args)]
pub struct InputArgs {
    /// JSON Lines and Parquet: the field holding the document id (an integer or a string, kept
    /// as written).
    #[arg(long, default_value = "id", value_name = "NAME")]
    pub id_field: String,
    /// JSON Lines and Parquet: the field holding the text (JSON Lines: a string, or an array of
    /// paragraphs).
    #[arg(long, default_value = "text", value_name = "NAME")]
    pub text_field: String,
    /// JSON Lines and Parquet: the field holding the title (optional).
    #[arg(long, default_value = "title", value_name = "NAME")]
    pub title_field: String,
    /// Read only the files of input directories whose path (relative to the directory) matches
    /// this glob (`*.jsonl.gz`, `**/part-*`); repeat for several. Files named directly are
    /// always read.
    #[arg(long, value_name = "GLOB")]
    pub include: Vec<String>,
}

impl InputArgs {
    /// The `--include` patterns; an error names a bad one.
    pub fn include(&self) -> anyhow::Result<textreuse_corpus::source::Include> {
        use anyhow::Context;
        textreuse_corpus::source::Include::new(&self.include).context("invalid --include")
    }

    /// The inputs `files`, read with these field names, include patterns and `threads`
    /// decompression threads.
    pub fn inputs(
        &self,
        files: &[std::path::PathBuf],
        threads: usize,
    ) -> anyhow::Result<textreuse_corpus::Inputs> {
        Ok(textreuse_corpus::Inputs::new(files)
            .threads(threads)
            .include(self.include()?)
            .fields(textreuse_corpus::JsonFields {
                id: self.id_field.clone(),
                text: self.text_field.clone(),
                title: self.title_field.clone(),
            }))
    }
}
