//! Setting a dynamic body's state between frames (the Python package's `set_state`): the world
//! is at a frame's end, where the next step's contact step may already be prepared for the old
//! states; that preparation is undone, the body is put in its new state and woken, and the next
//! step starts afresh. Every pair is bounded again at each step's start, tracked contact points
//! are reused only while their bodies moved less than a slide since they were measured, and the
//! body's spin bound is recomputed, so the no-tunnelling bound holds from the new state on.

use super::World;
use crate::body::{BodyState, Motion};

impl World {
    /// Sets dynamic body `i`'s state (its user frame: shape origin, orientation, velocity,
    /// angular velocity) at the world's present time, waking it. Between frames only; every
    /// component must be finite and the orientation a unit quaternion (within 1e-6, then
    /// normalised). A body overlapping another after the change is the caller's doing: the
    /// contact step pushes it out as it would any overlap.
    pub fn set_body_state(&mut self, i: usize, state: &BodyState) -> Result<(), String> {
        let name = || self.stores.bodies[i].name.clone();
        if self.stores.bodies[i].motion != Motion::Dynamic {
            return Err(format!(
                "body \"{}\" is not dynamic: its state is not set",
                name()
            ));
        }
        let finite = state.position.is_finite()
            && state.velocity.is_finite()
            && state.angular_velocity.is_finite()
            && state.orientation.is_finite();
        if !finite {
            return Err(format!("body \"{}\": a state must be finite", name()));
        }
        let norm = state.orientation.length();
        if (norm - 1.0).abs() > 1e-6 {
            return Err(format!(
                "body \"{}\": orientation must be a unit quaternion [w, x, y, z] (got norm {norm})",
                name()
            ));
        }
        // The contact step prepared at this instant was solved for the old states.
        self.undo_prepared();
        let t = self.stores.clock.time;
        let body = &mut self.stores.bodies[i];
        let q_user = state.orientation.normalize();
        let offset = q_user * body.com_in_shape;
        body.time = t;
        body.position = state.position + offset;
        body.orientation = (q_user * body.principal_axes).normalize();
        body.velocity = state.velocity + state.angular_velocity.cross(offset);
        body.angular_velocity = state.angular_velocity;
        body.push = Default::default();
        body.wake(t);
        Ok(())
    }
}
