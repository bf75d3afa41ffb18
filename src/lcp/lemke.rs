//! Lemke's complementary pivoting for the linear complementarity problem LCP(M, q): find z ≥ 0
//! with w = M z + q ≥ 0 and zᵀ w = 0 (Cottle, Pang & Stone, *The Linear Complementarity Problem*,
//! §4.4), the solver Stewart & Trinkle 1996 use for their time-stepping scheme (§4). Ties in the
//! ratio test are broken lexicographically (the rows of the basis inverse, kept in the tableau's
//! `w` columns), so a degenerate problem cannot cycle.

/// Why an LCP was not solved.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum LemkeError {
    /// The entering column had no positive entry: Lemke's method ends on a secondary ray, so
    /// this LCP has no solution it can find (for the copositive-plus matrices of contact
    /// problems: none at all).
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

/// Solves LCP(M, q) for the `n × n` row-major `m`, within `budget` pivots in all.
///
/// Lemke's method is certain to end in a solution only for copositive-plus matrices; a contact
/// LCP's (Stewart & Trinkle's, with its friction-cone rows) is copositive but not copositive-
/// plus, and the run with the usual covering vector (all ones) can end on a secondary ray
/// although a solution exists (about 0.5 % of random one-contact problems). Each such run is
/// tried again with another positive covering vector, which follows another path.
pub fn solve(m: &[f64], q: &[f64], budget: usize) -> Result<LcpSolution, LemkeError> {
    let n = q.len();
    let mut spent = 0;
    let mut last = LemkeError::Budget { budget };
    for attempt in 0..8u64 {
        // Covering vectors: all ones, then deterministic pseudo-random entries in [0.5, 1.5].
        let cover: Vec<f64> = (0..n as u64)
            .map(|i| {
                if attempt == 0 {
                    1.0
                } else {
                    let x = (i + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15)
                        ^ attempt.wrapping_mul(0xD1B5_4A32_D192_ED03);
                    let x = x.wrapping_mul(0xBF58_476D_1CE4_E5B9) >> 11;
                    0.5 + x as f64 / (1u64 << 53) as f64
                }
            })
            .collect();
        match run(m, q, &cover, budget.saturating_sub(spent)) {
            Ok(mut s) => {
                s.pivots += spent;
                return Ok(s);
            }
            Err(LemkeError::Ray { pivots }) => {
                spent += pivots;
                last = LemkeError::Ray { pivots: spent };
            }
            Err(e) => return Err(e),
        }
        if spent >= budget {
            return Err(LemkeError::Budget { budget });
        }
    }
    Err(last)
}

/// One run of Lemke's method with covering vector `cover` (positive entries).
fn run(m: &[f64], q: &[f64], cover: &[f64], budget: usize) -> Result<LcpSolution, LemkeError> {
    let n = q.len();
    debug_assert_eq!(m.len(), n * n);
    if q.iter().all(|&x| x >= 0.0) {
        return Ok(LcpSolution {
            z: vec![0.0; n],
            pivots: 0,
        });
    }
    // Tableau rows: [w_1..w_n | z_1..z_n | z_0 | q], for w − M z − e z0 = q.
    let cols = 2 * n + 2;
    let (z0, rhs) = (2 * n, 2 * n + 1);
    let mut t = vec![0.0; n * cols];
    for i in 0..n {
        t[i * cols + i] = 1.0;
        for j in 0..n {
            t[i * cols + n + j] = -m[i * n + j];
        }
        t[i * cols + z0] = -cover[i];
        t[i * cols + rhs] = q[i];
    }
    // basis[i]: the variable of row i (0..n: w_i, n..2n: z_i, 2n: z0).
    let mut basis: Vec<usize> = (0..n).collect();
    let scale = q.iter().map(|x| x.abs()).fold(1.0, f64::max);
    let tiny = 1e-300 * scale;
    // First pivot: z0 enters at the row that needs the most of it, the least q_i / d_i.
    let r = (0..n)
        .min_by(|&a, &b| (q[a] / cover[a]).total_cmp(&(q[b] / cover[b])))
        .expect("n > 0");
    pivot(&mut t, cols, n, r, z0);
    let mut leaving = basis[r];
    basis[r] = z0;
    for pivots in 1..=budget {
        // The complement of the variable that just left enters.
        let entering = if leaving < n {
            leaving + n
        } else {
            leaving - n
        };
        // Entries within rounding of zero are not pivots (dividing by them would blow up).
        let largest = (0..n)
            .map(|i| t[i * cols + entering].abs())
            .fold(0.0, f64::max);
        let floor = (1e-14 * largest).max(tiny);
        let rows: Vec<usize> = (0..n).filter(|&i| t[i * cols + entering] > floor).collect();
        if rows.is_empty() {
            return Err(LemkeError::Ray { pivots });
        }
        // Lexicographic minimum ratio: (q_i, B⁻¹ row i) / a_i.
        let key = |i: usize, k: usize| {
            let v = if k == 0 {
                t[i * cols + rhs]
            } else {
                t[i * cols + (k - 1)]
            };
            v / t[i * cols + entering]
        };
        let mut best = rows[0];
        for &i in &rows[1..] {
            for k in 0..=n {
                let (a, b) = (key(i, k), key(best, k));
                if (a - b).abs() > 1e-13 * a.abs().max(b.abs()).max(1e-300) {
                    if a < b {
                        best = i;
                    }
                    break;
                }
            }
        }
        // z0 leaving at a tie is preferred: the solution is then complete.
        if let Some(&i) = rows.iter().find(|&&i| basis[i] == z0) {
            if (key(i, 0) - key(best, 0)).abs() <= 1e-13 * key(best, 0).abs().max(1e-300) {
                best = i;
            }
        }
        pivot(&mut t, cols, n, best, entering);
        leaving = basis[best];
        basis[best] = entering;
        if leaving == z0 {
            let mut z = vec![0.0; n];
            for (i, &v) in basis.iter().enumerate() {
                if (n..2 * n).contains(&v) {
                    z[v - n] = t[i * cols + rhs].max(0.0);
                }
            }
            return Ok(LcpSolution {
                z,
                pivots: pivots + 1,
            });
        }
    }
    Err(LemkeError::Budget { budget })
}

