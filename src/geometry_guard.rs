//! Third-party geometry (parry's GJK, EPA, convex hulls, V-HACD) asserts and indexes out of
//! bounds on input it cannot handle: shapes of 1e300 m, hulls of nearly flat point sets. Such a
//! panic must reach the user as an error naming the bodies, not as a crash, so every such call
//! runs inside [`guarded`], which catches it and returns its message.
//!
//! The scene's sanity bounds (`scene/limits.rs`) refuse the inputs known to do this before any
//! query runs; this guard is for those no bound foresaw.
//!
//! Rust's default panic hook prints "thread … panicked at …" before the panic unwinds, even when
//! it is caught. [`guarded`] installs, once, a hook that stays silent for a panic raised inside a
//! guarded call on the same thread and defers every other panic to the hook it replaced: a bug of
//! tumble's own still prints its location and backtrace.

use std::cell::Cell;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Once;

thread_local! {
    /// Guarded calls in progress on this thread (they can nest).
    static GUARDED: Cell<u32> = const { Cell::new(0) };
}

static INSTALL: Once = Once::new();

/// Runs `query`, a call into third-party geometry; a panic inside it is caught and returned as
/// its message (without the hook's report on stderr).
pub fn guarded<T>(query: impl FnOnce() -> T) -> Result<T, String> {
    INSTALL.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if GUARDED.with(Cell::get) == 0 {
                previous(info);
            }
        }));
    });
    GUARDED.with(|g| g.set(g.get() + 1));
    let result = catch_unwind(AssertUnwindSafe(query));
    GUARDED.with(|g| g.set(g.get() - 1));
    result.map_err(|payload| {
        let text = payload
            .downcast_ref::<&str>()
            .map(|s| s.to_string())
            .or_else(|| payload.downcast_ref::<String>().cloned())
            .unwrap_or_else(|| "a panic without a message".to_string());
        format!("the geometry library failed ({text})")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_its_message_and_the_guard_unwinds() {
        let caught = guarded(|| -> u32 { panic!("index out of bounds: the len is 2") });
        let message = caught.expect_err("the panic is caught");
        assert!(
            message.contains("index out of bounds: the len is 2"),
            "{message}"
        );
        assert_eq!(guarded(|| 7), Ok(7));
        assert_eq!(
            GUARDED.with(Cell::get),
            0,
            "the depth is restored after a panic"
        );
    }
}
