//! Fat boxes kept across steps, and which of them overlap (the fat boxes of Box2D's broad
//! phase, in a uniform grid): each body's box grown by a pad, entered in the cells it covers,
//! with the list of bodies whose fat boxes overlap its own.
//!
//! A body whose box stays inside its fat box costs nothing: it keeps its cells and its
//! neighbours. Only one whose box left its fat box ([`FatBoxes::fit`]) gets a new fat box,
//! moves between cells if its cell range changed, and finds its neighbours again, from its
//! cells (and the short list of bodies too large for the cells). Every box inside its body's fat
//! box, two bodies whose boxes overlap are each in the other's list: the lists hold every pair
//! that can overlap, and a caller tests the boxes themselves. What the lists hold depends on
//! the history of the fat boxes; what the callers make of them (the overlapping boxes) does not.
//!
//! Slots are body indices and stay valid as bodies come and go: [`FatBoxes::remove`] frees one,
//! [`FatBoxes::resize`] adds or drops slots at the end.

use super::cell_index::{cell_range, CellIndex};
use crate::swept_aabb::Aabb;
use glam::DVec3;

/// A fat box is the body's box grown on every side by this fraction of its largest side: it
/// holds the box while the body moves that far (a unit cube falling at 10 m/s, about five
/// contact steps of 2.5 ms), and adds few neighbours to test (half of them overlap in a pile).
const PAD: f64 = 0.125;

/// Where a body's fat box is entered.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Place {
    /// Nowhere: a free slot, or a box with a NaN coordinate (it overlaps nothing).
    Out,
    /// In the cells from the first corner to the second, inclusive.
    Cells([i32; 3], [i32; 3]),
    /// In the large list: too large for the cells, or not finite.
    Large,
}

/// The fat boxes, their grid and each body's overlapping fat boxes.
#[derive(Default)]
pub(super) struct FatBoxes {
    /// Each slot's fat box ([`Aabb::EMPTY`] for a free slot).
    fat: Vec<Aabb>,
    /// Each slot's neighbours: the other bodies whose fat boxes overlap its own, ascending.
    near: Vec<Vec<u32>>,
    place: Vec<Place>,
    /// Bodies whose fat box is in no cell (too large or not finite), in no particular order.
    large: Vec<u32>,
    cells: CellIndex,
    /// 1 / the cells' side (0 before the first [`FatBoxes::set_cell`]).
    inv_cell: f64,
    /// Per-body search stamp, for listing each body once without a set.
    seen: Vec<u32>,
    stamp: u32,
    /// A search's finds (scratch).
    found: Vec<u32>,
    /// Fat boxes made since the start (for tests and tuning).
    refits: u64,
    /// The bodies [`FatBoxes::fit_all`] refits, and their neighbours found (scratch).
    moved: Vec<usize>,
    finds: Vec<Vec<u32>>,
}

/// Calls `visit` with every body whose fat box may overlap a box at `place`: the large list's
/// and those in the cells it covers (a body once per cell), or all `slots` for a large box.
fn candidates(
    place: Place,
    large: &[u32],
    cells: &CellIndex,
    slots: usize,
    mut visit: impl FnMut(u32),
) {
    match place {
        Place::Cells(lo, hi) => {
            for &j in large {
                visit(j);
            }
            for x in lo[0]..=hi[0] {
                for y in lo[1]..=hi[1] {
                    for z in lo[2]..=hi[2] {
                        for &j in cells.get([x, y, z]) {
                            visit(j);
                        }
                    }
                }
            }
        }
        Place::Large => {
            for j in 0..slots as u32 {
                visit(j);
            }
        }
        Place::Out => {}
    }
}

/// Refits from which [`FatBoxes::fit_all`] searches the new neighbours on the pool's threads.
const PARALLEL_REFITS: usize = 256;

/// The fat box of box `b`: grown by `PAD` of its largest side (not at all if that is 0 or not
/// finite).
fn padded(b: &Aabb) -> Aabb {
    let extent = b.max_extent();
    let pad = if extent.is_finite() && extent > 0.0 {
        PAD * extent
    } else {
        0.0
    };
    b.grown(pad)
}

/// A new fat box `fat` of box `b` stretched ahead along the way the box went since its last
/// fat box `old` was made (by that much, at most `b`'s largest side), as Box2D's broad phase
/// stretches a moving proxy's fat box along its displacement: a body falling steadily leaves
/// its fat box half as often, and each refit searches the cells for its neighbours again
/// (most of a falling scene's broad phase). A body jostled in a pile moves little and gets
/// little stretch. Which pairs the callers find does not depend on the fat boxes (see the
/// module doc).
fn ahead(fat: Aabb, old: &Aabb, b: &Aabb) -> Aabb {
    let centre = |x: &Aabb| 0.5 * (x.min + x.max);
    let shift = centre(b) - centre(old);
    let cap = b.max_extent();
    if !(shift.is_finite() && cap.is_finite()) {
        return fat; // a first fat box (the old one empty), or a box not finite
    }
    let shift = shift.clamp(DVec3::splat(-cap), DVec3::splat(cap));
    Aabb {
        min: fat.min + shift.min(DVec3::ZERO),
        max: fat.max + shift.max(DVec3::ZERO),
    }
}

