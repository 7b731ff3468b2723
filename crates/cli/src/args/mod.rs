//! Argument types that several subcommands share.
pub mod unit;
