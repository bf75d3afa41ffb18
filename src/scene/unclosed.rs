//! Where an unclosed bracket or string opened. The TOML parser reports a syntax error where it
//! noticed it, which for an array left open on line 3 may be line 6 (the next `[[bodies]]` read
//! as its element); the reader needs the line where the bracket opened too.
//!
//! The text is scanned as TOML lexes it (comments, the four kinds of strings, brackets and
//! braces); an opener still open at the end of the text is unclosed.

/// What was left open.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Opener {
    /// `[`: an array (or a table header).
    Array,
    /// `{`: an inline table.
    InlineTable,
    /// A string, by its quote: `"`, `'`, `"""` or `'''`.
    String(&'static str),
}

impl Opener {
    /// How a message names it and its closer: "the array `[`" and "`]`".
    pub(super) fn describe(self) -> (String, String) {
        match self {
            Opener::Array => ("the array `[`".into(), "`]`".into()),
            Opener::InlineTable => ("the inline table `{`".into(), "`}`".into()),
            Opener::String(quote) => (format!("the string `{quote}`"), format!("`{quote}`")),
        }
    }
}

/// The innermost bracket, brace or string that opens before byte `before` and is never closed,
/// with the byte offset where it opens.
pub(super) fn unclosed_before(text: &str, before: usize) -> Option<(Opener, usize)> {
    let bytes = text.as_bytes();
    let mut open: Vec<(Opener, usize)> = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        match bytes[i] {
            b'#' => i = line_end(bytes, i),
            b'[' => {
                open.push((Opener::Array, i));
                i += 1;
            }
            b'{' => {
                open.push((Opener::InlineTable, i));
                i += 1;
            }
            close @ (b']' | b'}') => {
                let want = if close == b']' {
                    Opener::Array
                } else {
                    Opener::InlineTable
                };
                if open.last().is_some_and(|(o, _)| *o == want) {
                    open.pop();
                }
                i += 1;
            }
            quote @ (b'"' | b'\'') => match string_end(bytes, i, quote) {
                Some(end) => i = end,
                // A string open to the end of its line (or of the text) is the innermost
                // unclosed thing there: nothing after it is read as TOML.
                None => {
                    let quote = match (quote, bytes[i..].starts_with(&[quote; 3])) {
                        (b'"', false) => "\"",
                        (b'"', true) => "\"\"\"",
                        (_, false) => "'",
                        (_, true) => "'''",
                    };
                    open.push((Opener::String(quote), i));
                    break;
                }
            },
            _ => i += 1,
        }
    }
    open.into_iter().rev().find(|&(_, at)| at < before)
}

/// The offset of the newline ending the line at `i` (or the text's end).
fn line_end(bytes: &[u8], i: usize) -> usize {
    bytes[i..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(bytes.len(), |k| i + k)
}

/// The offset just past the string opening at `start` with `quote`, or `None` when it is not
/// closed: a one-line string by its line's end, a multi-line one (three quotes) by the text's.
/// Basic strings (`"`) take backslash escapes; literal ones (`'`) do not.
fn string_end(bytes: &[u8], start: usize, quote: u8) -> Option<usize> {
    let escapes = quote == b'"';
    let triple = bytes[start..].starts_with(&[quote; 3]);
    let mut i = start + if triple { 3 } else { 1 };
    while i < bytes.len() {
        let b = bytes[i];
        if escapes && b == b'\\' {
            i += 2;
        } else if triple && bytes[i..].starts_with(&[quote; 3]) {
            // Up to two more quotes may end the content (`""""` closes after one quote).
            let run = bytes[i..]
                .iter()
                .take_while(|&&c| c == quote)
                .count()
                .min(5);
            return Some(i + run);
        } else if !triple && b == quote {
            return Some(i + 1);
        } else if !triple && b == b'\n' {
            return None;
        } else {
            i += 1;
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_array_left_open_is_found_past_the_balanced_brackets_after_it() {
        let text = "[world]\ngravity = [0, 0,\n\n[[bodies]]\nname = \"a\"\n";
        let at = text.find("[0").unwrap();
        assert_eq!(unclosed_before(text, text.len()), Some((Opener::Array, at)));
        // An error before the bracket is not about it.
        assert_eq!(unclosed_before(text, at), None);
    }

    #[test]
    fn brackets_in_strings_and_comments_do_not_count() {
        let text = "a = \"[\" # [ {\nb = '{'\nc = \"\"\"\n[\n\"\"\"\nd = [1, \"]\"\n";
        let at = text.find("[1").unwrap();
        assert_eq!(unclosed_before(text, text.len()), Some((Opener::Array, at)));
    }

    #[test]
    fn an_inline_table_and_a_string_left_open_are_named() {
        let text = "s = { type = \"sphere\", radius = 0.1\n";
        assert_eq!(
            unclosed_before(text, text.len()),
            Some((Opener::InlineTable, 4))
        );
        let text = "name = \"ball\nmass = 1\n";
        assert_eq!(
            unclosed_before(text, text.len()),
            Some((Opener::String("\""), 7))
        );
        let text = "x = \"\"\"\nopen\n";
        assert_eq!(
            unclosed_before(text, text.len()),
            Some((Opener::String("\"\"\""), 4))
        );
        assert_eq!(unclosed_before("a = [1, [2]]\nb = \"\\\"\"\n", 99), None);
    }
}
