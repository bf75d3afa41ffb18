//! The WGSL sources, embedded at build time, and the tiny import step that resolves them (vello's
//! `#import` idea): a line `#import name` is replaced by `shaders/shared/name.wgsl`, once per
//! module, recursively. Resolution needs no device, so `tests/stages_naga.rs` parses and validates
//! every stage with naga alone.

/// Shared snippets, by import name.
pub const SHARED: &[(&str, &str)] = &[
    ("body", include_str!("../../shaders/shared/body.wgsl")),
    ("bump", include_str!("../../shaders/shared/bump.wgsl")),
    (
        "dispatch",
        include_str!("../../shaders/shared/dispatch.wgsl"),
    ),
];

/// One source per stage, by stage name (also the CPU twin's module name).
pub const STAGES: &[(&str, &str)] = &[
    ("swept_aabb", include_str!("../../shaders/swept_aabb.wgsl")),
    (
        "broad_phase",
        include_str!("../../shaders/broad_phase.wgsl"),
    ),
    (
        "pair_bounds",
        include_str!("../../shaders/pair_bounds.wgsl"),
    ),
    (
        "contact_sweep",
        include_str!("../../shaders/contact_sweep.wgsl"),
    ),
];

/// An `#import` that names no shared snippet, or a stage that does not exist.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum ShaderError {
    /// `#import name` with no `shaders/shared/name.wgsl`.
    #[error("unknown import \"{0}\"")]
    UnknownImport(String),
    /// No stage of that name.
    #[error("unknown stage \"{0}\"")]
    UnknownStage(String),
}

/// `source` with its imports resolved (each shared snippet included once).
pub fn resolve(source: &str) -> Result<String, ShaderError> {
    let mut out = String::with_capacity(source.len() * 2);
    let mut done = Vec::new();
    resolve_into(source, &mut out, &mut done)?;
    Ok(out)
}

fn resolve_into(
    source: &str,
    out: &mut String,
    done: &mut Vec<&'static str>,
) -> Result<(), ShaderError> {
    for line in source.lines() {
        if let Some(name) = line.trim().strip_prefix("#import ") {
            let name = name.trim();
            let (key, text) = SHARED
                .iter()
                .find(|(k, _)| *k == name)
                .ok_or_else(|| ShaderError::UnknownImport(name.to_string()))?;
            if !done.contains(key) {
                done.push(*key);
                resolve_into(text, out, done)?;
            }
        } else {
            out.push_str(line);
            out.push('\n');
        }
    }
    Ok(())
}

/// The resolved source of stage `name`.
pub fn stage_source(name: &str) -> Result<String, ShaderError> {
    let (_, text) = STAGES
        .iter()
        .find(|(k, _)| *k == name)
        .ok_or_else(|| ShaderError::UnknownStage(name.to_string()))?;
    resolve(text)
}
