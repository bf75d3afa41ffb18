//! Counts in messages: "1 body", "2 bodies", "0 trials", one helper so that no message says
//! "1 bodies".

use std::fmt::Display;

/// `n` and the noun, singular for exactly one: `count(1, "body", "bodies")` is "1 body".
pub fn count<N: Copy + Display + TryInto<u64>>(n: N, one: &str, many: &str) -> String {
    let single = n.try_into().is_ok_and(|n| n == 1);
    format!("{n} {}", if single { one } else { many })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_is_singular_and_every_other_count_plural() {
        assert_eq!(count(1u64, "body", "bodies"), "1 body");
        assert_eq!(count(0usize, "body", "bodies"), "0 bodies");
        assert_eq!(count(2u32, "trial", "trials"), "2 trials");
    }
}
