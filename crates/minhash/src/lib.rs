//! MinHash signatures (work in progress).
#![deny(missing_docs)]
