//! SIGINT (Ctrl-C) and SIGTERM (`kill`, a cluster's time limit, Slurm's `scancel`): the first
//! asks the run to stop at the end of the current frame and write its summary; a second one,
//! for a user who will not wait for a long frame, exits at once with code 130.

use std::sync::atomic::{AtomicBool, Ordering};

/// Set by the first signal, read at each frame's end.
static REQUESTED: AtomicBool = AtomicBool::new(false);

/// Installs the handler (once per process; later calls do nothing). If it cannot be installed,
/// the signals keep their default action, which kills the run as before.
pub fn install() {
    let _ = ctrlc::set_handler(|| {
        if REQUESTED.swap(true, Ordering::SeqCst) {
            // ctrlc runs this on its own thread, not in the signal handler, so exiting is safe.
            eprintln!("interrupted again: exiting without finishing the frame");
            std::process::exit(130);
        }
    });
}

/// Whether a signal asked the run to stop.
pub fn requested() -> bool {
    REQUESTED.load(Ordering::SeqCst)
}
