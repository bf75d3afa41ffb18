//! Scene files (TOML): parsing, validation with located errors, lattice generators.
//!
//! The format is documented for users in `docs/scene-format.md`; this module is its reference
//! implementation.
//!
//! # Why a hand-written walker instead of `serde` derive
//!
//! Every error must name the file, the line and column, the key and the body (its name, or its
//! index when it has none). Serde's derived deserialisers know neither the body they are in nor,
//! through an internally tagged enum such as `shape = { type = "box", … }`, the span of a value.
//! So the text is parsed into toml's spanned document tree ([`toml::de::DeTable`]), and a small
//! reader walks it, checking keys, types and physical validity in one pass with the span of every
//! key and value at hand. Unknown keys are errors, as with `deny_unknown_fields`.

use crate::material::{Material, MaterialError, MaterialPair, MaterialTable};
use crate::shape::{CompoundPart, Shape};
use glam::{DQuat, DVec3};
use rand_chacha::rand_core::{RngCore, SeedableRng};
use std::collections::BTreeMap;
use std::ops::Range;
use std::path::{Path, PathBuf};
use toml::de::{DeArray, DeTable, DeValue};
use toml::Spanned;

/// `[world]` settings.
#[derive(Clone, Debug, PartialEq)]
pub struct WorldSettings {
    /// Gravity (m/s²); z is up.
    pub gravity: DVec3,
    /// Simulated time to run (s).
    pub duration: f64,
    /// Swept-volume horizon t_f and output frame interval (s).
    pub frame_period: f64,
    /// Collision epsilon ε_c (m).
    pub collision_epsilon: f64,
    /// Rest time before a supported, motionless body sleeps (s); 0 disables sleeping.
    pub sleep_time: f64,
    /// How resting contacts are handled.
    pub resting_contact: RestingContactMode,
    /// Shortest length h of a contact step (s) when resting contacts are constraints; frames
    /// are split into steps no longer than the present length, which starts here.
    pub contact_step: f64,
    /// Longest contact step (s, ≥ `contact_step`; `None`: twice `contact_step`). Between the
    /// two the length doubles or halves per frame by the measured work of the contact steps
    /// against that of the local re-solves (see `World::adapt_step_length`); equal to
    /// `contact_step`, every step has that length.
    pub contact_step_max: Option<f64>,
    /// Most projected Gauss–Seidel sweeps per contact step (≥ 1).
    pub contact_sweeps: usize,
    /// Sweeps per level of the shock-propagation pass after them (0: no shock propagation;
    /// Bender & Schmitt 2006 §3.3).
    pub shock_sweeps: usize,
}

/// How resting contacts are handled (`[world] resting_contact`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RestingContactMode {
    /// Contacts resting at the start of a contact step are solved together as constraints over
    /// the step (Bender & Schmitt 2006, §3.2); collisions stay events. The default.
    #[default]
    Constraints,
    /// Every resting contact is a train of microcollisions (Mirtich & Canny 1994, §4.5).
    Microcollisions,
}

impl Default for WorldSettings {
    /// The defaults of the scene format: gravity [0, 0, -9.81], duration 5 s, frame period
    /// 0.02 s, collision epsilon 1 mm, sleep time 0.5 s, resting contacts as constraints over
    /// contact steps of 2.5 ms with 8 Gauss–Seidel sweeps and 4 shock-propagation sweeps per
    /// level (see docs/performance.md for both modes measured on the funnels).
    fn default() -> Self {
        WorldSettings {
            gravity: DVec3::new(0.0, 0.0, -9.81),
            duration: 5.0,
            frame_period: 0.02,
            collision_epsilon: 0.001,
            sleep_time: 0.5,
            resting_contact: RestingContactMode::Constraints,
            contact_step: 0.0025,
            contact_step_max: None,
            contact_sweeps: 8,
            shock_sweeps: 4,
        }
    }
}

/// How a body moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Motion {
    /// Moves under gravity and collisions.
    Dynamic,
    /// Never moves; infinite mass.
    Fixed,
    /// Moves forever with its given linear and angular velocity; infinite mass.
    Kinematic,
}

impl Motion {
    /// The name used in scene files and output ("dynamic", "fixed", "kinematic").
    pub fn as_str(self) -> &'static str {
        match self {
            Motion::Dynamic => "dynamic",
            Motion::Fixed => "fixed",
            Motion::Kinematic => "kinematic",
        }
    }
}

