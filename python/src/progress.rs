//! `Simulation.run(progress=True)`'s line: how far the run got, redrawn in place on Python's
//! `sys.stderr` (where a notebook or pytest sees it, which the process's own stderr is not) and
//! ended with a newline however the run ends: reached, failed or interrupted.

use pyo3::prelude::*;

/// The progress line of one `run`; nothing is written when it is off.
pub struct Progress<'py> {
    /// `sys.stderr`, when the line is on.
    stderr: Option<Bound<'py, PyAny>>,
    /// The time the run goes to (s).
    until: f64,
    /// Whether a line has been started (and so must be ended).
    started: bool,
}

impl<'py> Progress<'py> {
    /// The line of a run to `until`, shown when `on`.
    pub fn new(py: Python<'py>, on: bool, until: f64) -> PyResult<Self> {
        let stderr = match on {
            // None under pythonw, where there is nowhere to show it.
            true => Some(py.import("sys")?.getattr("stderr")?).filter(|s| !s.is_none()),
            false => None,
        };
        Ok(Progress {
            stderr,
            until,
            started: false,
        })
    }

    /// Redraws the line at simulated time `reached`.
    pub fn show(&mut self, reached: f64) -> PyResult<()> {
        let Some(stderr) = &self.stderr else {
            return Ok(());
        };
        self.started = true;
        let until = self.until;
        stderr.call_method1("write", (format!("\r  t = {reached:.4} s of {until} s"),))?;
        stderr.call_method0("flush")?;
        Ok(())
    }
}

impl Drop for Progress<'_> {
    /// Ends the line, so that what is printed next (a traceback included) starts on its own.
    fn drop(&mut self) {
        if let (Some(stderr), true) = (&self.stderr, self.started) {
            // Nothing to report a failure to here: the run's own outcome is what the caller gets.
            let _ = stderr.call_method1("write", ("\n",));
            let _ = stderr.call_method0("flush");
        }
    }
}
