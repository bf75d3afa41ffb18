//! The spanned-table reader: the scene text with its name ([`Src`]) to turn byte spans into
//! `file:line:col`, and a table being read ([`Tab`]) with typed getters that check keys, types
//! and ranges and name the file, position, owner and key of every error.

use super::SceneError;
use glam::{DQuat, DVec3};
use std::ops::Range;
use toml::de::{DeArray, DeTable, DeValue};
use toml::Spanned;

/// A byte range in the scene text.
pub(super) type Span = Range<usize>;

/// The scene text and its name, to turn byte spans into `file:line:col`.
pub(super) struct Src<'a> {
    pub(super) text: &'a str,
    pub(super) file: String,
    /// The scene file's folder: files the scene names (meshes) are relative to it.
    pub(super) dir: std::path::PathBuf,
    /// Where a stored copy of the scene keeps the files it names (a run directory's
    /// `meshes/`): `file` value as written → path; `None`: relative to `dir`.
    pub(super) stored: Option<&'a std::collections::BTreeMap<String, std::path::PathBuf>>,
    /// The files the scene read: `file` value as written, and the path read.
    pub(super) read: std::cell::RefCell<Vec<(String, std::path::PathBuf)>>,
    /// The byte offset of each line's start, ascending (see [`Src::line_starts_of`]).
    pub(super) line_starts: Vec<usize>,
}

impl Src<'_> {
    /// The path of a file the scene names (a mesh), recorded among the files it read.
    pub(super) fn named_file(&self, file: &str) -> std::path::PathBuf {
        let path = match self.stored.and_then(|m| m.get(file)) {
            Some(p) => p.clone(),
            None => self.dir.join(file),
        };
        let mut read = self.read.borrow_mut();
        if !read.iter().any(|(f, _)| f == file) {
            read.push((file.to_string(), path.clone()));
        }
        path
    }

    /// The byte offset of each line's start in `text`: found once, so that locating every
    /// body of a scene listing thousands costs a search each, not a scan of the text before it
    /// (quadratic: 11 s for a scene of 10 000 bodies).
    pub(super) fn line_starts_of(text: &str) -> Vec<usize> {
        std::iter::once(0)
            .chain(text.match_indices('\n').map(|(i, _)| i + 1))
            .collect()
    }

    /// 1-based line and column (in characters) of a byte offset.
    pub(super) fn line_col(&self, offset: usize) -> (usize, usize) {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        // The lines starting at or before `offset`; the first starts at 0, so there is one.
        let line = self.line_starts.partition_point(|&s| s <= offset);
        let line_start = self.line_starts[line - 1];
        let col = self.text[line_start..offset].chars().count() + 1;
        (line, col)
    }

    /// `file:line:col` of a span's start.
    pub(super) fn loc(&self, span: &Span) -> String {
        let (line, col) = self.line_col(span.start);
        format!("{}:{line}:{col}", self.file)
    }

    /// An error located at `span`.
    pub(super) fn error(&self, span: &Span, message: &str) -> SceneError {
        SceneError::new(format!("{}: {message}", self.loc(span)))
    }
}

/// A table being read: the text it came from, who it belongs to (for messages) and the key path
/// leading to it.
pub(super) struct Tab<'s, 't, 'i> {
    pub(super) src: &'s Src<'s>,
    pub(super) table: &'t DeTable<'i>,
    /// Where the table is (its `[header]` or inline `{`), blamed for missing keys.
    pub(super) span: Span,
    /// Who the table belongs to: `world`, `materials.rubber`, `bodies[2] "ball"`.
    pub(super) who: String,
    /// Key path from the owner to this table, with a trailing dot: "" or "shape.".
    pub(super) path: String,
}

impl<'s, 't, 'i> Tab<'s, 't, 'i> {
    /// An error at `span` about this table's owner.
    pub(super) fn error_at(&self, span: &Span, message: &str) -> SceneError {
        self.src.error(span, &format!("{}: {message}", self.who))
    }

