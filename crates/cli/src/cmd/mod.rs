//! One module per subcommand, each with `Args` (clap) and `run(&Args, &Global)`.
pub mod align;
pub mod check;
pub mod dedup;
pub mod docsim;
pub mod explore;
pub mod extract;
pub mod index;
pub mod pan_eval;
pub mod report;
pub mod reuse;
pub mod sentences;
pub mod simhash;
pub mod tune;
