//! Lemke's complementary pivoting for the linear complementarity problem LCP(M, q): find z ≥ 0
//! with w = M z + q ≥ 0 and zᵀ w = 0 (Cottle, Pang & Stone, *The Linear Complementarity Problem*,
//! §4.4), the solver Stewart & Trinkle 1996 use for their time-stepping scheme (§4: "an explicit
//! tableau, together with lexicographic degeneracy resolution").
//!
//! Why Lemke's method ends in a solution on a contact LCP. Their matrix is copositive (zᵀ M z =
//! |N c_n + D β|²_{M⁻¹} + μ c_nᵀ λ ≥ 0 for z ≥ 0), and a secondary ray (z*, z₀*) + t (zʰ, 0)
//! would need zʰ ≥ 0 with zʰᵀ M zʰ = 0, M zʰ ≥ 0 and qᵀ zʰ < 0 (Cottle, Pang & Stone, Theorem
//! 4.4.13: zʰ minimises the copositive form, so (M + Mᵀ) zʰ ≥ 0, and complementarity along the
//! ray leaves qᵀ zʰ = −zʰᵀ M z* − z₀* dᵀ zʰ < 0). For the contact matrix zʰᵀ M zʰ = 0 means
//! N c_n + D β = 0, so qᵀ zʰ = vᵀ (N c_n + D β) + gapsᵀ c_n / h = gapsᵀ c_n / h ≥ 0 with the gaps
//! clamped at zero: no ray, for any positive covering vector. Lexicographic pivoting is the same
//! argument for the perturbed q + (ε, ε², …) (the perturbation is positive), and cannot cycle.
//!
//! So in exact arithmetic the method cannot fail on these problems, and the failures a plain
//! floating-point tableau shows are numerical (found with `examples/lemke_probe.rs` and failing
//! steps of the bundled scenes rerun in exact rational arithmetic: the exact runs all end in a
//! solution; the floating-point ones leave the exact path at a ratio test and end on a ray).
//! Contact LCPs are massively degenerate: contacts at rest have q_i = 0 exactly, and
//! rank-deficient N (a ball touching a table and two balls, a box's four corners on the floor,
//! the ±d friction pairs) makes many rows' ratios tie exactly. In floating point those exact
//! ties come out as 10⁻¹⁶-sized differences, and a ratio test that compares them as numbers
//! follows the rounding instead of the lexicographic order; worse, with every gap zero q lies on
//! the boundary of the solvable problems (qᵀ zʰ = 0 above), so the perturbation such a choice
//! makes has an even chance of making the problem unsolvable. What keeps the floating-point path
//! on an exact one:
//! - a symmetric diagonal scaling (z = S z', M' = S M S, q' = S q; copositivity and the solution
//!   set are preserved), so that absolute tolerances mean the same on every problem;
//! - Harris's ratio test with a feasibility tolerance: rows within it of the least ratio tie,
//!   small pivots among them are passed over, the ties are broken by the basis inverse's rows
//!   (the tableau's `w` columns) compared with a tolerance on the rows' own size, and
//!   right-hand sides within the tolerance of zero are set to zero after each pivot (exact zeros
//!   carried with rounding);
//! - the tableau recomputed from the original M and q through the basis (Gauss–Jordan with
//!   partial pivoting) every so many pivots, before a ray or a small pivot is believed, and
//!   before the solution is read;
//! - for contact problems, [`solve_relaxed`]: q moved into the interior by a positive δ far
//!   larger than the tolerance's accumulated perturbations, so that qᵀ zʰ > 0 with a margin.

/// Why an LCP was not solved.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LemkeError {
    /// The entering column had no positive entry, even recomputed from M and q: Lemke's method
    /// ended on a secondary ray (for a contact LCP with gaps ≥ 0 this cannot happen in exact
    /// arithmetic; for a general LCP it means no solution the method can find).
    #[error("no solution: Lemke's method ended on a secondary ray after {pivots} pivots")]
    Ray {
        /// Pivots made.
        pivots: usize,
    },
    /// More pivots than allowed.
    #[error("no solution within the budget of {budget} pivots")]
    Budget {
        /// The budget.
        budget: usize,
    },
}

