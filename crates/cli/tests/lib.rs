//! The command line end to end: one test binary, a module per subcommand, one shared helper.
mod align;
mod check;
mod common;
mod dedup;
mod documents;
mod embed;
mod faults;
mod flags;
mod index;
mod inputs;
mod report;
mod reuse;
mod sentences;
mod simhash;
mod tune;
mod walk;
mod web;
