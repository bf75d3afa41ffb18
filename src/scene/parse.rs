//! Reading a whole scene document: the TOML text into toml's spanned tree, the top-level keys,
//! and the `[world]`, `[materials]` and `[[material_pairs]]` sections; bodies, lattices and
//! shapes are read by the sibling modules.
//!
//! # Why a hand-written walker instead of `serde` derive
//!
//! Every error must name the file, the line and column, the key and the body (its name, or its
//! index when it has none). Serde's derived deserialisers know neither the body they are in nor,
//! through an internally tagged enum such as `shape = { type = "box", … }`, the span of a value.
//! So the text is parsed into toml's spanned document tree ([`toml::de::DeTable`]), and a small
//! reader walks it, checking keys, types and physical validity in one pass with the span of every
//! key and value at hand. Unknown keys are errors, as with `deny_unknown_fields`.

use super::batch::parse_batch;
use super::bodies::{parse_body, BodyCtx};
use super::flow::{parse_sink, parse_source};
use super::joints::parse_joints;
use super::lattice::{declared_count, parse_lattice};
use super::probes::parse_probe;
use super::table::{Span, Src, Tab};
use super::{
    BodySpec, ContactPush, JammedIslands, Method, ProbeSpec, RestingContactMode, Scene, SceneError,
    SinkSpec, SourceSpec, WorldSettings,
};
use crate::material::{Material, MaterialPair};
use std::collections::BTreeMap;
use std::path::Path;
use toml::de::{DeTable, DeValue};
use toml::Spanned;

/// Parses and validates scene text; `source` names it in errors (see [`super::parse()`]).
pub(super) fn scene(
    text: &str,
    source: &Path,
    stored: Option<&BTreeMap<String, std::path::PathBuf>>,
) -> Result<Scene, SceneError> {
    let src = Src {
        text,
        file: source.display().to_string(),
        dir: source.parent().map(Path::to_path_buf).unwrap_or_default(),
        stored,
        read: Default::default(),
        line_starts: Src::line_starts_of(text),
    };
    let doc = DeTable::parse(text).map_err(|e| {
        let span = e.span().unwrap_or(0..0);
        let mut error = src.error(&span, &format!("invalid TOML: {}", e.message().trim_end()));
        // The parser notices an unclosed bracket where the text stops making sense, often lines
        // later: name where it opened too. Appended after the shortening of quoted values, which
        // would pair the parser's lone `"` with nothing.
        if let Some((opener, at)) = super::unclosed::unclosed_before(text, span.start + 1) {
            let (what, closer) = opener.describe();
            error.message += &format!(
                " ({what} opened at {} is never closed: close it with {closer})",
                src.loc(&(at..at))
            );
        }
        error
    })?;
    let root = Tab {
        src: &src,
        table: doc.get_ref(),
        span: 0..0,
        who: "scene".to_string(),
        path: String::new(),
    };
    // `[bench]` holds figures for `tumble bench` and `[batch]` the trials of `tumble batch`; the
    // simulation ignores both.
    root.check_keys(&[
        "world",
        "materials",
        "material_pairs",
        "bodies",
        "lattices",
        "bench",
        "batch",
        "joints",
        "sources",
        "sinks",
        "probes",
    ])?;

    let world = parse_world(&root)?;
    let materials = parse_materials(&root)?;
    let material_pairs = parse_material_pairs(&root, &materials)?;
    let ctx = BodyCtx {
        materials: &materials,
        epsilon: world.config.collision_epsilon,
    };

    let mut bodies = Vec::new();
    // Where each name was defined, for the duplicate-name message.
    let mut defined_at: BTreeMap<String, String> = BTreeMap::new();
    let mut add = |body: BodySpec, name_span: &Span, who: &str| -> Result<(), SceneError> {
        if let Some(first) = defined_at.get(&body.name) {
            return Err(src.error(
                name_span,
                &format!(
                    "{who}: duplicate body name \"{}\" (first defined at {first})",
                    body.name
                ),
            ));
        }
        defined_at.insert(body.name.clone(), src.loc(name_span));
        bodies.push(body);
        Ok(())
    };

    let mut count: u64 = 0;
    if let Some((items, _)) = root.array_of_tables("bodies")? {
        for (index, item) in items.iter().enumerate() {
            let (body, name_span, who) = parse_body(&root, &ctx, index, item)?;
            add(body, &name_span, &who)?;
            count += 1;
        }
    }
    if let Some((items, _)) = root.array_of_tables("lattices")? {
        // The body limit counts the whole scene: each lattice is checked with all the others.
        let declared: Vec<u64> = items
            .iter()
            .map(|i| declared_count(i).unwrap_or(0))
            .collect();
        let all = declared.iter().fold(count, |n, &k| n.saturating_add(k));
        for (index, item) in items.iter().enumerate() {
            let others = all - declared[index];
            let (generated, name_span, who) = parse_lattice(&root, &ctx, index, item, others)?;
            for body in generated {
                add(body, &name_span, &who)?;
            }
        }
    }

    let sources = parse_sources(
        &root,
        &ctx,
        (world.duration, bodies.len() as u64),
        &defined_at,
    )?;
    let sinks = parse_sinks(&root)?;
    let probes = parse_probes(&root)?;
    let poured = sources
        .iter()
        .fold(0u64, |n, s| n.saturating_add(s.planned()));
    let most_bodies = (bodies.len() as u64).saturating_add(poured);
    if let Err((keys, why)) =
        super::limits::check_frames(&world, usize::try_from(most_bodies).unwrap_or(usize::MAX))
    {
        // Blamed on [world]'s frame period or duration where the file gives one, else on the
        // table (or the top of the file).
        let located = root.sub_table("world", "world".to_string(), String::new())?;
        let t = located.as_ref().unwrap_or(&root);
        let blamed = keys.iter().find_map(|k| t.get(k));
        let span = blamed.map_or(t.span.clone(), |v| v.span());
        return Err(t.value_error(&span, keys[0], &why));
    }
    let batch = parse_batch(&root, &bodies, &materials)?;
    let joints = parse_joints(&root, &bodies)?;
    if world.config.method == Method::Lcp && !joints.is_empty() {
        // The LCP method's steps hold contacts only: joints would be ignored, silently.
        if let Some(t) = root.sub_table("world", "world".to_string(), String::new())? {
            if let Some((_, span)) = t.string("method")? {
                return Err(t.value_error(
                    &span,
                    "method",
                    "\"lcp\" does not hold joints, and this scene has [[joints]] \
                     (use method = \"event\")",
                ));
            }
        }
    }
    Ok(Scene {
        source: source.to_path_buf(),
        world,
        materials,
        material_pairs,
        bodies,
        joints,
        batch,
        sources,
        sinks,
        probes,
        files: src.read.take(),
    })
}