/// A solved LCP: `z` and the pivots it took.
#[derive(Clone, Debug, PartialEq)]
pub struct LcpSolution {
    /// The solution (w = M z + q is complementary to it).
    pub z: Vec<f64>,
    /// Pivots made.
    pub pivots: usize,
}

/// Relative size below which a right-hand side is zero and two ratios tie (of the scaled
/// problem's right-hand sides): far above the rounding a pivot adds (10⁻¹⁶ of the largest
/// entry times the growth over a few dozen pivots), far below any physical velocity.
const FEASIBILITY: f64 = 1e-12;
/// Relative size below which an entering column's entry is not a pivot (its exact value is
/// zero, or dividing by it would amplify the rounding beyond the tolerances above).
const PIVOT: f64 = 1e-11;
/// Relative tolerance of the lexicographic comparison of two basis-inverse rows.
const LEXICOGRAPHIC: f64 = 1e-10;
/// Among tied rows, pivot entries below this fraction of the largest are passed over.
const STABLE: f64 = 1e-3;
/// A pivot entry below this fraction of its column's largest is recomputed from M and q before
/// it is used.
const SUSPECT: f64 = 1e-6;
/// Pivots between recomputations of the tableau from M and q (at least; one per row for large
/// problems, where a recomputation costs as much as that many pivots).
const REFRESH: usize = 32;

/// Solves LCP(M, q) for the `n × n` row-major `m`, within `budget` pivots.
pub fn solve(m: &[f64], q: &[f64], budget: usize) -> Result<LcpSolution, LemkeError> {
    solve_relaxed(m, q, 0.0, budget)
}

/// Solves LCP(M, q + δ) with δ_i = `relax` · max_j |s_j q_j| / s_i (s the scaling below: every
/// row relaxed alike in the scaled problem), within `budget` pivots.
///
/// Why a contact LCP is solved relaxed: with every gap zero (bodies at rest on each other),
/// qᵀ zʰ = 0 exactly for the directions zʰ of the module doc (internal forces N c_n + D β = 0,
/// the λ alone), so q lies on the boundary of the problems Lemke's method solves, and the
/// rounding of the tableau (a perturbation of q of 10⁻¹⁴ in some direction, sign unknown) can
/// push it out: the run then ends on a ray that the exact problem does not have. A positive δ
/// gives qᵀ zʰ ≥ δᵀ zʰ > 0, a margin the rounding does not cross. Its meaning: each row's
/// inequality may miss by δ_i (a normal velocity of −δ_i, a friction impulse δ_i outside the
/// cone), orders of magnitude below the step's own error.
pub fn solve_relaxed(
    m: &[f64],
    q: &[f64],
    relax: f64,
    budget: usize,
) -> Result<LcpSolution, LemkeError> {
    let n = q.len();
    debug_assert_eq!(m.len(), n * n);
    if q.iter().all(|&x| x >= 0.0) {
        return Ok(LcpSolution {
            z: vec![0.0; n],
            pivots: 0,
        });
    }
    let s = scaling(m, n);
    let ms: Vec<f64> = (0..n * n).map(|k| s[k / n] * m[k] * s[k % n]).collect();
    let mut qs: Vec<f64> = (0..n).map(|i| s[i] * q[i]).collect();
    let delta = relax * qs.iter().fold(0.0f64, |a, x| a.max(x.abs()));
    for x in &mut qs {
        *x += delta;
    }
    if qs.iter().all(|&x| x >= 0.0) {
        return Ok(LcpSolution {
            z: vec![0.0; n],
            pivots: 0,
        });
    }
    let mut tableau = Tableau::new(&ms, &qs);
    let (mut z, pivots) = tableau.run(budget)?;
    for (x, si) in z.iter_mut().zip(&s) {
        *x *= si;
    }
    Ok(LcpSolution { z, pivots })
}

