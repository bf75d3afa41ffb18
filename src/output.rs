//! Output files: frames.csv and summary.json (STUB: the scene helper implements this file).
