//! Argument types that several subcommands share.
pub mod align;
pub mod filter;
pub mod input;
pub mod max_memory;
pub mod signer;
pub mod size;
pub mod unit;
pub mod values;
pub mod web;
pub mod work_mem;
