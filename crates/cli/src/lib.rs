//! Library side of the `textreuse` command line: the pipeline stages, as plain record streams
//! that the binary composes (and that tests and benches call directly).
//!
//! This crate is the only place, beside `textreuse-wikidump`, that does I/O.
#![warn(missing_docs)]

pub mod input;
pub mod pipeline;
pub mod sources;