/// Most Gauss–Seidel sweeps a scene may ask for per contact step (or per shock level).
const MAX_SWEEPS: usize = 10_000;

fn parse_world(root: &Tab) -> Result<WorldSettings, SceneError> {
    let mut w = WorldSettings::default();
    let Some(t) = root.sub_table("world", "world".to_string(), String::new())? else {
        return Ok(w);
    };
    t.check_keys(&[
        "gravity",
        "duration",
        "frame_period",
        "collision_epsilon",
        "sleep_time",
        "resting_contact",
        "contact_step",
        "contact_step_max",
        "contact_sweeps",
        "shock_sweeps",
        "method",
        "time_step",
        "friction_directions",
        "contact_push",
        "jammed_islands",
    ])?;
    if let Some((g, _)) = t.vec3("gravity")? {
        w.config.gravity = g;
    }
    if let Some((d, span)) = t.number("duration")? {
        if d < 0.0 {
            return Err(t.value_error(&span, "duration", &format!("must be >= 0 (got {d})")));
        }
        w.duration = d;
    }
    if let Some((v, _)) = t.positive("frame_period")? {
        w.config.frame_period = v;
    }
    if let Some((v, _)) = t.positive("collision_epsilon")? {
        w.config.collision_epsilon = v;
    }
    if let Some((v, span)) = t.number("sleep_time")? {
        if v < 0.0 {
            return Err(t.value_error(&span, "sleep_time", &format!("must be >= 0 (got {v})")));
        }
        w.config.sleep_time = v;
    }
    if let Some(mode) = t.choice(
        "resting_contact",
        &[
            ("constraints", RestingContactMode::Constraints),
            ("microcollisions", RestingContactMode::Microcollisions),
        ],
    )? {
        w.config.resting_contact = mode;
    }
    if let Some(push) = t.choice(
        "contact_push",
        &[
            ("velocity", ContactPush::Velocity),
            ("split", ContactPush::Split),
        ],
    )? {
        w.config.contact_push = push;
    }
    if let Some(jams) = t.choice(
        "jammed_islands",
        &[
            ("step", JammedIslands::Step),
            ("events", JammedIslands::Events),
        ],
    )? {
        w.config.jammed_islands = jams;
    }
    if let Some((v, _)) = t.positive("contact_step")? {
        w.config.contact_step = v;
    }
    if let Some((v, span)) = t.positive("contact_step_max")? {
        if v < w.config.contact_step {
            return Err(t.value_error(
                &span,
                "contact_step_max",
                &format!(
                    "must be at least contact_step = {} s (got {v} s)",
                    w.config.contact_step
                ),
            ));
        }
        w.config.contact_step_max = Some(v);
    }
    if let Some(n) = t.count_in("contact_sweeps", 1, MAX_SWEEPS)? {
        w.config.contact_sweeps = n;
    }
    if let Some(n) = t.count_in("shock_sweeps", 0, MAX_SWEEPS)? {
        w.config.shock_sweeps = n;
    }
    if let Some(method) = t.choice("method", &[("event", Method::Event), ("lcp", Method::Lcp)])? {
        w.config.method = method;
    }
    if let Some((v, _)) = t.positive("time_step")? {
        w.config.time_step = v;
    }
    // At least 3 directions span the tangent plane positively (Stewart & Trinkle eq. 3).
    if let Some(n) = t.count_in("friction_directions", 3, 64)? {
        w.config.friction_directions = n;
    }
    if let Err((keys, why)) = super::limits::check_world(&w) {
        // Blamed on the first of the keys at fault that the file gives (the step, else the
        // duration that makes it too short, …).
        let blamed = keys.iter().find_map(|k| t.get(k));
        let span = blamed.map_or(t.span.clone(), |v| v.span());
        return Err(t.value_error(&span, keys[0], &why));
    }
    Ok(w)
}

