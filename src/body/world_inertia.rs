//! A body's inverse inertia tensor in world coordinates, `R diag(1/I) Rᵀ`, kept for the
//! orientation it was computed at: the contact step's prepare, each collision and each impulse
//! of a round read it many times between two turns of the body.

use glam::{DMat3, DQuat, DVec3};

/// `R diag(1/I) Rᵀ` for one orientation, with that orientation's bits as its key. A read at
/// another orientation computes afresh, so a path that turns the body without refreshing the
/// cache is only slower, never wrong; the value always comes from [`inverse_world`], so a hit
/// and a fresh computation agree to the bit.
///
/// Not part of the saved state (a checkpoint, [`super::BodyHot`]): restoring one sets the
/// orientation, which every read checks the key against.
#[derive(Clone, Copy, Debug)]
pub struct WorldInertia {
    /// The bits of the orientation `inv` was computed for (bits, not values: `-0.0 == 0.0`,
    /// yet the two may give matrices that differ in a zero's sign).
    key: [u64; 4],
    inv: DMat3,
}

impl WorldInertia {
    /// The world inverse inertia at orientation `q` of a body with principal inverse moments
    /// `inv_inertia` (which stay fixed for the body's life).
    pub fn new(q: DQuat, inv_inertia: DVec3) -> WorldInertia {
        WorldInertia {
            key: key_of(q),
            inv: inverse_world(q, inv_inertia),
        }
    }

    /// The world inverse inertia at orientation `q`: the kept one if it is `q`'s.
    #[inline]
    pub fn get(&self, q: DQuat, inv_inertia: DVec3) -> DMat3 {
        if self.key == key_of(q) {
            self.inv
        } else {
            inverse_world(q, inv_inertia)
        }
    }

    /// Keeps the world inverse inertia of orientation `q` (computing it unless it is already
    /// `q`'s) and returns it.
    #[inline]
    pub fn refresh(&mut self, q: DQuat, inv_inertia: DVec3) -> &DMat3 {
        if self.key != key_of(q) {
            *self = WorldInertia::new(q, inv_inertia);
        }
        &self.inv
    }
}

/// `R diag(1/I) Rᵀ` for rotation `q`: the one computation every value of the cache comes from.
#[inline(never)]
fn inverse_world(q: DQuat, inv_inertia: DVec3) -> DMat3 {
    let r = DMat3::from_quat(q);
    r * DMat3::from_diagonal(inv_inertia) * r.transpose()
}

/// The cache's key for orientation `q`: its four components' bits.
#[inline]
fn key_of(q: DQuat) -> [u64; 4] {
    q.to_array().map(f64::to_bits)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A hit, a miss and a refresh all give the fresh computation's bits, and a zero's sign
    /// counts as a different orientation.
    #[test]
    fn cached_value_is_the_fresh_one_to_the_bit() {
        let inv_inertia = DVec3::new(1.0 / 3.0, 0.7, 11.0);
        let q = DQuat::from_scaled_axis(DVec3::new(0.3, -1.1, 0.25));
        let p = DQuat::from_rotation_z(0.9);
        let bits = |m: DMat3| m.to_cols_array().map(f64::to_bits);
        let mut cache = WorldInertia::new(q, inv_inertia);
        assert_eq!(
            bits(cache.get(q, inv_inertia)),
            bits(inverse_world(q, inv_inertia))
        );
        assert_eq!(
            bits(cache.get(p, inv_inertia)),
            bits(inverse_world(p, inv_inertia))
        );
        assert_eq!(
            bits(*cache.refresh(p, inv_inertia)),
            bits(inverse_world(p, inv_inertia))
        );
        assert_eq!(cache.key, key_of(p));
        let zero = DQuat::from_xyzw(0.0, 0.0, 0.0, 1.0);
        let negative_zero = DQuat::from_xyzw(-0.0, 0.0, 0.0, 1.0);
        cache.refresh(zero, inv_inertia);
        assert_ne!(cache.key, key_of(negative_zero));
        assert_eq!(
            bits(cache.get(negative_zero, inv_inertia)),
            bits(inverse_world(negative_zero, inv_inertia))
        );
    }
}