impl FatBoxes {
    /// The boxes themselves (no pad) entered in cells of side `cell`, without neighbour
    /// lists: for a pass over the pairs that may stop after a few ([`super::PairPass`]), where
    /// building every list would cost as much as listing every pair (10 000 boxes all
    /// overlapping each other: 10^8 entries).
    pub(super) fn unlisted(boxes: &[Aabb], cell: f64) -> FatBoxes {
        let mut unlisted = FatBoxes::default();
        unlisted.resize(boxes.len());
        unlisted.set_cell(cell);
        for (id, b) in boxes.iter().enumerate() {
            unlisted.fat[id] = *b;
            unlisted.place[id] = unlisted.place_of(b);
            unlisted.enter(id);
        }
        unlisted
    }

    /// Number of slots.
    pub(super) fn len(&self) -> usize {
        self.fat.len()
    }

    /// Whether the cells have a side yet.
    pub(super) fn has_cells(&self) -> bool {
        self.inv_cell != 0.0
    }

    /// Fat boxes made so far.
    pub(super) fn refits(&self) -> u64 {
        self.refits
    }

    /// Slot `id`'s fat box.
    pub(super) fn fat(&self, id: usize) -> &Aabb {
        &self.fat[id]
    }

    /// The bodies whose fat boxes overlap `id`'s, ascending.
    pub(super) fn near(&self, id: usize) -> &[u32] {
        &self.near[id]
    }

    /// `n` slots: new ones are free, those from `n` on are removed.
    pub(super) fn resize(&mut self, n: usize) {
        for id in (n..self.fat.len()).rev() {
            self.remove(id);
        }
        self.fat.resize(n, Aabb::EMPTY);
        self.near.resize_with(n, Vec::new);
        self.place.resize(n, Place::Out);
        self.seen.resize(n, 0);
    }

    /// Cells of side `cell`. The cells are entered afresh only when the side changes by more
    /// than a factor of two (the neighbour lists do not depend on it), or when the table holds
    /// far more cells than there are bodies.
    pub(super) fn set_cell(&mut self, cell: f64) {
        let ratio = cell * self.inv_cell;
        let stale = self.cells.len() > 64 * self.fat.len().max(16);
        if (0.5..=2.0).contains(&ratio) && !stale {
            return;
        }
        self.inv_cell = 1.0 / cell;
        self.cells.clear();
        self.large.clear();
        for id in 0..self.fat.len() {
            if self.place[id] != Place::Out {
                self.place[id] = self.place_of(&self.fat[id]);
                self.enter(id);
            }
        }
    }

    /// Frees slot `id`: out of its cells and of its neighbours' lists.
    pub(super) fn remove(&mut self, id: usize) {
        self.leave(id);
        self.place[id] = Place::Out;
        self.fat[id] = Aabb::EMPTY;
        let near = std::mem::take(&mut self.near[id]);
        for &j in &near {
            let list = &mut self.near[j as usize];
            if let Ok(k) = list.binary_search(&(id as u32)) {
                list.remove(k);
            }
        }
        self.near[id] = near;
        self.near[id].clear();
    }

    /// Makes body `id`'s fat box hold `b`: if it does already, nothing changes; else a new fat
    /// box around `b`, its cells and its neighbours. Returns whether it changed.
    pub(super) fn fit(&mut self, id: usize, b: &Aabb) -> bool {
        if self.fat[id].contains(b) {
            return false;
        }
        self.refit(id, b);
        let (fat, mut found) = (self.fat[id], std::mem::take(&mut self.found));
        self.search(&fat, id, &mut found);
        found.sort_unstable();
        self.relink(id, &found);
        self.found = found;
        true
    }

    /// Gives body `id` a new fat box around `b` and enters it in its cells (its neighbours
    /// are left to the caller).
    fn refit(&mut self, id: usize, b: &Aabb) {
        self.refits += 1;
        let fat = ahead(padded(b), &self.fat[id], b);
        let place = self.place_of(&fat);
        self.fat[id] = fat;
        if place != self.place[id] {
            self.leave(id);
            self.place[id] = place;
            self.enter(id);
        }
    }