fn parse_materials(root: &Tab) -> Result<BTreeMap<String, Material>, SceneError> {
    let mut out = BTreeMap::new();
    if let Some(all) = root.sub_table("materials", "materials".to_string(), String::new())? {
        for (key, value) in all.table.iter() {
            let name = key.get_ref().to_string();
            let who = format!("materials.{name}");
            let DeValue::Table(table) = value.get_ref() else {
                return Err(all.src.error(
                    &value.span(),
                    &format!(
                        "{who}: a material must be a table with restitution and friction (got {})",
                        value.get_ref().type_str()
                    ),
                ));
            };
            let t = Tab {
                src: all.src,
                table,
                span: value.span(),
                who,
                path: String::new(),
            };
            t.check_keys(&["restitution", "friction"])?;
            let mut m = Material::default();
            if let Some((e, span)) = t.number("restitution")? {
                check_restitution(&t, &span, "restitution", e)?;
                m.restitution = e;
            }
            if let Some((f, span)) = t.number("friction")? {
                check_friction(&t, &span, "friction", f)?;
                m.friction = f;
            }
            out.insert(name, m);
        }
    }
    out.entry("default".to_string()).or_default();
    Ok(out)
}

fn check_restitution(t: &Tab, span: &Span, key: &str, e: f64) -> Result<(), SceneError> {
    if (0.0..=1.0).contains(&e) {
        Ok(())
    } else {
        Err(t.value_error(span, key, &format!("must be in [0, 1] (got {e})")))
    }
}

fn check_friction(t: &Tab, span: &Span, key: &str, f: f64) -> Result<(), SceneError> {
    use super::limits::{short_number, MAX_FRICTION};
    if f < 0.0 {
        Err(t.value_error(span, key, &format!("must be >= 0 (got {f})")))
    } else if f > MAX_FRICTION {
        Err(t.value_error(
            span,
            key,
            &format!(
                "must be at most {MAX_FRICTION} (got {}): a contact that rough never slides \
                 anyway, and the friction impulses it allows overflow f64",
                short_number(f)
            ),
        ))
    } else {
        Ok(())
    }
}