/// How the body's mass is given.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MassSpec {
    /// Total mass (kg).
    Mass(f64),
    /// Uniform density (kg/m³).
    Density(f64),
}

/// The [`MassSpec`] recorded for fixed and kinematic bodies that give neither `mass` nor
/// `density`: they have infinite mass, so the value is never used, but water's density keeps any
/// accidental use physically sane.
pub const UNUSED_DENSITY: f64 = 1000.0;

/// One body as written in the scene (after generators are expanded).
#[derive(Clone, Debug, PartialEq)]
pub struct BodySpec {
    /// Unique name.
    pub name: String,
    /// Dynamic, fixed or kinematic.
    pub motion: Motion,
    /// Shape in the body's own (user) frame.
    pub shape: Shape,
    /// Mass or density (ignored for fixed and kinematic bodies; [`UNUSED_DENSITY`] when they give
    /// none).
    pub mass: MassSpec,
    /// Optional principal moments of inertia overriding the computed ones (kg m²), about the
    /// centre of mass, along the principal axes.
    pub inertia: Option<DVec3>,
    /// Position of the shape frame's origin (m, world).
    pub position: DVec3,
    /// Orientation of the shape frame (unit quaternion).
    pub orientation: DQuat,
    /// Linear velocity of the shape frame's origin (m/s).
    pub velocity: DVec3,
    /// Angular velocity (rad/s, world).
    pub angular_velocity: DVec3,
    /// The name of the body's material.
    pub material: String,
    /// Where the body was defined, for error messages: "scene.toml:12" (line of its table; for a
    /// lattice-generated body, the line of the `[[lattices]]` table).
    pub origin: String,
}

/// A parsed, validated scene.
#[derive(Clone, Debug)]
pub struct Scene {
    /// The file it came from (or a label for in-memory scenes).
    pub source: PathBuf,
    /// World settings.
    pub world: WorldSettings,
    /// Named materials; always contains "default".
    pub materials: BTreeMap<String, Material>,
    /// `[[material_pairs]]` overrides of the combination rule (names validated).
    pub material_pairs: Vec<MaterialPair>,
    /// Bodies, generators expanded: the `[[bodies]]` entries in file order, then the bodies of
    /// each `[[lattices]]` entry in file order.
    pub bodies: Vec<BodySpec>,
}

impl Scene {
    /// The scene's materials and pair overrides as a lookup table for the collision response.
    pub fn material_table(&self) -> Result<MaterialTable, SceneError> {
        MaterialTable::new(&self.materials, &self.material_pairs).map_err(|e: MaterialError| {
            SceneError {
                message: format!("{}: {e}", self.source.display()),
            }
        })
    }

    /// How many bodies have each motion: (dynamic, fixed, kinematic).
    pub fn motion_counts(&self) -> (usize, usize, usize) {
        let count = |m: Motion| self.bodies.iter().filter(|b| b.motion == m).count();
        (
            count(Motion::Dynamic),
            count(Motion::Fixed),
            count(Motion::Kinematic),
        )
    }
}

/// A scene error: file, location, key and body named in the message.
#[derive(Clone, Debug, thiserror::Error)]
#[error("{message}")]
pub struct SceneError {
    /// The full message, e.g. `scenes/a.toml:12:5: bodies[3] "ball": mass must be > 0 (got -1)`.
    pub message: String,
}

/// Reads and validates a scene file.
pub fn load(path: &Path) -> Result<Scene, SceneError> {
    let text = std::fs::read_to_string(path).map_err(|e| SceneError {
        message: format!("{}: cannot read scene file: {e}", path.display()),
    })?;
    parse(&text, path)
}

