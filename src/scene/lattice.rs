//! `[[lattices]]` generators: a lattice entry read and expanded into its bodies, placed on a
//! grid and turned by a seeded, reproducible random rotation each.

use super::bodies::{parse_common, read_name, BodyCtx, COMMON_KEYS};
use super::limits::{BODY_LIMIT_REASON, MAX_BODIES};
use super::table::{fmt_vec, Span, Tab};
use super::{BodySpec, SceneError};
use glam::{DQuat, DVec3};
use rand_chacha::rand_core::{RngCore, SeedableRng};
use toml::de::DeValue;
use toml::Spanned;

/// The bodies a lattice entry declares (its `count`'s product, saturating), if its count is three
/// integers: read before any lattice is generated, so that the scene's body limit is checked on
/// the whole scene first (the entry's own errors are reported when it is read).
pub(super) fn declared_count(item: &Spanned<DeValue>) -> Option<u64> {
    let DeValue::Table(table) = item.get_ref() else {
        return None;
    };
    let DeValue::Array(count) = table.get("count")?.get_ref() else {
        return None;
    };
    count.iter().try_fold(1u64, |n, v| match v.get_ref() {
        DeValue::Integer(i) => {
            let k = i64::from_str_radix(i.as_str(), i.radix()).ok()?;
            Some(n.saturating_mul(u64::try_from(k).ok()?))
        }
        _ => None,
    })
}

/// Reads lattice entry `index` and generates its bodies, in a scene whose other entries (its
/// `[[bodies]]` and other lattices) declare `others` bodies: the whole scene must stay within
/// [`MAX_BODIES`], checked before anything is generated.
pub(super) fn parse_lattice<'s, 't, 'i>(
    root: &Tab<'s, 't, 'i>,
    ctx: &BodyCtx,
    index: usize,
    item: &'t Spanned<DeValue<'i>>,
    others: u64,
) -> Result<(Vec<BodySpec>, Span, String), SceneError> {
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
    let product = count[0]
        .checked_mul(count[1])
        .and_then(|n| n.checked_mul(count[2]));
    let total = product
        .filter(|&n| n.saturating_add(others) <= MAX_BODIES)
        .ok_or_else(|| {
            let with_others = match others {
                0 => String::new(),
                n => format!(
                    " which, with the {} of the scene's other entries, is",
                    crate::plural::count(n, "body", "bodies")
                ),
            };
            t.value_error(
                &count_value.span(),
                "count",
                &format!(
                    "= [{}, {}, {}] generates {} bodies,{with_others} more than the {MAX_BODIES} \
                     a scene may have ({BODY_LIMIT_REASON})",
                    count[0],
                    count[1],
                    count[2],
                    product.map_or(format!("more than {}", u64::MAX), |n| n.to_string())
                ),
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
    let seed = t.seed()?;

    let origin = t.origin();
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
                    mass: c.mass.clone(),
                    inertia: c.inertia,
                    position,
                    orientation: (turn * c.orientation).normalize(),
                    velocity: c.velocity,
                    angular_velocity: c.angular_velocity,
                    material: c.material.clone(),
                    path: c.path.clone(),
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
