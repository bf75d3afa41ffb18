//! Values a scene error quotes, shortened: a name or a shape type of 100 000 characters, or a
//! number that f64's `Display` writes out in 301 digits (1e300), would bury the message.

/// Longest quoted value a message repeats whole (characters).
const MAX_QUOTED: usize = 80;

/// `message` with every quoted value longer than [`MAX_QUOTED`] characters cut to its start and
/// its length (`"aaaa…" (100000 characters)`), and every number written out in more than 40
/// digits (f64's `Display` writes 1e300 as 301 of them) in exponent form.
pub fn shorten_values(message: &str) -> String {
    let mut out = String::with_capacity(message.len().min(8 * MAX_QUOTED));
    // The length of a value cut short, written after its closing quote.
    let mut note = None;
    for (k, part) in message.split('"').enumerate() {
        if k > 0 {
            out.push('"');
            out.extend(note.take());
        }
        let chars = part.chars().count();
        if k % 2 == 1 && chars > MAX_QUOTED {
            out.extend(part.chars().take(MAX_QUOTED / 2));
            out.push('…');
            note = Some(format!(" ({chars} characters)"));
        } else {
            out.push_str(&shorten_numbers(part));
        }
    }
    out.extend(note);
    out
}

/// Numbers written out in more than 40 characters, standing alone (not inside a word or a
/// path), in exponent form.
fn shorten_numbers(text: &str) -> String {
    let is_num = |c: char| c.is_ascii_digit() || c == '.' || c == '-';
    let in_word = |c: Option<char>| c.is_some_and(|c| c.is_alphanumeric() || "/_\\".contains(c));
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(start) = rest.find(is_num) {
        let before = out.chars().last();
        out.push_str(&rest[..start]);
        let run = &rest[start..];
        let end = run.find(|c: char| !is_num(c)).unwrap_or(run.len());
        let (number, after) = (&run[..end], run[end..].chars().next());
        let alone = !in_word(rest[..start].chars().last().or(before)) && !in_word(after);
        match number.parse::<f64>() {
            Ok(x) if number.len() > 40 && alone => out.push_str(&format!("{x:e}")),
            _ => out.push_str(number),
        }
        rest = &run[end..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::shorten_values;

    #[test]
    fn long_values_are_cut_and_long_numbers_take_an_exponent() {
        let long = "x".repeat(100_000);
        let m = shorten_values(&format!(
            "a.toml:3:9: type must be one of box (got \"{long}\")"
        ));
        assert!(m.len() < 200, "{m}");
        assert!(m.ends_with("xxx…\" (100000 characters))"), "{m}");
        let m = shorten_values(&format!("a.toml:1:1: mass must be > 0 (got {})", -1e300));
        assert_eq!(m, "a.toml:1:1: mass must be > 0 (got -1e300)");
        let path = format!("run/{}/a.toml: \"short\" kept", "1".repeat(50));
        assert_eq!(shorten_values(&path), path);
    }
}
