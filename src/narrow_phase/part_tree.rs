//! A bounding-box tree over a collider's convex parts, in the body frame, for colliders with
//! many parts (a mesh's triangles, a decomposition's pieces): a proximity query then visits
//! the parts near each part of the other body, nearest subtree first, instead of all of them.
//!
//! The cull is the pair loop's own (see `proximity`): a pair of parts is skipped when a lower
//! bound on its signed separation exceeds both the margin and the best separation found so
//! far, so the closest pair and every pair within the margin are the same as the loop's; only
//! the order in which pairs are met differs. (`proximity` then reduces the points of one part
//! against the tree's parts to 4, as it does for one pair of parts.) The lower bound is the larger of the
//! bounding spheres' (centre distance − radii) and the box's (distance from the other part's
//! sphere centre to the part's box − its radius), both conservative (see
//! [`PartTree::visit_near`]).

use super::part::Part;
use super::pose::Pose;
use glam::DVec3;

/// Colliders with at least this many parts get a tree: meshes used as their triangles, and
/// decompositions into many pieces. Fewer are looped over in order, which costs about 8 ns a
/// part (under 0.5 µs here) and keeps the results of the compounds scenes write by hand (a drum
/// of 18 staves and plates, say) exactly as they were.
pub(super) const TREE_MIN_PARTS: usize = 64;

/// Most parts in a leaf.
const LEAF_PARTS: usize = 4;

/// Deepest stack a query may need: a median split halves the parts at each level, so 64 levels
/// would take 2⁶⁴ parts.
const MAX_DEPTH: usize = 64;

#[derive(Clone, Debug)]
struct Node {
    min: DVec3,
    max: DVec3,
    /// Internal: the two children's node indices. Leaf: the range `order[a..b]` of its parts.
    first: u32,
    second: u32,
    leaf: bool,
}

/// The tree (see the module doc).
#[derive(Clone, Debug)]
pub(super) struct PartTree {
    nodes: Vec<Node>,
    /// Part indices, grouped by leaf.
    order: Vec<u32>,
    /// Each part's box in the body frame.
    boxes: Vec<(DVec3, DVec3)>,
}

impl PartTree {
    /// The tree of `parts` (median splits along the longest side of the box of the part
    /// centres), or `None` for fewer than [`TREE_MIN_PARTS`] parts.
    pub(super) fn build(parts: &[Part]) -> Option<PartTree> {
        if parts.len() < TREE_MIN_PARTS {
            return None;
        }
        let boxes: Vec<(DVec3, DVec3)> = parts.iter().map(|p| p.aabb(&Pose::IDENTITY)).collect();
        let mut tree = PartTree {
            nodes: Vec::with_capacity(2 * parts.len() / LEAF_PARTS + 1),
            order: (0..parts.len() as u32).collect(),
            boxes,
        };
        tree.split(0, parts.len());
        Some(tree)
    }

    /// Builds the node over `order[start..end]` and returns its index.
    fn split(&mut self, start: usize, end: usize) -> u32 {
        let (mut min, mut max) = (DVec3::INFINITY, DVec3::NEG_INFINITY);
        let (mut cmin, mut cmax) = (DVec3::INFINITY, DVec3::NEG_INFINITY);
        for &i in &self.order[start..end] {
            let (lo, hi) = self.boxes[i as usize];
            (min, max) = (min.min(lo), max.max(hi));
            let c = (lo + hi) * 0.5;
            (cmin, cmax) = (cmin.min(c), cmax.max(c));
        }
        let index = self.nodes.len() as u32;
        self.nodes.push(Node {
            min,
            max,
            first: start as u32,
            second: end as u32,
            leaf: true,
        });
        if end - start <= LEAF_PARTS {
            return index;
        }
        let side = cmax - cmin;
        let axis = if side.x >= side.y && side.x >= side.z {
            0
        } else if side.y >= side.z {
            1
        } else {
            2
        };
        let mid = (start + end) / 2;
        let boxes = &self.boxes;
        let key = |i: &u32| {
            let (lo, hi) = boxes[*i as usize];
            (lo[axis] + hi[axis], *i)
        };
        self.order[start..end].select_nth_unstable_by(mid - start, |x, y| {
            let (kx, ix) = key(x);
            let (ky, iy) = key(y);
            kx.total_cmp(&ky).then(ix.cmp(&iy))
        });
        let first = self.split(start, mid);
        let second = self.split(mid, end);
        let node = &mut self.nodes[index as usize];
        (node.first, node.second, node.leaf) = (first, second, false);
        index
    }

    /// Calls `visit(part index, lower bound)` for each part whose lower bound on the signed
    /// separation from a ball of radius `r` centred at `c` (body frame) is at most the
    /// threshold, nearer subtrees first; the threshold starts at `threshold` and becomes what
    /// each call of `visit` returns.
    ///
    /// Why the bounds are conservative where they cull: a pair is skipped only while its bound
    /// is positive (the threshold is at least the margin, ≥ 0), and then the ball lies that far
    /// from the box or sphere that holds the part, so the two are at least that far apart.
    pub(super) fn visit_near(
        &self,
        c: DVec3,
        r: f64,
        parts: &[Part],
        mut threshold: f64,
        mut visit: impl FnMut(usize, f64) -> f64,
    ) {
        let gap = |min: DVec3, max: DVec3| (min - c).max(c - max).max(DVec3::ZERO).length() - r;
        let mut stack = [0u32; MAX_DEPTH];
        let mut len = 1;
        while len > 0 {
            len -= 1;
            let node = &self.nodes[stack[len] as usize];
            if gap(node.min, node.max) > threshold {
                continue;
            }
            if node.leaf {
                for &i in &self.order[node.first as usize..node.second as usize] {
                    let (lo, hi) = self.boxes[i as usize];
                    let p = &parts[i as usize];
                    let spheres = c.distance(p.sphere_center) - r - p.sphere_radius;
                    let lower = gap(lo, hi).max(spheres);
                    if lower <= threshold {
                        threshold = visit(i as usize, lower);
                    }
                }
                continue;
            }
            // The nearer child is pushed last, so it is searched first.
            let (x, y) = (node.first, node.second);
            let (gx, gy) = (self.node_gap(x, &gap), self.node_gap(y, &gap));
            let (near, far) = if gy < gx { (y, x) } else { (x, y) };
            stack[len] = far;
            stack[len + 1] = near;
            len += 2;
        }
    }

    /// The box of all the parts (body frame).
    pub(super) fn bounds(&self) -> (DVec3, DVec3) {
        (self.nodes[0].min, self.nodes[0].max)
    }

    fn node_gap(&self, i: u32, gap: &impl Fn(DVec3, DVec3) -> f64) -> f64 {
        let n = &self.nodes[i as usize];
        gap(n.min, n.max)
    }
}