/// Gauss–Jordan pivot of the tableau on row `r`, column `c`.
fn pivot(t: &mut [f64], cols: usize, n: usize, r: usize, c: usize) {
    let p = t[r * cols + c];
    for k in 0..cols {
        t[r * cols + k] /= p;
    }
    for i in 0..n {
        if i == r {
            continue;
        }
        let f = t[i * cols + c];
        if f != 0.0 {
            for k in 0..cols {
                t[i * cols + k] -= f * t[r * cols + k];
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// w = M z + q ≥ 0, z ≥ 0, zᵀw = 0 to a tolerance.
    fn check(m: &[f64], q: &[f64], z: &[f64]) {
        let n = q.len();
        for i in 0..n {
            let w: f64 = (0..n).map(|j| m[i * n + j] * z[j]).sum::<f64>() + q[i];
            assert!(z[i] >= 0.0 && w >= -1e-9, "row {i}: z {} w {w}", z[i]);
            assert!((z[i] * w).abs() < 1e-9, "row {i}: z {} w {w}", z[i]);
        }
    }

    #[test]
    fn solves_a_positive_definite_problem() {
        let m = [2.0, 1.0, 1.0, 2.0];
        let q = [-5.0, -6.0];
        let s = solve(&m, &q, 100).unwrap();
        // Both active: z = M⁻¹ (−q) = [4/3, 7/3].
        assert!((s.z[0] - 4.0 / 3.0).abs() < 1e-12 && (s.z[1] - 7.0 / 3.0).abs() < 1e-12);
        check(&m, &q, &s.z);
    }

    #[test]
    fn a_nonnegative_q_needs_no_pivot() {
        let s = solve(&[1.0], &[0.5], 10).unwrap();
        assert_eq!((s.z, s.pivots), (vec![0.0], 0));
    }

    #[test]
    fn a_degenerate_problem_does_not_cycle() {
        // Duplicate rows and a zero q entry: a tie at every ratio test.
        let m = [1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0];
        let q = [-1.0, -1.0, 0.0];
        let s = solve(&m, &q, 50).unwrap();
        check(&m, &q, &s.z);
    }

    #[test]
    fn an_infeasible_problem_is_an_error() {
        // w = −z − 1 ≥ 0 has no solution with z ≥ 0.
        assert!(matches!(
            solve(&[-1.0], &[-1.0], 10),
            Err(LemkeError::Ray { .. })
        ));
    }

    #[test]
    fn random_psd_problems_are_solved() {
        // M = AᵀA + I (positive definite): Lemke always succeeds.
        let mut seed = 7u64;
        let mut next = || {
            seed = seed
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((seed >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
        };
        for n in [3, 6, 12] {
            let a: Vec<f64> = (0..n * n).map(|_| next()).collect();
            let mut m = vec![0.0; n * n];
            for i in 0..n {
                for j in 0..n {
                    m[i * n + j] = (0..n).map(|k| a[k * n + i] * a[k * n + j]).sum::<f64>()
                        + if i == j { 1.0 } else { 0.0 };
                }
            }
            let q: Vec<f64> = (0..n).map(|_| next()).collect();
            let s = solve(&m, &q, 10 * n).unwrap();
            check(&m, &q, &s.z);
        }
    }
}