/// Parses and validates scene text; `source` names it in errors.
pub fn parse(text: &str, source: &Path) -> Result<Scene, SceneError> {
    let src = Src {
        text,
        file: source.display().to_string(),
    };
    let doc = DeTable::parse(text).map_err(|e| {
        let span = e.span().unwrap_or(0..0);
        src.error(&span, &format!("invalid TOML: {}", e.message().trim_end()))
    })?;
    let root = Tab {
        src: &src,
        table: doc.get_ref(),
        span: 0..0,
        who: "scene".to_string(),
        path: String::new(),
    };
    // `[bench]` holds figures for `tumble bench` (see src/bench.rs); the simulation ignores it.
    root.check_keys(&[
        "world",
        "materials",
        "material_pairs",
        "bodies",
        "lattices",
        "bench",
    ])?;

    let world = parse_world(&root)?;
    let materials = parse_materials(&root)?;
    let material_pairs = parse_material_pairs(&root, &materials)?;
    let ctx = BodyCtx {
        materials: &materials,
        file: &src.file,
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

    if let Some((items, _)) = root.array_of_tables("bodies")? {
        for (index, item) in items.iter().enumerate() {
            let (body, name_span, who) = parse_body(&root, &ctx, index, item)?;
            add(body, &name_span, &who)?;
        }
    }
    if let Some((items, _)) = root.array_of_tables("lattices")? {
        for (index, item) in items.iter().enumerate() {
            let (generated, name_span, who) = parse_lattice(&root, &ctx, index, item)?;
            for body in generated {
                add(body, &name_span, &who)?;
            }
        }
    }

    Ok(Scene {
        source: source.to_path_buf(),
        world,
        materials,
        material_pairs,
        bodies,
    })
}

// ---------------------------------------------------------------------------------------------
// Sections
// ---------------------------------------------------------------------------------------------

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
    ])?;
    if let Some((g, _)) = t.vec3("gravity")? {
        w.gravity = g;
    }
    if let Some((d, span)) = t.number("duration")? {
        if d < 0.0 {
            return Err(t.value_error(&span, "duration", &format!("must be >= 0 (got {d})")));
        }
        w.duration = d;
    }
    if let Some((v, _)) = t.positive("frame_period")? {
        w.frame_period = v;
    }
    if let Some((v, _)) = t.positive("collision_epsilon")? {
        w.collision_epsilon = v;
    }
    if let Some((v, span)) = t.number("sleep_time")? {
        if v < 0.0 {
            return Err(t.value_error(&span, "sleep_time", &format!("must be >= 0 (got {v})")));
        }
        w.sleep_time = v;
    }
    match t.string("resting_contact")? {
        None => {}
        Some(("constraints", _)) => w.resting_contact = RestingContactMode::Constraints,
        Some(("microcollisions", _)) => w.resting_contact = RestingContactMode::Microcollisions,
        Some((other, span)) => {
            return Err(t.value_error(
                &span,
                "resting_contact",
                &format!("must be \"constraints\" or \"microcollisions\" (got \"{other}\")"),
            ))
        }
    }
    if let Some((v, _)) = t.positive("contact_step")? {
        w.contact_step = v;
    }
    if let Some((v, span)) = t.positive("contact_step_max")? {
        if v < w.contact_step {
            return Err(t.value_error(
                &span,
                "contact_step_max",
                &format!(
                    "must be at least contact_step = {} s (got {v} s)",
                    w.contact_step
                ),
            ));
        }
        w.contact_step_max = Some(v);
    }
    if let Some(n) = t.count_in("contact_sweeps", 1, MAX_SWEEPS)? {
        w.contact_sweeps = n;
    }
    if let Some(n) = t.count_in("shock_sweeps", 0, MAX_SWEEPS)? {
        w.shock_sweeps = n;
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
    if f >= 0.0 {
        Ok(())
    } else {
        Err(t.value_error(span, key, &format!("must be >= 0 (got {f})")))
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

/// What every body-like table (a body or a lattice) needs to know about the scene.
struct BodyCtx<'a> {
    materials: &'a BTreeMap<String, Material>,
    file: &'a str,
}

/// The keys a body and a lattice share, read and validated.
struct Common {
    motion: Motion,
    shape: Shape,
    mass: MassSpec,
    inertia: Option<DVec3>,
    orientation: DQuat,
    velocity: DVec3,
    angular_velocity: DVec3,
    material: String,
}

/// Keys shared by `[[bodies]]` and `[[lattices]]`.
const COMMON_KEYS: [&str; 10] = [
    "name",
    "motion",
    "shape",
    "mass",
    "density",
    "inertia",
    "orientation",
    "velocity",
    "angular_velocity",
    "material",
];

fn parse_common(t: &Tab, ctx: &BodyCtx) -> Result<Common, SceneError> {
    let motion = match t.string("motion")? {
        None => Motion::Dynamic,
        Some(("dynamic", _)) => Motion::Dynamic,
        Some(("fixed", _)) => Motion::Fixed,
        Some(("kinematic", _)) => Motion::Kinematic,
        Some((other, span)) => {
            return Err(t.value_error(
                &span,
                "motion",
                &format!("must be \"dynamic\", \"fixed\" or \"kinematic\" (got \"{other}\")"),
            ))
        }
    };

    let shape_value = t.get("shape").ok_or_else(|| t.missing("shape"))?;
    let shape = parse_shape(t, shape_value, "shape")?;
    if matches!(shape, Shape::Plane { .. }) && motion != Motion::Fixed {
        return Err(t.value_error(
            &shape_value.span(),
            "shape",
            &format!(
                "a plane is only allowed on a fixed body (this body is {}; add motion = \"fixed\")",
                motion.as_str()
            ),
        ));
    }

    let mass = t.positive("mass")?;
    let density = t.positive("density")?;
    let mass = match (mass, density) {
        (Some(_), Some((_, span))) => {
            return Err(t.value_error(&span, "density", "give either mass or density, not both"))
        }
        (Some((m, _)), None) => MassSpec::Mass(m),
        (None, Some((d, _))) => MassSpec::Density(d),
        (None, None) if motion == Motion::Dynamic => {
            return Err(t.error_at(
                &t.span,
                "a dynamic body needs mass or density (missing key mass)",
            ))
        }
        (None, None) => MassSpec::Density(UNUSED_DENSITY),
    };
    let inertia = match t.vec3("inertia")? {
        None => None,
        Some((i, span)) => {
            if i.min_element() <= 0.0 {
                return Err(t.value_error(
                    &span,
                    "inertia",
                    &format!("principal moments must all be > 0 (got {})", fmt_vec(i)),
                ));
            }
            // A rigid body's principal moments obey the triangle inequality (each is an integral
            // of a sum of two squared coordinates); allow rounding for thin plates where it is
            // an equality.
            let tol = 1e-12 * (i.x + i.y + i.z);
            let [a, b, c] = i.to_array();
            if a + b < c - tol || b + c < a - tol || c + a < b - tol {
                return Err(t.value_error(
                    &span,
                    "inertia",
                    &format!(
                        "principal moments must satisfy the triangle inequality Ia + Ib >= Ic for \
                         every order (got {})",
                        fmt_vec(i)
                    ),
                ));
            }
            Some(i)
        }
    };

    let orientation = t.quat("orientation")?.unwrap_or(DQuat::IDENTITY);
    let mut velocities = [DVec3::ZERO; 2];
    for (k, key) in ["velocity", "angular_velocity"].into_iter().enumerate() {
        if let Some((v, span)) = t.vec3(key)? {
            // A fixed body that moves is a contradiction, not something to ignore silently.
            if motion == Motion::Fixed && v != DVec3::ZERO {
                return Err(t.value_error(
                    &span,
                    key,
                    "must be zero on a fixed body (use motion = \"kinematic\" for a body that \
                     moves at constant velocity)",
                ));
            }
            velocities[k] = v;
        }
    }
    let [velocity, angular_velocity] = velocities;

    let material = match t.string("material")? {
        None => "default".to_string(),
        Some((name, span)) => {
            if !ctx.materials.contains_key(name) {
                let known: Vec<&str> = ctx.materials.keys().map(String::as_str).collect();
                return Err(t.value_error(
                    &span,
                    "material",
                    &format!(
                        "unknown material \"{name}\" (defined: {}; add a [materials.{name}] table)",
                        known.join(", ")
                    ),
                ));
            }
            name.to_string()
        }
    };

    Ok(Common {
        motion,
        shape,
        mass,
        inertia,
        orientation,
        velocity,
        angular_velocity,
        material,
    })
}

/// Reads a body's optional `name`: returns the name, the span to blame for a duplicate, and the
/// "who" label for messages (`bodies[2] "ball"`, or `bodies[2]` when nameless).
fn read_name<'t>(t: &Tab<'_, 't, '_>) -> Result<(Option<&'t str>, Span), SceneError> {
    match t.string("name")? {
        Some((name, span)) => {
            if name.is_empty() {
                return Err(t.value_error(&span, "name", "must not be empty"));
            }
            if name.contains(['\n', '\r']) {
                return Err(t.value_error(&span, "name", "must not contain a line break"));
            }
            Ok((Some(name), span))
        }
        None => Ok((None, t.span.clone())),
    }
}