    /// Makes every body's fat box hold its box in `boxes` (one per slot), as [`Self::fit`] on
    /// each in turn would. The neighbour lists are a function of the fat boxes alone (each is
    /// every other body whose fat box overlaps its own, ascending), and a fat box of the box it
    /// left, so the order the bodies are refitted in changes neither: when many bodies left
    /// theirs (a scene falling), their new fat boxes are entered first, their neighbours then
    /// searched for on the pool's threads, and the lists relinked in body order.
    pub(super) fn fit_all(&mut self, boxes: &[Aabb]) {
        use rayon::prelude::*;
        let (mut moved, mut finds) = (
            std::mem::take(&mut self.moved),
            std::mem::take(&mut self.finds),
        );
        moved.clear();
        moved.extend((0..boxes.len()).filter(|&i| !self.fat[i].contains(&boxes[i])));
        if moved.len() < PARALLEL_REFITS {
            for &i in &moved {
                self.fit(i, &boxes[i]);
            }
        } else {
            for &id in &moved {
                self.refit(id, &boxes[id]);
            }
            if finds.len() < moved.len() {
                finds.resize_with(moved.len(), Vec::new);
            }
            let this = &*self;
            finds[..moved.len()]
                .par_iter_mut()
                .zip(moved.par_iter())
                .with_min_len(16)
                .for_each(|(found, &id)| this.search_listed(id, found));
            for (&id, found) in moved.iter().zip(&finds) {
                self.relink(id, found);
            }
        }
        (self.moved, self.finds) = (moved, finds);
    }

    /// [`Self::search`] for body `id`'s own fat box, without the search stamps (so that many
    /// run at once): every other body whose fat box overlaps it, ascending, into `out`.
    fn search_listed(&self, id: usize, out: &mut Vec<u32>) {
        out.clear();
        let b = &self.fat[id];
        let fat = &self.fat;
        let visit = |j: u32| {
            if j as usize != id && fat[j as usize].overlaps(b) {
                out.push(j);
            }
        };
        candidates(self.place_of(b), &self.large, &self.cells, fat.len(), visit);
        // A body in several of the cells is met once in each.
        out.sort_unstable();
        out.dedup();
    }

    /// Every body other than `me` whose fat box overlaps `b`, each once, into `out` (cleared
    /// first; in no particular order).
    pub(super) fn search(&mut self, b: &Aabb, me: usize, out: &mut Vec<u32>) {
        out.clear();
        self.stamp = self.stamp.wrapping_add(1);
        if self.stamp == 0 {
            self.seen.iter_mut().for_each(|s| *s = 0);
            self.stamp = 1;
        }
        let stamp = self.stamp;
        let place = self.place_of(b);
        let seen = &mut self.seen;
        if me < seen.len() {
            seen[me] = stamp;
        }
        let fat = &self.fat;
        let visit = |j: u32| {
            let ju = j as usize;
            if seen[ju] != stamp {
                seen[ju] = stamp;
                if fat[ju].overlaps(b) {
                    out.push(j);
                }
            }
        };
        candidates(place, &self.large, &self.cells, fat.len(), visit);
    }

    /// Where fat box `b` goes: the cells it covers, the large list, or nowhere (NaN).
    fn place_of(&self, b: &Aabb) -> Place {
        if b.min.is_nan() || b.max.is_nan() {
            return Place::Out;
        }
        match cell_range(b, self.inv_cell) {
            Some((lo, hi)) => Place::Cells(lo, hi),
            None => Place::Large,
        }
    }

    /// Enters body `id` where its `place` says.
    fn enter(&mut self, id: usize) {
        match self.place[id] {
            Place::Cells(lo, hi) => {
                for x in lo[0]..=hi[0] {
                    for y in lo[1]..=hi[1] {
                        for z in lo[2]..=hi[2] {
                            self.cells.add([x, y, z], id as u32);
                        }
                    }
                }
            }
            Place::Large => self.large.push(id as u32),
            Place::Out => {}
        }
    }

    /// Takes body `id` out of where its `place` says.
    fn leave(&mut self, id: usize) {
        match self.place[id] {
            Place::Cells(lo, hi) => {
                for x in lo[0]..=hi[0] {
                    for y in lo[1]..=hi[1] {
                        for z in lo[2]..=hi[2] {
                            self.cells.remove([x, y, z], id as u32);
                        }
                    }
                }
            }
            Place::Large => {
                if let Some(k) = self.large.iter().position(|&j| j as usize == id) {
                    self.large.swap_remove(k);
                }
            }
            Place::Out => {}
        }
    }

