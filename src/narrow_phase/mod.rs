//! Distance and contact geometry between bodies: the narrow phase of the event loop.
//!
//! A [`Collider`] is a body's geometry in its body frame (origin at the centre of mass, axes along
//! the principal axes), as one or more convex parts, or a half-space. [`proximity()`] returns the
//! smallest signed separation of two colliders, the closest (or deepest) pair of points and, within
//! a margin, the rest of the contact manifold: the points the collision response of Mirtich &
//! Canny (1994, §4) applies impulses at.
//!
//! Which routine answers which pair of convex parts:
//!
//! | pair                        | closest pair                          | manifold                         |
//! |-----------------------------|---------------------------------------|----------------------------------|
//! | ball–ball, ball–box         | by hand, closed form                  | the one point                    |
//! | plane–any part              | by hand: support points vs the plane  | every support point ≤ margin     |
//! | ball–capsule/cylinder/hull  | parry: projection of the centre       | the one point                    |
//! | box–box apart, exact by SAT | by hand: best of the 15 axes          | by hand: parry's face clipping   |
//! | other box–box               | parry: GJK, EPA when overlapping      | parry: SAT + face clipping       |
//! | other pairs                 | parry: GJK, EPA when overlapping      | parry: polygonal features clipped|
//!
//! Box pairs apart whose distance the separating axes prove (face on face, edge or corner on a
//! face, edge across edge: nearly every pair in a pile of boxes) are answered by hand; the rest
//! (corner to corner, corner to edge, overlapping) go to parry. See the `box_box` module.
//!
//! Support points against a plane: a ball's or capsule's core points, a box's corners, a hull's
//! vertices, a cylinder's 4 quarter points per rim starting from the lowest (exact lowest point;
//! a cylinder standing on its cap gives a square of 4 rim points). In parry's feature clipping a
//! cylinder's cap is a square inscribed in its rim, so its points are true rim points.
//!
//! Accuracy. Hand paths are exact to rounding. GJK stops when the distance has converged to
//! ~5e-8 relative: polytope pairs end on exact features (rounding-level error), curved pairs have a
//! normal only to ~1e-4 and a distance GJK may overstate (seen: 1.7e-6 relative), so a separated
//! curved pair reports the gap along GJK's axis from the support functions, which never
//! overstates. Manifold points from parry carry their separation along the manifold normal,
//! clamped to be no smaller than the closest pair's (SAT can understate the distance of boxes
//! apart corner to corner); when a manifold point is as deep as GJK's witness (a face on a face)
//! it becomes the closest pair, so a box flat on a box reports its 4 corners and not an arbitrary
//! interior point besides.
//!
//! Compounds are handled in `proximity`, part against part, with a bounding-sphere cull; each pair
//! of parts contributes at most 4 manifold points (Bullet's area-maximising reduction, keeping the
//! deepest). A collider with many parts (a mesh's triangles or convex pieces) has a box tree over
//! them (`part_tree`), searched for each part of the other body with the same cull. A triangle of
//! a mesh used as it is (`convex = "none"`) is a flat convex part, parry's `Triangle`, answered by
//! parry like any other pair.
//!
//! No coherence is exploited: every query starts from scratch, so the result depends only on the
//! arguments (deterministic, and independent of the order in which pairs are processed). The
//! manifold query reuses the closest pair's normal as its GJK starting direction, which makes the
//! second GJK converge in one or two iterations. Queries allocate nothing on the heap beyond what
//! parry does inside EPA; parry's manifold buffer is a reused thread-local.
//!
//! Where each part lives: [`Collider`] in `collider`, [`Pose`] in `pose`, a convex part's geometry and
//! closed-form queries (support function, AABB, radii) in `part`, [`ContactPoint`] and the
//! manifold reduction in `contact`, the dispatch over parts in `proximity`, and one file per pair
//! routine: `plane_convex`, `ball_ball`, `ball_box`, `box_box`, and `convex_convex` for the pairs
//! parry answers.

mod ball_ball;
mod ball_box;
mod box_box;
mod collider;
mod contact;
mod convex_convex;
mod flat_face;
mod part;
mod part_tree;
mod plane_convex;
mod pose;
mod proximity;

pub use collider::Collider;
pub use contact::ContactPoint;
pub use part::box_corners;
pub use pose::Pose;
pub use proximity::proximity;
