//! The fat boxes' cells: which bodies each cell of a uniform grid holds, in a flat
//! open-addressing table (linear probing) from a cell's coordinates to its list of bodies.
//!
//! Cells persist between steps and are never taken out of the table (an emptied cell keeps its
//! slot and its list's capacity), so a body moving between cells costs two list edits and a
//! lookup or two, and no allocation once the region the bodies visit has been seen.
//! [`CellIndex::clear`] drops them all, for a new cell size or when the table has grown far
//! beyond the bodies.

use crate::swept_aabb::Aabb;
use glam::DVec3;

/// No slot (an empty table entry).
const EMPTY: u32 = u32::MAX;

/// Boxes whose largest side exceeds this many cells are too large for the cells.
pub(super) const LARGE_CELLS: f64 = 8.0;

/// The lower and upper cell of a box, inclusive.
pub(super) type CellRange = ([i32; 3], [i32; 3]);

/// The cells of side `1 / inv_cell` that box `b` covers, or `None` if it spans more than
/// [`LARGE_CELLS`] on an axis or 512 in all, or is not finite.
pub(super) fn cell_range(b: &Aabb, inv_cell: f64) -> Option<CellRange> {
    let (lo, hi) = (b.min * inv_cell, b.max * inv_cell);
    // Within ±2³⁰ cells (NaN is not) a cell index is a truncation, one down for a negative
    // fraction, without the maths library's `floor` (the portable build has no rounding
    // instruction), and the spans are the same numbers in either form.
    const NEAR: f64 = 1_073_741_824.0;
    let near = DVec3::splat(NEAR);
    let (lo, hi, span) = if (lo.abs().cmplt(near) & hi.abs().cmplt(near)).all() {
        let cell = |x: f64| {
            let t = x as i32;
            t - i32::from(f64::from(t) > x)
        };
        let lo = [cell(lo.x), cell(lo.y), cell(lo.z)];
        let hi = [cell(hi.x), cell(hi.y), cell(hi.z)];
        let span = |k: usize| f64::from(hi[k]) - f64::from(lo[k]);
        (lo, hi, DVec3::new(span(0), span(1), span(2)))
    } else {
        let (lo, hi) = (lo.floor(), hi.floor());
        if !(lo.is_finite() && hi.is_finite()) {
            return None;
        }
        let cells = |v: DVec3| [v.x as i32, v.y as i32, v.z as i32];
        (cells(lo), cells(hi), hi - lo)
    };
    if span.max_element() > LARGE_CELLS || (span.x + 1.0) * (span.y + 1.0) * (span.z + 1.0) > 512.0
    {
        return None;
    }
    Some((lo, hi))
}

/// A map from cell coordinates to the bodies entered in that cell.
#[derive(Default)]
pub(super) struct CellIndex {
    /// Open-addressing table (length a power of two, at most half full): the cell's slot in
    /// `keys` and `members`, or [`EMPTY`].
    table: Vec<u32>,
    /// Each slot's cell.
    keys: Vec<[i32; 3]>,
    /// Each slot's bodies, in no particular order.
    members: Vec<Vec<u32>>,
}

/// The table position a cell's probe starts at (a multiplicative hash of its coordinates).
fn home(c: [i32; 3], mask: usize) -> usize {
    let h = (c[0] as u32 as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15)
        ^ (c[1] as u32 as u64).wrapping_mul(0xC2B2_AE3D_27D4_EB4F)
        ^ (c[2] as u32 as u64).wrapping_mul(0x1656_67B1_9E37_79F9);
    ((h ^ (h >> 29)) as usize) & mask
}

impl CellIndex {
    /// Number of cells ever entered since the last [`CellIndex::clear`].
    pub(super) fn len(&self) -> usize {
        self.keys.len()
    }

    /// Forgets every cell (the lists' buffers go too).
    pub(super) fn clear(&mut self) {
        self.table.clear();
        self.keys.clear();
        self.members.clear();
    }

    /// The bodies in cell `c` (empty if it holds none).
    pub(super) fn get(&self, c: [i32; 3]) -> &[u32] {
        match self.slot(c) {
            Some(s) => &self.members[s],
            None => &[],
        }
    }

    /// The slot of cell `c`, if it was ever entered.
    fn slot(&self, c: [i32; 3]) -> Option<usize> {
        if self.table.is_empty() {
            return None;
        }
        let mask = self.table.len() - 1;
        let mut p = home(c, mask);
        loop {
            match self.table[p] {
                EMPTY => return None,
                s if self.keys[s as usize] == c => return Some(s as usize),
                _ => p = (p + 1) & mask,
            }
        }
    }