/// The symmetric scaling S of `m`: 1/sqrt(M_ii) where the diagonal is positive (a unit diagonal
/// afterwards), and for a zero diagonal (Stewart & Trinkle's λ rows) the inverse of the largest
/// entry of the row and column once the others are scaled.
fn scaling(m: &[f64], n: usize) -> Vec<f64> {
    let mut s: Vec<f64> = (0..n)
        .map(|i| {
            let d = m[i * n + i];
            if d > 0.0 && d.is_finite() {
                1.0 / d.sqrt()
            } else {
                0.0
            }
        })
        .collect();
    for i in 0..n {
        if s[i] == 0.0 {
            let big = (0..n)
                .filter(|&j| s[j] > 0.0)
                .map(|j| (m[i * n + j].abs()).max(m[j * n + i].abs()) * s[j])
                .fold(0.0, f64::max);
            s[i] = if big > 0.0 { 1.0 / big } else { 1.0 };
        }
    }
    s
}

/// The tableau [w | z | z₀ | q̄] = B⁻¹ [I | −M | −e | q] of the current basis B.
struct Tableau<'a> {
    n: usize,
    cols: usize,
    t: Vec<f64>,
    /// The variable of each row: 0..n the w_i, n..2n the z_i, 2n z₀.
    basis: Vec<usize>,
    m: &'a [f64],
    q: &'a [f64],
    /// Pivots since the tableau was last computed from M and q.
    since_refresh: usize,
}

impl<'a> Tableau<'a> {
    fn new(m: &'a [f64], q: &'a [f64]) -> Self {
        let n = q.len();
        let cols = 2 * n + 2;
        let mut tableau = Tableau {
            n,
            cols,
            t: vec![0.0; n * cols],
            basis: (0..n).collect(),
            m,
            q,
            since_refresh: 0,
        };
        for i in 0..n {
            let row = tableau.original_row(i);
            tableau.t[i * cols..(i + 1) * cols].copy_from_slice(&row);
        }
        tableau
    }

    /// Row i of [I | −M | −e | q] (the covering vector e is all ones: on the scaled problem
    /// every row weighs alike).
    fn original_row(&self, i: usize) -> Vec<f64> {
        let (n, cols) = (self.n, self.cols);
        let mut row = vec![0.0; cols];
        row[i] = 1.0;
        for j in 0..n {
            row[n + j] = -self.m[i * n + j];
        }
        row[2 * n] = -1.0;
        row[cols - 1] = self.q[i];
        row
    }

    fn at(&self, i: usize, k: usize) -> f64 {
        self.t[i * self.cols + k]
    }

    fn rhs(&self, i: usize) -> f64 {
        self.at(i, self.cols - 1)
    }

    /// Lemke's method from the first pivot (z₀ in) to z₀ leaving.
    fn run(&mut self, budget: usize) -> Result<(Vec<f64>, usize), LemkeError> {
        let n = self.n;
        let z0 = 2 * n;
        // First pivot: z₀ enters where q_i is least; ties go to the smallest index, the
        // lexicographic choice for B⁻¹ = I (then every other row's (q̄, B⁻¹ row) starts positive).
        let qmin = self.q.iter().copied().fold(f64::INFINITY, f64::min);
        let tol = FEASIBILITY * self.q.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        let r = (0..n).find(|&i| self.q[i] <= qmin + tol).unwrap_or(0);
        self.pivot(r, z0);
        let mut leaving = std::mem::replace(&mut self.basis[r], z0);
        for pivots in 1..=budget {
            let entering = if leaving < n {
                leaving + n
            } else {
                leaving - n
            };
            // A ray, or a pivot entry small beside its column (one that rounding may have made,
            // or whose rounding the pivot would amplify), is checked on the tableau recomputed
            // from M and q before it is believed.
            let mut choice = self.ratio_test(entering);
            if self.since_refresh > 0 && choice.is_none_or(|r| self.suspect(r, entering)) {
                self.refresh();
                choice = self.ratio_test(entering);
            }
            let Some(row) = choice else {
                return Err(LemkeError::Ray { pivots });
            };
            self.pivot(row, entering);
            leaving = std::mem::replace(&mut self.basis[row], entering);
            if leaving == z0 {
                if self.since_refresh > 0 {
                    self.refresh();
                }
                let mut z = vec![0.0; n];
                for (i, &v) in self.basis.iter().enumerate() {
                    if (n..2 * n).contains(&v) {
                        z[v - n] = self.rhs(i).max(0.0);
                    }
                }
                return Ok((z, pivots + 1));
            }
            if self.since_refresh >= REFRESH.max(n) {
                self.refresh();
            }
        }
        Err(LemkeError::Budget { budget })
    }