fn parse_body<'s, 't, 'i>(
    root: &Tab<'s, 't, 'i>,
    ctx: &BodyCtx,
    index: usize,
    item: &'t Spanned<DeValue<'i>>,
) -> Result<(BodySpec, Span, String), SceneError> {
    let src = root.src;
    let mut t = root.element_table(item, format!("bodies[{index}]"))?;
    let (name, name_span) = read_name(&t)?;
    if let Some(name) = name {
        t.who = format!("bodies[{index}] \"{name}\"");
    }
    let mut keys = COMMON_KEYS.to_vec();
    keys.push("position");
    t.check_keys(&keys)?;
    let c = parse_common(&t, ctx)?;
    let position = t.vec3("position")?.map(|v| v.0).unwrap_or(DVec3::ZERO);
    let body = BodySpec {
        name: name
            .map(str::to_string)
            .unwrap_or_else(|| format!("body_{index}")),
        motion: c.motion,
        shape: c.shape,
        mass: c.mass,
        inertia: c.inertia,
        position,
        orientation: c.orientation,
        velocity: c.velocity,
        angular_velocity: c.angular_velocity,
        material: c.material,
        origin: format!("{}:{}", ctx.file, src.line_col(t.span.start).0),
    };
    Ok((body, name_span, t.who.clone()))
}