    /// Enters body `id` in cell `c`.
    pub(super) fn add(&mut self, c: [i32; 3], id: u32) {
        let s = match self.slot(c) {
            Some(s) => s,
            None => self.new_slot(c),
        };
        self.members[s].push(id);
    }

    /// Takes body `id` out of cell `c` (where it must be).
    pub(super) fn remove(&mut self, c: [i32; 3], id: u32) {
        if let Some(s) = self.slot(c) {
            let list = &mut self.members[s];
            if let Some(k) = list.iter().position(|&j| j == id) {
                list.swap_remove(k);
            }
        }
    }

    /// A slot for cell `c`, not yet in the table.
    fn new_slot(&mut self, c: [i32; 3]) -> usize {
        if 2 * (self.keys.len() + 1) > self.table.len() {
            self.grow();
        }
        let s = self.keys.len();
        self.keys.push(c);
        self.members.push(Vec::new());
        let mask = self.table.len() - 1;
        let mut p = home(c, mask);
        while self.table[p] != EMPTY {
            p = (p + 1) & mask;
        }
        self.table[p] = s as u32;
        s
    }

    /// Doubles the table and enters every slot again.
    fn grow(&mut self) {
        let size = (2 * self.table.len()).max(64);
        self.table.clear();
        self.table.resize(size, EMPTY);
        let mask = size - 1;
        for (s, &c) in self.keys.iter().enumerate() {
            let mut p = home(c, mask);
            while self.table[p] != EMPTY {
                p = (p + 1) & mask;
            }
            self.table[p] = s as u32;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The cells as the maths library's `floor` gives them, in f64 throughout.
    fn reference(b: &Aabb, inv_cell: f64) -> Option<CellRange> {
        let lo = (b.min * inv_cell).floor();
        let hi = (b.max * inv_cell).floor();
        if !(lo.is_finite() && hi.is_finite()) {
            return None;
        }
        let span = hi - lo;
        if span.max_element() > LARGE_CELLS
            || (span.x + 1.0) * (span.y + 1.0) * (span.z + 1.0) > 512.0
        {
            return None;
        }
        Some((
            [lo.x as i32, lo.y as i32, lo.z as i32],
            [hi.x as i32, hi.y as i32, hi.z as i32],
        ))
    }

    #[test]
    fn cell_ranges_are_the_maths_librarys() {
        let near = 1_073_741_824.0;
        let mut xs = vec![
            0.0,
            -0.0,
            0.5,
            -0.5,
            1.0,
            -1.0,
            -1.0 - f64::EPSILON,
            -5e-324,
            near,
            -near,
            near - 0.5,
            -near + 0.5,
            -near - 0.5,
            3e9,
            -3e9,
            1e300,
            f64::INFINITY,
            f64::NEG_INFINITY,
            f64::NAN,
        ];
        let mut s = 3u64;
        let mut next = || {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            s
        };
        for _ in 0..2000 {
            let r = next();
            xs.push(((r >> 11) as f64 / (1u64 << 53) as f64 - 0.5) * 40.0);
            xs.push(f64::from_bits(r));
        }
        let m = xs.len();
        for k in 0..20_000 {
            let mut pick = || xs[(next() % m as u64) as usize];
            let min = DVec3::new(pick(), pick(), pick());
            let size = if k % 2 == 0 {
                DVec3::new(pick(), pick(), pick())
                    .abs()
                    .min(DVec3::splat(30.0))
            } else {
                DVec3::new(pick(), pick(), pick())
            };
            let b = Aabb {
                min,
                max: min + size,
            };
            for inv in [1.0, 0.37, 3.0] {
                assert_eq!(cell_range(&b, inv), reference(&b, inv), "{b:?} {inv}");
            }
        }
    }

    #[test]
    fn cells_keep_their_bodies_through_growth_and_removal() {
        let mut cells = CellIndex::default();
        let mut want = std::collections::BTreeMap::<[i32; 3], Vec<u32>>::new();
        for id in 0..2000u32 {
            let c = [
                (id % 13) as i32 - 6,
                (id % 7) as i32 * -100,
                (id / 50) as i32,
            ];
            cells.add(c, id);
            want.entry(c).or_default().push(id);
        }
        for id in (0..2000u32).step_by(3) {
            let c = [
                (id % 13) as i32 - 6,
                (id % 7) as i32 * -100,
                (id / 50) as i32,
            ];
            cells.remove(c, id);
            want.get_mut(&c).unwrap().retain(|&j| j != id);
        }
        assert_eq!(cells.len(), want.len());
        for (c, ids) in &want {
            let mut got = cells.get(*c).to_vec();
            got.sort_unstable();
            assert_eq!(&got, ids);
        }
        assert!(cells.get([1000, 0, 0]).is_empty());
    }
}
