//! SIGINT, SIGTERM and SIGHUP remove the run's temporary files before the process exits.

/// Handles SIGINT, SIGTERM and SIGHUP on a thread of their own: remove the run's
/// [`RunDir`](textreuse_corpus::files::RunDir)s and uncommitted
/// [`OutputSet`](textreuse_corpus::files::OutputSet)s, then exit. Without the handler (if it
/// cannot be installed) the signals kill the process as usual, and the next run removes what
/// was left.
pub fn remove_temporaries_on_signals(quiet: bool) {
    use signal_hook::consts::{SIGHUP, SIGINT, SIGTERM};
    let Ok(mut signals) = signal_hook::iterator::Signals::new([SIGINT, SIGTERM, SIGHUP]) else {
        return;
    };
    std::thread::spawn(move || {
        if let Some(signal) = signals.forever().next() {
            textreuse_corpus::files::remove_temporaries();
            if !quiet {
                eprintln!("\ntextreuse: interrupted (signal {signal}); temporary files removed");
            }
            std::process::exit(128 + signal);
        }
    });
}
