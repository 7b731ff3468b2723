//! The word-vector files of `testdata/embed`: one set of vectors written in every format, each
//! detected as its format and read to the same embeddings.

use std::path::PathBuf;

use textreuse_embed::{Embeddings, Format, read};

fn file(name: &str) -> Vec<u8> {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../../testdata/embed")
        .join(name);
    std::fs::read(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

fn expected() -> Embeddings {
    let mut e = Embeddings::new(3).unwrap();
    e.push("river", &[0.5, -1.0, 2.0]).unwrap();
    e.push("mill", &[0.001, 0.0, 0.25]).unwrap();
    e.push("Мельница", &[3.5, -0.125, 7.0]).unwrap();
    e
}

#[test]
fn every_format_reads_to_the_same_vectors() {
    for (name, detected) in [
        ("vectors.w2v.txt", Format::Word2VecText),
        // fastText's `.vec` is word2vec text, and detects as such.
        ("vectors.vec", Format::Word2VecText),
        ("vectors.glove.txt", Format::Glove),
        ("vectors.w2v.bin", Format::Word2VecBinary),
        ("vectors.gensim.bin", Format::Word2VecBinary),
    ] {
        let bytes = file(name);
        assert_eq!(Format::detect(&bytes), detected, "{name}");
        assert_eq!(read(&bytes[..], detected).unwrap(), expected(), "{name}");
    }
    // The fastText reading of the `.vec` file gives the same.
    assert_eq!(
        read(&file("vectors.vec")[..], Format::FastText).unwrap(),
        expected()
    );
}
