//! The host's broad phase: which boxes overlap (Mirtich & Canny 1994, §3.2), for the contact
//! step's and the step's pairs and for the event loop's queries after an impulse.
//!
//! Two parts, each in its file:
//!
//! - [`fat_boxes`]: each body's box grown by a pad and kept across steps, entered in the cells
//!   of a uniform grid (a flat table, [`cell_index`]), with the list of bodies whose fat boxes
//!   overlap its own. A body whose box stays inside its fat box (a sleeping body, a body at
//!   rest in a pile, one that moved less than the pad) costs one containment test per step;
//!   only one whose box left it moves between cells and finds its neighbours again. The pairs
//!   of a step are then read from the lists, in pair order, without hashing or sorting.
//! - [`listing_order`]: a query lists the bodies it finds in the order a hash grid built at
//!   every [`HashGrid::rebuild`] (cells twice the median box, bodies too large for them in a
//!   list of their own) would list them: the event loop acts on them in that order. Worked out
//!   per body when first needed, so a rebuild nothing queries (the contact step's) costs a copy
//!   of the boxes.
//!
//! What a query or a step's pairs hold depends only on the boxes given since the last rebuild
//! and the order they were entered in, never on the fat boxes' history: a world resumed from a
//! checkpoint (which keeps none of this) goes on exactly as the saved one would have.

mod cell_index;
mod fat_boxes;
mod listing_order;
mod pair_pass;
#[cfg(test)]
mod reference;

use crate::swept_aabb::Aabb;
use fat_boxes::FatBoxes;
use listing_order::ListingOrder;
pub use pair_pass::PairPass;

/// The broad phase: fat boxes kept across steps and the listing order of the last rebuild.
#[derive(Default)]
pub struct HashGrid {
    fat: FatBoxes,
    order: ListingOrder,
    /// Per body, whether it leads in [`HashGrid::overlapping_pairs`] (scratch).
    leading: Vec<bool>,
    /// A query's bodies with their places in its list (scratch).
    listed: Vec<(u64, u32)>,
    /// A query's candidates when its box is not inside its body's fat box (scratch).
    found: Vec<u32>,
    /// The pairs of each piece of bodies in [`HashGrid::overlapping_pairs`] (scratch).
    pieces: Vec<Vec<(usize, usize)>>,
}

impl HashGrid {
    /// Starts over with `boxes`, one slot per box, each body entered in order: a new listing
    /// order, its cells sized from the boxes with `sized(i)` true (moving bodies), and every
    /// box fitted into its fat box.
    pub fn rebuild(&mut self, boxes: &[Aabb], sized: impl Fn(usize) -> bool + Sync) {
        self.order.reset(boxes, sized);
        self.fat.resize(boxes.len());
        if !self.fat.has_cells() {
            let (cell, _) = self.order.cell_side();
            self.fat.set_cell(cell);
        }
        self.fat.fit_all(boxes);
    }

    /// Enters body `id` with box `b` after its box changed: its fat box is made to hold `b`,
    /// and the listing order notes the entry.
    pub fn insert(&mut self, id: usize, b: &Aabb) {
        self.order_cells();
        self.order.insert(id, b);
        self.fat.fit(id, b);
    }

    /// Frees body `id`'s slot: no query or pair meets it while its box is [`Aabb::EMPTY`]
    /// (which a fat box always holds).
    pub fn remove(&mut self, id: usize) {
        self.fat.remove(id);
    }

    /// Fat boxes made so far (each a body whose box left its fat box, or a new one).
    pub fn refits(&self) -> u64 {
        self.fat.refits()
    }

    /// The listing order's cells, worked out on their first use since the rebuild; the fat
    /// boxes' cells follow them when they differ by more than a factor of two.
    fn order_cells(&mut self) {
        let (cell, new) = self.order.cell_side();
        if new {
            self.fat.set_cell(cell);
        }
    }

