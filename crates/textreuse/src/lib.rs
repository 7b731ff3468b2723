//! textreuse: locality-sensitive hashing and text-reuse detection.
#![deny(missing_docs)]
#![no_std]

#[doc(inline)]
pub use textreuse_hash as hash;
#[doc(inline)]
pub use textreuse_minhash as minhash;