/// The most bodies one scene may generate: far beyond what tumble can simulate, but small enough
/// that a typo (`count = [1000000, 1000000, 1]`) is an error instead of an allocation failure.
pub const MAX_GENERATED_BODIES: u64 = 10_000_000;

fn parse_lattice<'s, 't, 'i>(
    root: &Tab<'s, 't, 'i>,
    ctx: &BodyCtx,
    index: usize,
    item: &'t Spanned<DeValue<'i>>,
) -> Result<(Vec<BodySpec>, Span, String), SceneError> {
    let src = root.src;
    let mut t = root.element_table(item, format!("lattices[{index}]"))?;
    let (name, name_span) = read_name(&t)?;
    if let Some(name) = name {
        t.who = format!("lattices[{index}] \"{name}\"");
    }
    let prefix = name
        .map(str::to_string)
        .unwrap_or_else(|| format!("lattice{index}"));
    let mut keys = COMMON_KEYS.to_vec();
    keys.extend([
        "count",
        "spacing",
        "center",
        "lowest",
        "max_rotation",
        "seed",
    ]);
    t.check_keys(&keys)?;
    let c = parse_common(&t, ctx)?;

    // count: three integers >= 1.
    let count_value = t.get("count").ok_or_else(|| t.missing("count"))?;
    let count_items = t.array_of_len(count_value, "count", 3)?;
    let mut count = [0u64; 3];
    for (k, v) in count_items.iter().enumerate() {
        let key = format!("count[{k}]");
        let (n, span) = t.integer_value(v, &key)?;
        if n < 1 {
            return Err(t.value_error(&span, &key, &format!("must be an integer >= 1 (got {n})")));
        }
        count[k] = n as u64;
    }
    let total = count[0]
        .checked_mul(count[1])
        .and_then(|n| n.checked_mul(count[2]))
        .filter(|&n| n <= MAX_GENERATED_BODIES)
        .ok_or_else(|| {
            t.value_error(
                &count_value.span(),
                "count",
                &format!("generates more than {MAX_GENERATED_BODIES} bodies"),
            )
        })?;

    let spacing = match t.vec3("spacing")? {
        Some((s, span)) => {
            if s.min_element() <= 0.0 {
                return Err(t.value_error(
                    &span,
                    "spacing",
                    &format!("must be > 0 on every axis (got {})", fmt_vec(s)),
                ));
            }
            s
        }
        None => return Err(t.missing("spacing")),
    };
    let center = t.vec3("center")?.map(|v| v.0).unwrap_or(DVec3::ZERO);
    let lowest = t.number("lowest")?.map(|v| v.0);
    let max_rotation = match t.number("max_rotation")? {
        None => 0.0,
        Some((a, span)) => {
            if !(0.0..=std::f64::consts::PI).contains(&a) {
                return Err(t.value_error(
                    &span,
                    "max_rotation",
                    &format!("must be in [0, pi] rad (got {a})"),
                ));
            }
            a
        }
    };
    let seed = match t.get("seed") {
        None => 0,
        Some(v) => {
            let (s, span) = t.integer_value(v, "seed")?;
            if s < 0 {
                return Err(t.value_error(&span, "seed", &format!("must be >= 0 (got {s})")));
            }
            s as u64
        }
    };

    let origin = format!("{}:{}", ctx.file, src.line_col(t.span.start).0);
    let n = count.map(|c| c as usize);
    // Centre of the lattice's first (lowest, most negative) body.
    let first = DVec3::new(
        center.x - 0.5 * (n[0] - 1) as f64 * spacing.x,
        center.y - 0.5 * (n[1] - 1) as f64 * spacing.y,
        lowest.unwrap_or(center.z - 0.5 * (n[2] - 1) as f64 * spacing.z),
    );
    let mut rng = rand_chacha::ChaCha8Rng::seed_from_u64(seed);
    let mut bodies = Vec::with_capacity(total as usize);
    for iz in 0..n[2] {
        for iy in 0..n[1] {
            for ix in 0..n[0] {
                let i = ix + n[0] * (iy + n[1] * iz);
                let position = first + DVec3::new(ix as f64, iy as f64, iz as f64) * spacing;
                let turn = random_rotation(&mut rng, max_rotation);
                bodies.push(BodySpec {
                    name: format!("{prefix}_{i}"),
                    motion: c.motion,
                    shape: c.shape.clone(),
                    mass: c.mass,
                    inertia: c.inertia,
                    position,
                    orientation: (turn * c.orientation).normalize(),
                    velocity: c.velocity,
                    angular_velocity: c.angular_velocity,
                    material: c.material.clone(),
                    origin: origin.clone(),
                });
            }
        }
    }
    Ok((bodies, name_span, t.who.clone()))
}