    /// The leaving row for `entering`, or None (a ray): among the rows with a pivot entry, those
    /// whose ratio q̄_i / a_i ties with the least within the feasibility tolerance; z₀'s row if it
    /// is among them (the solution is then complete), else the lexicographic least of
    /// (B⁻¹ row i) / a_i.
    fn ratio_test(&self, entering: usize) -> Option<usize> {
        let n = self.n;
        let a = |i: usize| self.at(i, entering);
        let largest = (0..n).map(|i| a(i).abs()).fold(0.0, f64::max);
        let floor = PIVOT * largest;
        let rows: Vec<usize> = (0..n).filter(|&i| a(i) > floor && a(i) > 0.0).collect();
        if rows.is_empty() {
            return None;
        }
        // Harris's ratio test: the longest step θ that leaves no basic variable below −tol, the
        // rows whose own ratio is within it, then among those the pivots not small beside the
        // largest (a small pivot amplifies the tableau's rounding; the row it would have left
        // ends at most tol below zero, and is set to zero).
        let tol = FEASIBILITY * self.rhs_scale();
        let theta = rows
            .iter()
            .map(|&i| (self.rhs(i).max(0.0) + tol) / a(i))
            .fold(f64::INFINITY, f64::min);
        let ties: Vec<usize> = rows
            .into_iter()
            .filter(|&i| self.rhs(i).max(0.0) / a(i) <= theta)
            .collect();
        if let Some(&i) = ties.iter().find(|&&i| self.basis[i] == 2 * n) {
            return Some(i);
        }
        let big = ties.iter().map(|&i| a(i)).fold(0.0, f64::max);
        let ties: Vec<usize> = ties.into_iter().filter(|&i| a(i) >= STABLE * big).collect();
        let mut best = ties[0];
        for &i in &ties[1..] {
            if self.lexicographically_less(i, best, entering) {
                best = i;
            }
        }
        Some(best)
    }

    /// Whether the pivot entry of `row` in column `entering` is small beside the column's
    /// largest: [`SUSPECT`].
    fn suspect(&self, row: usize, entering: usize) -> bool {
        let largest = (0..self.n)
            .map(|i| self.at(i, entering).abs())
            .fold(0.0, f64::max);
        self.at(row, entering) < SUSPECT * largest
    }

    /// Whether row i's (B⁻¹ row) / a_i is lexicographically less than row j's, entries equal
    /// within [`LEXICOGRAPHIC`] of the rows' largest.
    fn lexicographically_less(&self, i: usize, j: usize, entering: usize) -> bool {
        let n = self.n;
        let (ai, aj) = (self.at(i, entering), self.at(j, entering));
        let size = |r: usize, a: f64| (0..n).map(|k| self.at(r, k).abs()).fold(0.0, f64::max) / a;
        let tol = LEXICOGRAPHIC * size(i, ai).max(size(j, aj));
        for k in 0..n {
            let (x, y) = (self.at(i, k) / ai, self.at(j, k) / aj);
            if (x - y).abs() > tol {
                return x < y;
            }
        }
        // Equal to the tolerance (exactly equal rows cannot occur: B⁻¹ is invertible): the
        // larger pivot.
        ai > aj
    }

    /// The size the right-hand sides are measured against: the largest of q and the current q̄.
    fn rhs_scale(&self) -> f64 {
        let q = self.q.iter().fold(0.0f64, |a, x| a.max(x.abs()));
        (0..self.n).fold(q, |a, i| a.max(self.rhs(i).abs()))
    }

