//! The process's peak resident memory, read and reset per run (Linux `/proc`; none elsewhere).

/// Peak resident memory of this process (MiB): `VmHWM` from `/proc/self/status`; `None` where
/// there is no such file (not Linux).
pub fn peak_memory_mib() -> Option<f64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find_map(|l| l.strip_prefix("VmHWM:"))?;
    let kib: f64 = line.trim().strip_suffix("kB")?.trim().parse().ok()?;
    Some(kib / 1024.0)
}

/// Resets the peak resident memory to the current one (Linux: writing 5 to
/// `/proc/self/clear_refs`). Where that is not possible the peak stays the process's, which only
/// overstates the later runs of a repeat.
pub(super) fn reset_peak_memory() {
    let _ = std::fs::write("/proc/self/clear_refs", "5");
}
