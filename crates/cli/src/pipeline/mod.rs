//! The stages of the dedup pipeline, each a plain record stream (see `docs/ARCHITECTURE.md`).

pub mod article_pairs;
pub mod classify;
pub mod dedup;
pub mod features;
pub mod shuffle;