    /// Gauss–Jordan pivot on row `r`, column `c`, then right-hand sides within the feasibility
    /// tolerance of zero set to zero (exact zeros carried with rounding; a slightly negative
    /// one is a tie the ratio test resolved the other way).
    fn pivot(&mut self, r: usize, c: usize) {
        let (n, cols) = (self.n, self.cols);
        let p = self.t[r * cols + c];
        for k in 0..cols {
            self.t[r * cols + k] /= p;
        }
        let (before, rest) = self.t.split_at_mut(r * cols);
        let (pivot_row, after) = rest.split_at_mut(cols);
        for row in before
            .chunks_exact_mut(cols)
            .chain(after.chunks_exact_mut(cols))
        {
            let f = row[c];
            if f != 0.0 {
                for (x, y) in row.iter_mut().zip(pivot_row.iter()) {
                    *x -= f * y;
                }
                row[c] = 0.0;
            }
        }
        self.since_refresh += 1;
        self.clean_rhs();
        debug_assert_eq!(self.t.len(), n * cols);
    }

    fn clean_rhs(&mut self) {
        let tol = FEASIBILITY * self.rhs_scale();
        let cols = self.cols;
        for i in 0..self.n {
            let x = &mut self.t[i * cols + cols - 1];
            if *x <= tol {
                *x = 0.0;
            }
        }
    }

    /// Recomputes the tableau as B⁻¹ [I | −M | −e | q] from the basis's original columns by
    /// Gauss–Jordan elimination with partial pivoting. Returns false (the tableau unchanged)
    /// when B is numerically singular.
    fn refresh(&mut self) -> bool {
        let (n, cols) = (self.n, self.cols);
        // [B | I] → [I | B⁻¹].
        let w = 2 * n;
        let mut a = vec![0.0; n * w];
        for (col, &v) in self.basis.iter().enumerate() {
            for i in 0..n {
                a[i * w + col] = match v {
                    v if v < n => f64::from(u8::from(v == i)),
                    v if v < 2 * n => -self.m[i * n + (v - n)],
                    _ => -1.0,
                };
            }
        }
        for i in 0..n {
            a[i * w + n + i] = 1.0;
        }
        let norm = a.iter().fold(0.0f64, |x, y| x.max(y.abs()));
        for c in 0..n {
            let p = (c..n)
                .max_by(|&x, &y| a[x * w + c].abs().total_cmp(&a[y * w + c].abs()))
                .unwrap_or(c);
            if a[p * w + c].abs() <= 1e-14 * norm {
                return false;
            }
            if p != c {
                for k in 0..w {
                    a.swap(p * w + k, c * w + k);
                }
            }
            let d = a[c * w + c];
            for k in 0..w {
                a[c * w + k] /= d;
            }
            for i in 0..n {
                let f = a[i * w + c];
                if i != c && f != 0.0 {
                    for k in 0..w {
                        a[i * w + k] -= f * a[c * w + k];
                    }
                }
            }
        }
        // Row i of the tableau: B⁻¹ row i times [I | −M | −e | q].
        let mut t = vec![0.0; n * cols];
        for i in 0..n {
            let binv = &a[i * w + n..(i + 1) * w];
            let row = &mut t[i * cols..(i + 1) * cols];
            row[..n].copy_from_slice(binv);
            for (j, &b) in binv.iter().enumerate() {
                if b != 0.0 {
                    for k in 0..n {
                        row[n + k] -= b * self.m[j * n + k];
                    }
                    row[2 * n] -= b;
                    row[cols - 1] += b * self.q[j];
                }
            }
        }
        // The basic columns are exactly the unit vectors.
        for (i, &v) in self.basis.iter().enumerate() {
            for r in 0..n {
                t[r * cols + v] = f64::from(u8::from(r == i));
            }
        }
        self.t = t;
        self.since_refresh = 0;
        self.clean_rhs();
        true
    }
}

#[cfg(test)]
mod tests;
