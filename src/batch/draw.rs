//! What a trial draws: its seed from the batch seed and its index, and the `[[batch.vary]]`
//! values from that seed, so a trial's result depends on nothing else (not on the thread count,
//! the shard layout or the order trials run in).

use crate::scene::{
    BatchSpec, BodySpec, Distribution, MassSpec, ScalarKey, Scene, StateVector, VaryKey, VaryTarget,
};
use crate::shape::Shape;
use glam::DQuat;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// SplitMix64's finaliser: a bijection of u64 that spreads nearby inputs far apart.
fn mix(mut z: u64) -> u64 {
    z = z.wrapping_add(0x9E37_79B9_7F4A_7C15);
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// The seed of trial `trial` (0-based) of a batch with seed `batch_seed`.
pub fn trial_seed(batch_seed: u64, trial: u64) -> u64 {
    mix(mix(batch_seed) ^ trial)
}

/// A uniformly random rotation (the Haar measure on SO(3)), by Shoemake's method (Graphics Gems
/// III, 1992): a uniform point on the unit 3-sphere. (A uniform angle about a uniform axis is
/// not uniform: it over-weights small rotations.)
pub fn uniform_rotation(rng: &mut impl Rng) -> DQuat {
    let (u1, u2, u3): (f64, f64, f64) = (rng.random(), rng.random(), rng.random());
    let tau = std::f64::consts::TAU;
    let (a, b) = ((1.0 - u1).sqrt(), u1.sqrt());
    DQuat::from_xyzw(
        a * (tau * u2).sin(),
        a * (tau * u2).cos(),
        b * (tau * u3).sin(),
        b * (tau * u3).cos(),
    )
    .normalize()
}

/// A standard normal deviate (Box–Muller).
fn standard_normal(rng: &mut impl Rng) -> f64 {
    let u1: f64 = 1.0 - rng.random::<f64>(); // (0, 1]: ln is finite
    let u2: f64 = rng.random();
    (-2.0 * u1.ln()).sqrt() * (std::f64::consts::TAU * u2).cos()
}

/// The trial's drawn values in `[[batch.vary]]` order, one per `trials.csv` column (an
/// orientation gives four: w, x, y, z).
pub fn draw(spec: &BatchSpec, seed: u64) -> Vec<f64> {
    let mut rng = ChaCha8Rng::seed_from_u64(seed);
    let mut values = Vec::new();
    for vary in &spec.vary {
        match vary.key {
            VaryKey::Orientation => {
                let q = uniform_rotation(&mut rng);
                values.extend([q.w, q.x, q.y, q.z]);
            }
            VaryKey::Component { distribution, .. } | VaryKey::Scalar { distribution, .. } => {
                values.push(match distribution {
                    Distribution::Uniform(lo, hi) => lo + (hi - lo) * rng.random::<f64>(),
                    Distribution::Normal(mean, sd) => mean + sd * standard_normal(&mut rng),
                })
            }
        }
    }
    values
}

/// Sets the drawn `values` ([`draw`]) into the scene's bodies and materials. A drawn value the
/// scene could not take (a negative mass or friction, a restitution above 1, a size of 0) is the
/// trial's error, naming its column: the batch goes on.
pub fn apply(scene: &mut Scene, spec: &BatchSpec, values: &[f64]) -> Result<(), String> {
    let mut values = values.iter().copied();
    for vary in &spec.vary {
        let mut next = || values.next().expect("a value per column");
        match (&vary.target, vary.key) {
            (VaryTarget::Body(i), VaryKey::Orientation) => {
                let mut q = [0.0; 4];
                for c in &mut q {
                    *c = next();
                }
                scene.bodies[*i].orientation = DQuat::from_xyzw(q[1], q[2], q[3], q[0]);
            }
            (VaryTarget::Body(i), VaryKey::Component { vector, axis, .. }) => {
                let (v, body) = (next(), &mut scene.bodies[*i]);
                match vector {
                    StateVector::Position => body.position[axis] = v,
                    StateVector::Velocity => body.velocity[axis] = v,
                    StateVector::AngularVelocity => body.angular_velocity[axis] = v,
                }
            }
            (target, VaryKey::Scalar { scalar, .. }) => {
                let v = next();
                let column = || format!("{}.{}", vary.name, scalar.key());
                let refuse = |rule: &str| Err(format!("drew {} = {v}: {rule}", column()));
                match scalar {
                    ScalarKey::Friction if !(v.is_finite() && v >= 0.0) => {
                        return refuse("must be >= 0")
                    }
                    ScalarKey::Restitution if !(0.0..=1.0).contains(&v) => {
                        return refuse("must be in [0, 1]")
                    }
                    ScalarKey::Friction | ScalarKey::Restitution => {}
                    _ if !(v.is_finite() && v > 0.0) => return refuse("must be > 0"),
                    _ => {}
                }
                match target {
                    VaryTarget::Material(name) => {
                        let m = scene
                            .materials
                            .get_mut(name)
                            .expect("a material of the scene");
                        match scalar {
                            ScalarKey::Friction => m.friction = v,
                            _ => m.restitution = v,
                        }
                    }
                    VaryTarget::Body(i) => set_body_scalar(&mut scene.bodies[*i], scalar, v),
                }
            }
            (VaryTarget::Material(_), _) => unreachable!("a material draws scalars only"),
        }
    }
    Ok(())
}

/// Sets body scalar `scalar` (a mass, density or shape size, checked at parse time to fit the
/// body) to `v`.
fn set_body_scalar(body: &mut BodySpec, scalar: ScalarKey, v: f64) {
    let size: &mut f64 = match (scalar, &mut body.shape) {
        (ScalarKey::Mass, _) => return body.mass = MassSpec::Mass(v),
        (ScalarKey::Density, _) => return body.mass = MassSpec::Density(v),
        (ScalarKey::Radius, Shape::Sphere { radius }) => radius,
        (ScalarKey::Radius, Shape::Capsule { radius, .. }) => radius,
        (ScalarKey::Radius, Shape::Cylinder { radius, .. }) => radius,
        (ScalarKey::HalfExtent(axis), Shape::Box { half_extents }) => &mut half_extents[axis],
        (ScalarKey::HalfHeight, Shape::Cylinder { half_height, .. }) => half_height,
        (ScalarKey::HalfLength, Shape::Capsule { half_length, .. }) => half_length,
        _ => unreachable!("the parse checks that the key fits the body"),
    };
    *size = v;
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn trial_seeds_differ_and_repeat() {
        let seeds: std::collections::HashSet<u64> = (0..10_000).map(|t| trial_seed(1, t)).collect();
        assert_eq!(seeds.len(), 10_000);
        assert_eq!(trial_seed(7, 42), trial_seed(7, 42));
        assert_ne!(trial_seed(7, 42), trial_seed(8, 42));
    }

    /// Haar measure: the rotation angle θ has density (1 − cos θ)/π on [0, π], so its mean is
    /// π/2 + 2/π, and the rotated x axis is uniform on the sphere (each component's mean 0,
    /// mean square 1/3).
    #[test]
    fn rotations_are_uniform() {
        let mut rng = ChaCha8Rng::seed_from_u64(3);
        let n = 200_000;
        let (mut angle, mut x, mut xx) = (0.0, 0.0, 0.0);
        for _ in 0..n {
            let q = uniform_rotation(&mut rng);
            angle += 2.0 * q.w.abs().min(1.0).acos();
            let v = q * glam::DVec3::X;
            x += v.z;
            xx += v.z * v.z;
        }
        let n = n as f64;
        let expected = std::f64::consts::FRAC_PI_2 + 2.0 / std::f64::consts::PI;
        eprintln!(
            "mean angle {} (expected {expected}), mean z {}, mean z² {} (1/3)",
            angle / n,
            x / n,
            xx / n
        );
        assert!((angle / n - expected).abs() < 0.01);
        assert!((x / n).abs() < 0.01);
        assert!((xx / n - 1.0 / 3.0).abs() < 0.01);
    }

    #[test]
    fn normal_deviates_have_their_moments() {
        let mut rng = ChaCha8Rng::seed_from_u64(5);
        let n = 200_000;
        let xs: Vec<f64> = (0..n).map(|_| standard_normal(&mut rng)).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / n as f64;
        eprintln!("mean {mean}, variance {var}");
        assert!(mean.abs() < 0.01 && (var - 1.0).abs() < 0.01);
    }
}