    /// Every body other than `me` whose current box (in `boxes`, as last entered) overlaps
    /// `b`, each once, in `out` (cleared first), in the listing order of the last rebuild.
    pub fn query(&mut self, me: usize, b: &Aabb, boxes: &[Aabb], out: &mut Vec<u32>) {
        out.clear();
        self.order_cells();
        let Self {
            fat,
            order,
            listed,
            found,
            ..
        } = self;
        // A box inside its own body's fat box overlaps only boxes of that body's neighbours.
        let candidates: &[u32] = if me < fat.len() && fat.fat(me).contains(b) {
            fat.near(me)
        } else {
            fat.search(b, me, found);
            found
        };
        // Each overlapping box's place, into a buffer as long as the candidates.
        listed.clear();
        listed.resize(candidates.len(), (0, 0));
        let mut len = 0;
        match order.cell_range(b) {
            Some(q) => {
                for &j in candidates {
                    if boxes[j as usize].overlaps(b) {
                        if let Some(place) = order.place(j as usize, q) {
                            listed[len] = (place, j);
                            len += 1;
                        }
                    }
                }
            }
            None => {
                for &j in candidates {
                    if boxes[j as usize].overlaps(b) {
                        listed[len] = (order.place_by_index(j as usize), j);
                        len += 1;
                    }
                }
            }
        }
        let listed = &mut listed[..len];
        // Places are distinct (each body has its own entries), so the order is total. A few
        // bodies, mostly in order already: an insertion sort.
        for k in 1..len {
            let x = listed[k];
            let mut at = k;
            while at > 0 && listed[at - 1].0 > x.0 {
                listed[at] = listed[at - 1];
                at -= 1;
            }
            listed[at] = x;
        }
        out.extend(listed.iter().map(|&(_, j)| j));
    }

    /// Every pair `(min, max)` of bodies whose boxes (in `boxes`) overlap, at least one of
    /// them leading (`leads(i)`), kept if `keep(lead, other)` says so (`lead` the lower index
    /// if both lead), into `out` (cleared first) in pair order. Every box is first fitted into
    /// its fat box; then each body's neighbours above it are read from its list, ascending: a
    /// large step's bodies in pieces on the pool's threads, each piece's pairs into its own
    /// buffer, appended in body order (the same list on any number of threads).
    pub fn overlapping_pairs(
        &mut self,
        boxes: &[Aabb],
        leads: impl Fn(usize) -> bool + Sync,
        keep: impl Fn(usize, usize) -> bool + Sync,
        out: &mut Vec<(usize, usize)>,
    ) {
        use rayon::prelude::*;
        let n = boxes.len();
        if self.fat.len() != n {
            self.fat.resize(n);
        }
        self.fat.fit_all(boxes);
        self.leading.clear();
        // `leads` reads each body: on all cores in a large world (see `ListingOrder::reset`).
        if n >= PARALLEL_FLAGS {
            let each = (0..n).into_par_iter().with_min_len(PARALLEL_FLAGS / 4);
            self.leading.par_extend(each.map(&leads));
        } else {
            self.leading.extend((0..n).map(leads));
        }
        out.clear();
        let (fat, leading) = (&self.fat, &self.leading);
        let list = |bodies: std::ops::Range<usize>, out: &mut Vec<(usize, usize)>| {
            for i in bodies {
                let near = fat.near(i);
                let above = near.partition_point(|&j| j as usize <= i);
                for &j in &near[above..] {
                    let j = j as usize;
                    let Some((lead, other)) = lead_of(i, j, leading[i], leading[j]) else {
                        continue;
                    };
                    if boxes[other].overlaps(&boxes[lead]) && keep(lead, other) {
                        out.push((i, j));
                    }
                }
            }
        };
        if n < 2 * PAIRS_PIECE {
            list(0..n, out);
            return;
        }
        let pieces = n.div_ceil(PAIRS_PIECE);
        if self.pieces.len() < pieces {
            self.pieces.resize_with(pieces, Vec::new);
        }
        self.pieces[..pieces]
            .par_iter_mut()
            .enumerate()
            .for_each(|(k, piece)| {
                piece.clear();
                list(k * PAIRS_PIECE..((k + 1) * PAIRS_PIECE).min(n), piece);
            });
        for piece in &self.pieces[..pieces] {
            out.extend_from_slice(piece);
        }
    }
}