/// A uniform `f64` in [0, 1) from the top 53 bits of one `next_u64`. Written out (rather than
/// `rng.random::<f64>()`) so that the lattice sequence depends only on ChaCha8's specified output
/// stream, not on how a `rand` version maps bits to floats.
fn unit_f64(rng: &mut impl RngCore) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// One lattice body's random rotation: a uniform axis on the sphere (z = 2u₁ − 1, φ = 2πu₂) and an
/// angle `max_angle · u₃`, three draws per body in body order whatever `max_angle` is, so that the
/// sequence (and hence the scene) is stable for a given seed.
pub fn random_rotation(rng: &mut impl RngCore, max_angle: f64) -> DQuat {
    let z = 2.0 * unit_f64(rng) - 1.0;
    let phi = std::f64::consts::TAU * unit_f64(rng);
    let angle = max_angle * unit_f64(rng);
    let r = (1.0 - z * z).max(0.0).sqrt();
    let axis = DVec3::new(r * phi.cos(), r * phi.sin(), z).normalize();
    DQuat::from_axis_angle(axis, angle)
}

// ---------------------------------------------------------------------------------------------
// Shapes
// ---------------------------------------------------------------------------------------------

const SHAPE_TYPES: &str = "sphere, box, capsule, cylinder, convex, compound, plane";

