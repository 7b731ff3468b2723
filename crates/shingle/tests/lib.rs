//! Integration tests of textreuse-shingle: golden files from real Wikipedia text and property
//! tests of the invariants every unit must keep.
mod edit;
mod golden;
mod properties;