/// Which of bodies `i` < `j` leads their pair, and the other: `i` if it leads, else `j` if
/// that does; `None` if neither does (a pair of two followers is not listed).
#[inline(always)]
fn lead_of(i: usize, j: usize, i_leads: bool, j_leads: bool) -> Option<(usize, usize)> {
    match (i_leads, j_leads) {
        (true, _) => Some((i, j)),
        (false, true) => Some((j, i)),
        (false, false) => None,
    }
}

/// Bodies whose pairs one thread lists at a time in [`HashGrid::overlapping_pairs`]: a few
/// thousand neighbours to test, more than a hand-over to another thread costs.
const PAIRS_PIECE: usize = 256;

/// Bodies from which a rebuild's and a pair listing's per-body flags (`sized`, `leads`, which
/// read each body) are found on the pool's threads.
const PARALLEL_FLAGS: usize = 4096;

#[cfg(test)]
mod tests {
    use super::reference::Grid;
    use super::*;
    use glam::DVec3;

    /// A deterministic stream of numbers in [0, 1) (also for `fat_boxes`' tests).
    pub(super) fn stream(mut s: u64) -> impl FnMut() -> f64 {
        move || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (s >> 11) as f64 / (1u64 << 53) as f64
        }
    }

    /// `n` random boxes in a cube `side` wide and a floor slab, the last one (also for
    /// `fat_boxes`' tests).
    pub(super) fn scattered(n: usize, side: f64, rnd: &mut impl FnMut() -> f64) -> Vec<Aabb> {
        let mut boxes: Vec<Aabb> = (0..n)
            .map(|_| {
                let c = DVec3::new(rnd(), rnd(), rnd()) * side;
                let h = DVec3::splat(0.2 + rnd());
                Aabb {
                    min: c - h,
                    max: c + h,
                }
            })
            .collect();
        boxes.push(Aabb {
            min: DVec3::splat(-100.0),
            max: DVec3::new(100.0, 100.0, 0.5),
        });
        boxes
    }

    #[test]
    fn finds_the_same_pairs_as_brute_force() {
        // More bodies than two pieces (`PAIRS_PIECE`): their pairs are listed on the pool's
        // threads and appended in order.
        let boxes = scattered(5 * PAIRS_PIECE, 20.0, &mut stream(12345));
        let mut bp = HashGrid::default();
        bp.rebuild(&boxes, |_| true);
        // All pairs at once against all pairs by brute force; every second body leads (a pair
        // of two followers is not wanted), and one pair in three is dropped by `keep`.
        let leads = |i: usize| i.is_multiple_of(2);
        let keep = |i: usize, j: usize| !(i + 2 * j).is_multiple_of(3);
        let mut pairs = Vec::new();
        bp.overlapping_pairs(&boxes, leads, keep, &mut pairs);
        let mut want = Vec::new();
        for i in (0..boxes.len()).filter(|&i| leads(i)) {
            for j in 0..boxes.len() {
                let once = !(j < i && leads(j));
                if j != i && once && boxes[j].overlaps(&boxes[i]) && keep(i, j) {
                    want.push((i.min(j), i.max(j)));
                }
            }
        }
        want.sort_unstable();
        assert_eq!(pairs, want);
        let mut out = Vec::new();
        for i in 0..boxes.len() {
            bp.query(i, &boxes[i], &boxes, &mut out);
            let mut got: Vec<u32> = out.clone();
            got.sort();
            let want: Vec<u32> = (0..boxes.len() as u32)
                .filter(|&j| j as usize != i && boxes[j as usize].overlaps(&boxes[i]))
                .collect();
            assert_eq!(got, want);
        }
    }

    /// Steps as the world takes them: boxes that drift (some far, some growing too large for
    /// the cells, one sleeping), a rebuild, the pairs, then events that renew single boxes,
    /// each followed by queries with the body's box, the box grown, and boxes of any size; now
    /// and then bodies go and come (an island's grid numbers other bodies each step). Pairs and
    /// queries must be those of the grid rebuilt at every reset, in its order.
    #[test]
    fn lists_as_the_grid_rebuilt_at_every_reset() {
        let mut rnd = stream(99);
        let mut boxes = scattered(239, 20.0, &mut rnd);
        let mut bp = HashGrid::default();
        let mut grid = Grid::default();
        let (mut got, mut want) = (Vec::new(), Vec::new());
        let (mut pairs, mut want_pairs) = (Vec::new(), Vec::new());
        let moving = |i: usize| !i.is_multiple_of(7);
        for step in 0..30 {
            match step {
                10 => boxes.truncate(200),
                20 => boxes.extend(scattered(50, 20.0, &mut rnd)),
                _ => {}
            }
            let n = boxes.len();
            for (i, b) in boxes.iter_mut().enumerate().filter(|&(i, _)| moving(i)) {
                let d = if i % 11 == 0 { 3.0 } else { 0.1 };
                let shift = DVec3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5) * d;
                *b = Aabb {
                    min: b.min + shift,
                    max: b.max + shift,
                };
            }
            let leads = |i: usize| moving(i) && i != n - 1;
            let keep = |i: usize, j: usize| !(i + j).is_multiple_of(5);
            bp.rebuild(&boxes, leads);
            grid.reset(&boxes, leads);
            for (i, b) in boxes.iter().enumerate() {
                grid.insert(i, b);
            }
            bp.overlapping_pairs(&boxes, leads, keep, &mut pairs);
            grid.overlapping_pairs(&boxes, leads, keep, &mut want_pairs);
            assert_eq!(pairs, want_pairs, "step {step}");
            let k = step % n;
            bp.query(k, &boxes[k], &boxes, &mut got);
            grid.query(k, &boxes[k], &boxes, &mut want);
            assert_eq!(got, want, "step {step}, body {k} before any event");
            for event in 0..60 {
                let i = (rnd() * (n - 1) as f64) as usize;
                let c = 0.5 * (boxes[i].min + boxes[i].max);
                let h = 0.5 * (boxes[i].max - boxes[i].min);
                let r = rnd();
                let (c, h) = if r < 0.05 {
                    (c, h * 12.0) // too large for the cells
                } else if r < 0.3 {
                    (c + DVec3::new(rnd(), rnd(), rnd()) * 2.0, h) // a new path
                } else {
                    (c, h * (1.0 + 0.2 * rnd()))
                };
                boxes[i] = Aabb {
                    min: c - h,
                    max: c + h,
                };
                bp.insert(i, &boxes[i]);
                grid.insert(i, &boxes[i]);
                let j = (rnd() * n as f64) as usize;
                let span = if event % 9 == 0 { 40.0 } else { 2.0 * rnd() };
                let free = Aabb {
                    min: boxes[j].min,
                    max: boxes[j].min + DVec3::splat(span),
                };
                for (me, q) in [
                    (i, boxes[i]),
                    (i, boxes[i].grown(0.05)),
                    (j, boxes[j].grown(0.001)),
                    (j, free),
                ] {
                    bp.query(me, &q, &boxes, &mut got);
                    grid.query(me, &q, &boxes, &mut want);
                    assert_eq!(got, want, "step {step}, event {event}, body {me}");
                }
            }
        }
        assert!(bp.refits() < 30 * 240);
    }
}