/// Parses a shape table at `key` (a path like "shape" or "shape.parts[1].shape") of `t`.
fn parse_shape(t: &Tab, value: &Spanned<DeValue>, key: &str) -> Result<Shape, SceneError> {
    let DeValue::Table(table) = value.get_ref() else {
        return Err(t.value_error(
            &value.span(),
            key,
            &format!(
                "must be a table such as {{ type = \"sphere\", radius = 0.1 }} (got {})",
                value.get_ref().type_str()
            ),
        ));
    };
    let s = Tab {
        src: t.src,
        table,
        span: value.span(),
        who: t.who.clone(),
        path: format!("{}{key}.", t.path),
    };
    let (kind, kind_span) = s.string("type")?.ok_or_else(|| s.missing("type"))?;
    let shape = match kind {
        "sphere" => {
            s.check_keys(&["type", "radius"])?;
            Shape::Sphere {
                radius: s.dimension("radius")?,
            }
        }
        "box" => {
            s.check_keys(&["type", "half_extents"])?;
            let (h, span) = s
                .vec3("half_extents")?
                .ok_or_else(|| s.missing("half_extents"))?;
            if h.min_element() <= 0.0 {
                return Err(s.value_error(
                    &span,
                    "half_extents",
                    &format!("must all be > 0 (got {})", fmt_vec(h)),
                ));
            }
            Shape::Box { half_extents: h }
        }
        "capsule" => {
            s.check_keys(&["type", "radius", "half_length"])?;
            let radius = s.dimension("radius")?;
            let (half_length, span) = s
                .number("half_length")?
                .ok_or_else(|| s.missing("half_length"))?;
            if half_length < 0.0 {
                return Err(s.value_error(
                    &span,
                    "half_length",
                    &format!("must be >= 0 (got {half_length})"),
                ));
            }
            Shape::Capsule {
                radius,
                half_length,
            }
        }
        "cylinder" => {
            s.check_keys(&["type", "radius", "half_height"])?;
            Shape::Cylinder {
                radius: s.dimension("radius")?,
                half_height: s.dimension("half_height")?,
            }
        }
        "convex" => {
            s.check_keys(&["type", "vertices"])?;
            let list = s.get("vertices").ok_or_else(|| s.missing("vertices"))?;
            let items = s.array(list, "vertices")?;
            let mut vertices = Vec::with_capacity(items.len());
            for (k, v) in items.iter().enumerate() {
                vertices.push(s.vec3_value(v, &format!("vertices[{k}]"))?);
            }
            let shape = Shape::Convex { vertices };
            // The geometry module owns the flatness rule; blame the vertex list, not the table.
            if let Err(e) = shape.validate() {
                return Err(s.value_error(&list.span(), "vertices", &format!("are invalid: {e}")));
            }
            shape
        }
        "compound" => {
            s.check_keys(&["type", "parts"])?;
            let list = s.get("parts").ok_or_else(|| s.missing("parts"))?;
            let items = s.array(list, "parts")?;
            if items.is_empty() {
                return Err(s.value_error(&list.span(), "parts", "must have at least one part"));
            }
            let mut parts = Vec::with_capacity(items.len());
            for (k, item) in items.iter().enumerate() {
                let DeValue::Table(pt) = item.get_ref() else {
                    return Err(s.value_error(
                        &item.span(),
                        &format!("parts[{k}]"),
                        "must be a table { shape, position, orientation }",
                    ));
                };
                let p = Tab {
                    src: s.src,
                    table: pt,
                    span: item.span(),
                    who: s.who.clone(),
                    path: format!("{}parts[{k}].", s.path),
                };
                p.check_keys(&["shape", "position", "orientation"])?;
                let sv = p.get("shape").ok_or_else(|| p.missing("shape"))?;
                let shape = parse_shape(&p, sv, "shape")?;
                if matches!(shape, Shape::Plane { .. } | Shape::Compound { .. }) {
                    return Err(p.value_error(
                        &sv.span(),
                        "shape",
                        &format!(
                            "a compound's part must be convex (got a {})",
                            shape.type_name()
                        ),
                    ));
                }
                parts.push(CompoundPart {
                    shape,
                    position: p.vec3("position")?.map(|v| v.0).unwrap_or(DVec3::ZERO),
                    orientation: p.quat("orientation")?.unwrap_or(DQuat::IDENTITY),
                });
            }
            Shape::Compound { parts }
        }
        "plane" => {
            s.check_keys(&["type", "normal", "offset"])?;
            let (normal, span) = s.vec3("normal")?.ok_or_else(|| s.missing("normal"))?;
            if normal.length() < 1e-12 {
                return Err(s.value_error(&span, "normal", "must not be the zero vector"));
            }
            Shape::Plane {
                normal,
                offset: s.number("offset")?.map(|v| v.0).unwrap_or(0.0),
            }
        }
        other => {
            return Err(s.value_error(
                &kind_span,
                "type",
                &format!("must be one of {SHAPE_TYPES} (got unknown shape type \"{other}\")"),
            ))
        }
    };
    // The dimensions were checked above where their own spans could be blamed; this is the
    // geometry module's full check (the authority on what can be built), blamed on the shape.
    shape
        .validate()
        .map_err(|e| t.value_error(&value.span(), key, &format!("is invalid: {e}")))?;
    Ok(shape)
}

// ---------------------------------------------------------------------------------------------
// The spanned-table reader
// ---------------------------------------------------------------------------------------------

type Span = Range<usize>;

/// The scene text and its name, to turn byte spans into `file:line:col`.
struct Src<'a> {
    text: &'a str,
    file: String,
}

impl Src<'_> {
    /// 1-based line and column (in characters) of a byte offset.
    fn line_col(&self, offset: usize) -> (usize, usize) {
        let mut offset = offset.min(self.text.len());
        while !self.text.is_char_boundary(offset) {
            offset -= 1;
        }
        let before = &self.text[..offset];
        let line = before.matches('\n').count() + 1;
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        let col = before[line_start..].chars().count() + 1;
        (line, col)
    }

    /// `file:line:col` of a span's start.
    fn loc(&self, span: &Span) -> String {
        let (line, col) = self.line_col(span.start);
        format!("{}:{line}:{col}", self.file)
    }

    /// An error located at `span`.
    fn error(&self, span: &Span, message: &str) -> SceneError {
        SceneError {
            message: format!("{}: {message}", self.loc(span)),
        }
    }
}