fn parse_material_pairs(
    root: &Tab,
    materials: &BTreeMap<String, Material>,
) -> Result<Vec<MaterialPair>, SceneError> {
    let mut out: Vec<MaterialPair> = Vec::new();
    let Some((items, _)) = root.array_of_tables("material_pairs")? else {
        return Ok(out);
    };
    for (index, item) in items.iter().enumerate() {
        let t = root.element_table(item, format!("material_pairs[{index}]"))?;
        t.check_keys(&["a", "b", "restitution", "friction"])?;
        let mut names = Vec::new();
        for key in ["a", "b"] {
            let (name, span) = t.string(key)?.ok_or_else(|| t.missing(key))?;
            if !materials.contains_key(name) {
                return Err(t.value_error(
                    &span,
                    key,
                    &format!(
                        "names unknown material \"{name}\" (define it under [materials.{name}])"
                    ),
                ));
            }
            names.push((name.to_string(), span));
        }
        let restitution = match t.number("restitution")? {
            Some((e, span)) => {
                check_restitution(&t, &span, "restitution", e)?;
                Some(e)
            }
            None => None,
        };
        let friction = match t.number("friction")? {
            Some((f, span)) => {
                check_friction(&t, &span, "friction", f)?;
                Some(f)
            }
            None => None,
        };
        let (b, b_span) = names.pop().unwrap_or_default();
        let (a, _) = names.pop().unwrap_or_default();
        let same = |p: &MaterialPair| (p.a == a && p.b == b) || (p.a == b && p.b == a);
        if out.iter().any(same) {
            return Err(t.value_error(
                &b_span,
                "b",
                &format!("the pair \"{a}\" / \"{b}\" is given twice"),
            ));
        }
        out.push(MaterialPair {
            a,
            b,
            restitution,
            friction,
        });
    }
    Ok(out)
}

/// The `[[sources]]` entries of a scene that runs for `duration` with `bodies` bodies named as
/// `defined_at` lists them: each source's name is unique, and no body of the scene is named as
/// a poured body could be (`<source>_<k>`).
fn parse_sources(
    root: &Tab,
    ctx: &BodyCtx,
    (duration, bodies): (f64, u64),
    defined_at: &BTreeMap<String, String>,
) -> Result<Vec<SourceSpec>, SceneError> {
    // The bodies the sources before each one pour count against the body limit with it.
    let mut others = bodies;
    parse_named(
        root,
        "sources",
        "source",
        |index, item| {
            let (source, name_span) = parse_source(root, ctx, index, item, (duration, others))?;
            if let Some((body, at)) = defined_at
                .iter()
                .find(|(b, _)| super::generated_by(b, &source.name))
            {
                return Err(root.src.error(
                    &name_span,
                    &format!(
                        "sources[{index}] \"{}\": its bodies are named {}_0, {}_1, …, and body \
                         \"{body}\" (defined at {at}) has such a name: rename one of them",
                        source.name, source.name, source.name
                    ),
                ));
            }
            others = others.saturating_add(source.planned());
            Ok((source, name_span))
        },
        |s| (s.name.as_str(), s.origin.as_str()),
    )
}

/// The `[[key]]` entries (`what`: "sink", "probe"), each read by `parse`, their names unique
/// (`name_of`: an entry's name and where it was defined).
fn parse_named<T>(
    root: &Tab,
    key: &str,
    what: &str,
    mut parse: impl FnMut(usize, &Spanned<DeValue>) -> Result<(T, Span), SceneError>,
    name_of: impl Fn(&T) -> (&str, &str),
) -> Result<Vec<T>, SceneError> {
    let Some((items, _)) = root.array_of_tables(key)? else {
        return Ok(Vec::new());
    };
    let mut read: Vec<T> = Vec::with_capacity(items.len());
    for (index, item) in items.iter().enumerate() {
        let (entry, name_span) = parse(index, item)?;
        let name = name_of(&entry).0;
        if let Some(first) = read.iter().find(|e| name_of(e).0 == name) {
            return Err(root.src.error(
                &name_span,
                &format!(
                    "{key}[{index}] \"{name}\": duplicate {what} name \"{name}\" (first defined \
                     at {})",
                    name_of(first).1
                ),
            ));
        }
        read.push(entry);
    }
    Ok(read)
}

/// The `[[sinks]]` entries, their names unique.
fn parse_sinks(root: &Tab) -> Result<Vec<SinkSpec>, SceneError> {
    parse_named(
        root,
        "sinks",
        "sink",
        |index, item| parse_sink(root, index, item),
        |s| (s.name.as_str(), s.origin.as_str()),
    )
}

/// The `[[probes]]` entries, their names unique.
fn parse_probes(root: &Tab) -> Result<Vec<ProbeSpec>, SceneError> {
    parse_named(
        root,
        "probes",
        "probe",
        |index, item| parse_probe(root, index, item),
        |p| (p.name.as_str(), p.origin.as_str()),
    )
}