    /// An error at `span` about the value of `key`: `file:l:c: who: path.key message`.
    pub(super) fn value_error(&self, span: &Span, key: &str, message: &str) -> SceneError {
        self.error_at(span, &format!("{}{key} {message}", self.path))
    }

    /// The error for a required key that is absent, blamed on the table itself.
    pub(super) fn missing(&self, key: &str) -> SceneError {
        self.error_at(&self.span, &format!("missing key {}{key}", self.path))
    }

    /// Refuses keys not in `allowed`, naming the first unknown one in file order.
    pub(super) fn check_keys(&self, allowed: &[&str]) -> Result<(), SceneError> {
        let unknown = self
            .table
            .iter()
            .filter(|(k, _)| !allowed.contains(&k.get_ref().as_ref()))
            .min_by_key(|(k, _)| k.span().start);
        match unknown {
            None => Ok(()),
            Some((k, _)) => Err(self.error_at(
                &k.span(),
                &format!(
                    "unknown key \"{}{}\" (expected one of: {})",
                    self.path,
                    k.get_ref(),
                    allowed.join(", ")
                ),
            )),
        }
    }

    pub(super) fn get(&self, key: &str) -> Option<&'t Spanned<DeValue<'i>>> {
        self.table.get(key)
    }

    /// The sub-table at `key`, if present.
    pub(super) fn sub_table(
        &self,
        key: &str,
        who: String,
        path: String,
    ) -> Result<Option<Tab<'s, 't, 'i>>, SceneError> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        match v.get_ref() {
            DeValue::Table(table) => Ok(Some(Tab {
                src: self.src,
                table,
                span: v.span(),
                who,
                path,
            })),
            other => Err(self.src.error(
                &v.span(),
                &format!("{key} must be a table (got {})", other.type_str()),
            )),
        }
    }

    /// The array of tables at `key` (`[[key]]` entries or an inline array), if present.
    pub(super) fn array_of_tables(
        &self,
        key: &str,
    ) -> Result<Option<(&'t DeArray<'i>, Span)>, SceneError> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        match v.get_ref() {
            DeValue::Array(a) => Ok(Some((a, v.span()))),
            other => Err(self.src.error(
                &v.span(),
                &format!(
                    "{key} must be an array of tables ([[{key}]] entries) (got {})",
                    other.type_str()
                ),
            )),
        }
    }

    /// An element of an array of tables as a [`Tab`] owned by `who`.
    pub(super) fn element_table(
        &self,
        item: &'t Spanned<DeValue<'i>>,
        who: String,
    ) -> Result<Tab<'s, 't, 'i>, SceneError> {
        match item.get_ref() {
            DeValue::Table(table) => Ok(Tab {
                src: self.src,
                table,
                span: item.span(),
                who,
                path: String::new(),
            }),
            other => Err(self.src.error(
                &item.span(),
                &format!("{who} must be a table (got {})", other.type_str()),
            )),
        }
    }

    /// A string key that must be one of `options` (its spelling and the value it means), or
    /// absent; any other string is an error listing the options in order.
    pub(super) fn choice<T: Copy>(
        &self,
        key: &str,
        options: &[(&str, T)],
    ) -> Result<Option<T>, SceneError> {
        let Some((given, span)) = self.string(key)? else {
            return Ok(None);
        };
        if let Some(&(_, value)) = options.iter().find(|(name, _)| *name == given) {
            return Ok(Some(value));
        }
        let names: Vec<String> = options.iter().map(|(n, _)| format!("\"{n}\"")).collect();
        let listed = match names.split_last() {
            Some((last, [])) => last.clone(),
            Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
            None => String::new(),
        };
        Err(self.value_error(&span, key, &format!("must be {listed} (got \"{given}\")")))
    }

    /// A string value at `key`, if present.
    pub(super) fn string(&self, key: &str) -> Result<Option<(&'t str, Span)>, SceneError> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        match v.get_ref() {
            DeValue::String(s) => Ok(Some((s.as_ref(), v.span()))),
            other => Err(self.value_error(
                &v.span(),
                key,
                &format!("must be a string (got {})", other.type_str()),
            )),
        }
    }

    /// A finite number (integer or float) from a value; `key` names it in errors.
    pub(super) fn number_value(&self, v: &Spanned<DeValue>, key: &str) -> Result<f64, SceneError> {
        let x = match v.get_ref() {
            DeValue::Float(f) => f.as_str().parse::<f64>().ok(),
            DeValue::Integer(i) => i64::from_str_radix(i.as_str(), i.radix())
                .ok()
                .map(|i| i as f64),
            other => {
                return Err(self.value_error(
                    &v.span(),
                    key,
                    &format!("must be a number (got {})", other.type_str()),
                ))
            }
        };
        match x {
            Some(x) if x.is_finite() => Ok(x),
            Some(x) => Err(self.value_error(
                &v.span(),
                key,
                &format!("must be a finite number (got {x})"),
            )),
            None => Err(self.value_error(&v.span(), key, "is not a representable number")),
        }
    }

    /// An integer from a value; `key` names it in errors.
    pub(super) fn integer_value(
        &self,
        v: &Spanned<DeValue>,
        key: &str,
    ) -> Result<(i64, Span), SceneError> {
        match v.get_ref() {
            DeValue::Integer(i) => i64::from_str_radix(i.as_str(), i.radix())
                .map(|n| (n, v.span()))
                .map_err(|_| self.value_error(&v.span(), key, "is out of range")),
            other => Err(self.value_error(
                &v.span(),
                key,
                &format!("must be an integer (got {})", other.type_str()),
            )),
        }
    }

    /// A finite number at `key`, if present.
    pub(super) fn number(&self, key: &str) -> Result<Option<(f64, Span)>, SceneError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => Ok(Some((self.number_value(v, key)?, v.span()))),
        }
    }

    /// An integer in `lo..=hi` at `key`, if present.
    pub(super) fn count_in(
        &self,
        key: &str,
        lo: usize,
        hi: usize,
    ) -> Result<Option<usize>, SceneError> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        let (n, span) = self.integer_value(v, key)?;
        match usize::try_from(n) {
            Ok(n) if (lo..=hi).contains(&n) => Ok(Some(n)),
            _ => Err(self.value_error(
                &span,
                key,
                &format!("must be an integer from {lo} to {hi} (got {n})"),
            )),
        }
    }

    /// A number > 0 at `key`, if present.
    pub(super) fn positive(&self, key: &str) -> Result<Option<(f64, Span)>, SceneError> {
        match self.number(key)? {
            Some((x, span)) if x <= 0.0 => {
                Err(self.value_error(&span, key, &format!("must be > 0 (got {x})")))
            }
            other => Ok(other),
        }
    }

    /// A required shape dimension: a finite number > 0.
    pub(super) fn dimension(&self, key: &str) -> Result<f64, SceneError> {
        match self.number(key)? {
            None => Err(self.missing(key)),
            Some((x, span)) if x <= 0.0 => Err(self.value_error(
                &span,
                key,
                &format!("must be > 0 (got {x}): degenerate shape"),
            )),
            Some((x, _)) => Ok(x),
        }
    }

    /// The elements of an array value.
    pub(super) fn array(
        &self,
        v: &'t Spanned<DeValue<'i>>,
        key: &str,
    ) -> Result<&'t [Spanned<DeValue<'i>>], SceneError> {
        match v.get_ref() {
            DeValue::Array(a) => Ok(a),
            other => Err(self.value_error(
                &v.span(),
                key,
                &format!("must be an array (got {})", other.type_str()),
            )),
        }
    }

    /// The elements of an array value that must have exactly `len` of them.
    pub(super) fn array_of_len(
        &self,
        v: &'t Spanned<DeValue<'i>>,
        key: &str,
        len: usize,
    ) -> Result<&'t [Spanned<DeValue<'i>>], SceneError> {
        let items = self.array(v, key)?;
        if items.len() != len {
            return Err(self.value_error(
                &v.span(),
                key,
                &format!("must have {len} elements (got {})", items.len()),
            ));
        }
        Ok(items)
    }

    /// Three finite numbers from an array value.
    pub(super) fn vec3_value(
        &self,
        v: &'t Spanned<DeValue<'i>>,
        key: &str,
    ) -> Result<DVec3, SceneError> {
        let items = self.array_of_len(v, key, 3)?;
        let mut out = [0.0; 3];
        for (k, item) in items.iter().enumerate() {
            out[k] = self.number_value(item, &format!("{key}[{k}]"))?;
        }
        Ok(DVec3::from_array(out))
    }

    /// A vector `[x, y, z]` at `key`, if present.
    pub(super) fn vec3(&self, key: &str) -> Result<Option<(DVec3, Span)>, SceneError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => Ok(Some((self.vec3_value(v, key)?, v.span()))),
        }
    }

    /// Where this table was defined, for messages: "file:line" of its start.
    pub(super) fn origin(&self) -> String {
        format!("{}:{}", self.src.file, self.src.line_col(self.span.start).0)
    }

    /// A generator's `seed`: an integer >= 0, 0 if absent.
    pub(super) fn seed(&self) -> Result<u64, SceneError> {
        match self.get("seed") {
            None => Ok(0),
            Some(v) => {
                let (s, span) = self.integer_value(v, "seed")?;
                u64::try_from(s).map_err(|_| {
                    self.value_error(&span, "seed", &format!("must be >= 0 (got {s})"))
                })
            }
        }
    }

    /// A unit quaternion `[w, x, y, z]` at `key`, if present; normalised when its norm is within
    /// 1e-6 of 1 (so that rounded decimals are accepted), refused otherwise (a quaternion far from
    /// unit is a mistake, not a rounding error).
    pub(super) fn quat(&self, key: &str) -> Result<Option<DQuat>, SceneError> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        let items = self.array_of_len(v, key, 4)?;
        let mut q = [0.0; 4];
        for (k, item) in items.iter().enumerate() {
            q[k] = self.number_value(item, &format!("{key}[{k}]"))?;
        }
        let [w, x, y, z] = q;
        let quat = DQuat::from_xyzw(x, y, z, w);
        let norm = quat.length();
        if (norm - 1.0).abs() > 1e-6 {
            return Err(self.value_error(
                &v.span(),
                key,
                &format!(
                    "must be a unit quaternion [w, x, y, z] (got norm {norm}; within 1e-6 of 1 \
                     is normalised)"
                ),
            ));
        }
        Ok(Some(quat.normalize()))
    }
}

/// `[x, y, z]` for messages.
pub(super) fn fmt_vec(v: DVec3) -> String {
    format!("[{}, {}, {}]", v.x, v.y, v.z)
}

#[cfg(test)]
mod tests {
    use super::Src;

    /// `line_col` from the line starts found once agrees with counting the text before each
    /// offset, at every byte of a text with multi-byte characters, blank lines and CR LF.
    #[test]
    fn line_col_from_line_starts_matches_counting() {
        let text = "[world]\r\n\nname = \"é—ü\"\n\n  x = 1\nlast";
        let src = Src {
            text,
            file: "t.toml".into(),
            dir: Default::default(),
            stored: None,
            read: Default::default(),
            line_starts: Src::line_starts_of(text),
        };
        for offset in 0..=text.len() + 2 {
            let mut at = offset.min(text.len());
            while !text.is_char_boundary(at) {
                at -= 1;
            }
            let before = &text[..at];
            let line = before.matches('\n').count() + 1;
            let start = before.rfind('\n').map_or(0, |i| i + 1);
            let col = before[start..].chars().count() + 1;
            assert_eq!(src.line_col(offset), (line, col), "offset {offset}");
        }
    }
}