/// A table being read: the text it came from, who it belongs to (for messages) and the key path
/// leading to it.
struct Tab<'s, 't, 'i> {
    src: &'s Src<'s>,
    table: &'t DeTable<'i>,
    /// Where the table is (its `[header]` or inline `{`), blamed for missing keys.
    span: Span,
    /// Who the table belongs to: `world`, `materials.rubber`, `bodies[2] "ball"`.
    who: String,
    /// Key path from the owner to this table, with a trailing dot: "" or "shape.".
    path: String,
}

impl<'s, 't, 'i> Tab<'s, 't, 'i> {
    /// An error at `span` about this table's owner.
    fn error_at(&self, span: &Span, message: &str) -> SceneError {
        self.src.error(span, &format!("{}: {message}", self.who))
    }

    /// An error at `span` about the value of `key`: `file:l:c: who: path.key message`.
    fn value_error(&self, span: &Span, key: &str, message: &str) -> SceneError {
        self.error_at(span, &format!("{}{key} {message}", self.path))
    }

    /// The error for a required key that is absent, blamed on the table itself.
    fn missing(&self, key: &str) -> SceneError {
        self.error_at(&self.span, &format!("missing key {}{key}", self.path))
    }

    /// Refuses keys not in `allowed`, naming the first unknown one in file order.
    fn check_keys(&self, allowed: &[&str]) -> Result<(), SceneError> {
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

    fn get(&self, key: &str) -> Option<&'t Spanned<DeValue<'i>>> {
        self.table.get(key)
    }

    /// The sub-table at `key`, if present.
    fn sub_table(
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
    fn array_of_tables(&self, key: &str) -> Result<Option<(&'t DeArray<'i>, Span)>, SceneError> {
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
    fn element_table(
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

    /// A string value at `key`, if present.
    fn string(&self, key: &str) -> Result<Option<(&'t str, Span)>, SceneError> {
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
    fn number_value(&self, v: &Spanned<DeValue>, key: &str) -> Result<f64, SceneError> {
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
    fn integer_value(&self, v: &Spanned<DeValue>, key: &str) -> Result<(i64, Span), SceneError> {
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
    fn number(&self, key: &str) -> Result<Option<(f64, Span)>, SceneError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => Ok(Some((self.number_value(v, key)?, v.span()))),
        }
    }

    /// An integer in `lo..=hi` at `key`, if present.
    fn count_in(&self, key: &str, lo: usize, hi: usize) -> Result<Option<usize>, SceneError> {
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
    fn positive(&self, key: &str) -> Result<Option<(f64, Span)>, SceneError> {
        match self.number(key)? {
            Some((x, span)) if x <= 0.0 => {
                Err(self.value_error(&span, key, &format!("must be > 0 (got {x})")))
            }
            other => Ok(other),
        }
    }

    /// A required shape dimension: a finite number > 0.
    fn dimension(&self, key: &str) -> Result<f64, SceneError> {
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
    fn array(
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
    fn array_of_len(
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
    fn vec3_value(&self, v: &'t Spanned<DeValue<'i>>, key: &str) -> Result<DVec3, SceneError> {
        let items = self.array_of_len(v, key, 3)?;
        let mut out = [0.0; 3];
        for (k, item) in items.iter().enumerate() {
            out[k] = self.number_value(item, &format!("{key}[{k}]"))?;
        }
        Ok(DVec3::from_array(out))
    }

    /// A vector `[x, y, z]` at `key`, if present.
    fn vec3(&self, key: &str) -> Result<Option<(DVec3, Span)>, SceneError> {
        match self.get(key) {
            None => Ok(None),
            Some(v) => Ok(Some((self.vec3_value(v, key)?, v.span()))),
        }
    }

    /// A unit quaternion `[w, x, y, z]` at `key`, if present; normalised when its norm is within
    /// 1e-6 of 1 (so that rounded decimals are accepted), refused otherwise (a quaternion far from
    /// unit is a mistake, not a rounding error).
    fn quat(&self, key: &str) -> Result<Option<DQuat>, SceneError> {
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
fn fmt_vec(v: DVec3) -> String {
    format!("[{}, {}, {}]", v.x, v.y, v.z)
}
