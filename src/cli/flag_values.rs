//! Numeric flag values, parsed with messages that say what the number means and its bound
//! (clap's own range check says `0 is not in 1..18446744073709551615`).

/// Most worker threads `--threads` may ask for: far more than any machine's cores, and few
/// enough to start (99 999 999 999 made the thread pool try to start them all).
pub const MAX_THREADS: u64 = 1024;

/// A whole number from `lo` to `hi` for a flag; `meaning` says what it is, in the message.
fn whole(text: &str, lo: u64, hi: u64, meaning: &str) -> Result<u64, String> {
    let bound = if hi == u64::MAX {
        format!("at least {lo}")
    } else {
        format!("from {lo} to {hi}")
    };
    match text.trim().parse::<u64>() {
        Ok(n) if (lo..=hi).contains(&n) => Ok(n),
        Ok(_) => Err(format!("must be {bound} ({meaning})")),
        Err(_) => Err(format!("must be a whole number, {bound} ({meaning})")),
    }
}

/// `--threads N`: worker threads.
pub fn threads(text: &str) -> Result<u64, String> {
    whole(
        text,
        1,
        MAX_THREADS,
        "the number of worker threads; leave --threads out for one per core",
    )
}

/// `--trials N` of `tumble batch`.
pub fn trials(text: &str) -> Result<u64, String> {
    whole(
        text,
        1,
        u64::MAX,
        "the number of trials to run; leave --trials out for the scene's [batch] trials",
    )
}

/// `--every K`: every K-th frame is kept (run, view) or drawn (render).
pub fn every(text: &str) -> Result<u64, String> {
    whole(
        text,
        1,
        u64::MAX,
        "every K-th frame is taken; 1 takes them all",
    )
}

/// `--repeat N` of `tumble bench`.
pub fn repeat(text: &str) -> Result<u64, String> {
    whole(text, 1, u64::MAX, "how many times to run the scene")
}

/// Most pixels a picture may have on a side (`--width`, `--height`).
pub const MAX_PIXELS: u64 = 8192;

/// `--width W` and `--height H` of `tumble render`, in pixels.
pub fn pixels(text: &str) -> Result<u32, String> {
    let n = whole(text, 1, MAX_PIXELS, "the picture's size in pixels")?;
    Ok(u32::try_from(n).unwrap_or(u32::MAX))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn zero_says_at_least_one_and_what_the_number_means() {
        let e = threads("0").unwrap_err();
        assert_eq!(
            e,
            "must be from 1 to 1024 (the number of worker threads; leave --threads out for one \
             per core)"
        );
        assert!(trials("0")
            .unwrap_err()
            .starts_with("must be at least 1 (the number of trials"));
        assert!(every("x")
            .unwrap_err()
            .starts_with("must be a whole number, at least 1"));
        assert_eq!(repeat("3"), Ok(3));
        assert_eq!(pixels("8192"), Ok(8192));
        assert!(pixels("8193").unwrap_err().contains("from 1 to 8192"));
    }
}