    /// Makes `found` (ascending) body `id`'s neighbours: `id` leaves the lists of those it no
    /// longer overlaps and joins those of the new ones.
    fn relink(&mut self, id: usize, found: &[u32]) {
        let me = id as u32;
        let mut old = std::mem::take(&mut self.near[id]);
        let (mut a, mut b) = (0, 0);
        while a < old.len() || b < found.len() {
            let x = old.get(a).copied().unwrap_or(u32::MAX);
            let y = found.get(b).copied().unwrap_or(u32::MAX);
            if x == y {
                a += 1;
                b += 1;
            } else if x < y {
                // No longer a neighbour.
                let list = &mut self.near[x as usize];
                if let Ok(k) = list.binary_search(&me) {
                    list.remove(k);
                }
                a += 1;
            } else {
                // A new neighbour.
                let list = &mut self.near[y as usize];
                if let Err(k) = list.binary_search(&me) {
                    list.insert(k, me);
                }
                b += 1;
            }
        }
        old.clear();
        old.extend_from_slice(found);
        self.near[id] = old;
    }
}

#[cfg(test)]
mod tests {
    use super::super::tests::stream;
    use super::*;
    use glam::DVec3;

    #[test]
    fn neighbour_lists_follow_moving_and_freed_boxes() {
        let mut rnd = stream(7);
        let n = 200;
        let mut boxes: Vec<Aabb> = (0..n)
            .map(|_| {
                let c = DVec3::new(rnd(), rnd(), rnd()) * 15.0;
                let h = DVec3::splat(0.3 + rnd());
                Aabb {
                    min: c - h,
                    max: c + h,
                }
            })
            .collect();
        boxes[3] = Aabb {
            min: DVec3::splat(-100.0),
            max: DVec3::new(100.0, 100.0, 0.5),
        };
        let mut fb = FatBoxes::default();
        fb.resize(n);
        fb.set_cell(2.5);
        let mut free = vec![false; n];
        for round in 0..40 {
            for (i, b) in boxes.iter_mut().enumerate() {
                if i != 3 {
                    let d = DVec3::new(rnd() - 0.5, rnd() - 0.5, rnd() - 0.5) * 0.4;
                    b.min += d;
                    b.max += d;
                }
            }
            if round == 20 {
                fb.set_cell(6.0);
            }
            for i in 0..n {
                if round % 10 == 9 && i % 17 == 0 {
                    fb.remove(i);
                    free[i] = true;
                } else {
                    free[i] = false;
                    fb.fit(i, &boxes[i]);
                }
            }
            for i in 0..n {
                let near = fb.near(i);
                assert!(near.windows(2).all(|w| w[0] < w[1]));
                for j in 0..n {
                    let fat = !free[i] && !free[j] && i != j && fb.fat(i).overlaps(fb.fat(j));
                    assert_eq!(near.binary_search(&(j as u32)).is_ok(), fat, "{i} {j}");
                    if !free[i] && !free[j] && boxes[i].overlaps(&boxes[j]) && i != j {
                        assert!(fat);
                    }
                }
            }
        }
        fb.resize(50);
        assert!((0..50).all(|i| fb.near(i).iter().all(|&j| j < 50)));
    }

    /// Many boxes leaving their fat boxes at once (more than `PARALLEL_REFITS`), refitted by
    /// `fit_all`, give the fat boxes and neighbour lists of `fit` on each in turn.
    #[test]
    fn refitting_all_at_once_gives_the_lists_of_one_by_one() {
        let mut rnd = stream(11);
        let mut boxes = super::super::tests::scattered(3000, 40.0, &mut rnd);
        let (n, floor) = (boxes.len(), boxes.len() - 1);
        let (mut one, mut all) = (FatBoxes::default(), FatBoxes::default());
        for fb in [&mut one, &mut all] {
            fb.resize(n);
            fb.set_cell(2.5);
        }
        let mut batches = 0;
        for round in 0..12 {
            // Most boxes fall further than their pad some rounds, few others.
            let step = if round % 2 == 0 { 0.8 } else { 0.05 };
            for (i, b) in boxes.iter_mut().enumerate().filter(|&(i, _)| i != floor) {
                let d = DVec3::new(rnd() - 0.5, rnd() - 0.5, -rnd()) * step * (1 + i % 3) as f64;
                b.min += d;
                b.max += d;
            }
            let before = all.refits();
            for (i, b) in boxes.iter().enumerate() {
                one.fit(i, b);
            }
            all.fit_all(&boxes);
            batches += usize::from(all.refits() - before >= PARALLEL_REFITS as u64);
            assert_eq!(one.refits(), all.refits());
            for i in 0..n {
                assert_eq!(one.fat(i), all.fat(i), "{i}");
                assert_eq!(one.near(i), all.near(i), "{i}");
            }
        }
        assert!(batches >= 6, "{batches}");
    }
}
