//! One module per subcommand, each with `Args` (clap) and `run(&Args, &Global)`.
pub mod dedup;
pub mod extract;
pub mod sentences;
pub mod tune;
pub mod shuffle_bench;
pub mod pan_eval;
pub mod align;
