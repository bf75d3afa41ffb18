//! Lemke's method on small problems with known answers, degenerate and cycling-prone ones, an
//! infeasible one, and random contact problems checked against brute force.

use super::*;

/// w = M z + q ≥ 0, z ≥ 0, zᵀw = 0 to a tolerance relative to the problem's size.
fn check(m: &[f64], q: &[f64], z: &[f64]) {
    let n = q.len();
    let scale = q.iter().fold(1.0f64, |a, x| a.max(x.abs()));
    for i in 0..n {
        let w: f64 = (0..n).map(|j| m[i * n + j] * z[j]).sum::<f64>() + q[i];
        assert!(
            z[i] >= 0.0 && w >= -1e-8 * scale,
            "row {i}: z {} w {w}",
            z[i]
        );
        assert!(
            (z[i] * w).abs() < 1e-8 * scale * scale.max(z[i]),
            "row {i}: z {} w {w}",
            z[i]
        );
    }
}

/// Deterministic numbers in [-1, 1).
struct Numbers(u64);

impl Numbers {
    fn next(&mut self) -> f64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((self.0 >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    }
}

/// Whether any complementary basis solves LCP(M, q) (2ⁿ linear solves: small n only).
fn brute_force_solvable(m: &[f64], q: &[f64]) -> bool {
    let n = q.len();
    (0u32..1 << n).any(|mask| {
        let set: Vec<usize> = (0..n).filter(|i| mask >> i & 1 == 1).collect();
        let k = set.len();
        // M_SS z_S = −q_S by Gaussian elimination with partial pivoting.
        let mut a = vec![0.0; k * (k + 1)];
        for (r, &i) in set.iter().enumerate() {
            for (c, &j) in set.iter().enumerate() {
                a[r * (k + 1) + c] = m[i * n + j];
            }
            a[r * (k + 1) + k] = -q[i];
        }
        for c in 0..k {
            let p = (c..k)
                .max_by(|&x, &y| {
                    a[x * (k + 1) + c]
                        .abs()
                        .total_cmp(&a[y * (k + 1) + c].abs())
                })
                .unwrap();
            if a[p * (k + 1) + c].abs() < 1e-12 {
                return false;
            }
            for x in 0..=k {
                a.swap(c * (k + 1) + x, p * (k + 1) + x);
            }
            for r in 0..k {
                if r != c {
                    let f = a[r * (k + 1) + c] / a[c * (k + 1) + c];
                    for x in 0..=k {
                        a[r * (k + 1) + x] -= f * a[c * (k + 1) + x];
                    }
                }
            }
        }
        let mut z = vec![0.0; n];
        for (r, &i) in set.iter().enumerate() {
            z[i] = a[r * (k + 1) + k] / a[r * (k + 1) + r];
        }
        z.iter().all(|&x| x >= -1e-9)
            && (0..n).all(|i| {
                let w: f64 = (0..n).map(|j| m[i * n + j] * z[j]).sum::<f64>() + q[i];
                w >= -1e-9 && (z[i] * w).abs() < 1e-7
            })
    })
}

/// A random contact LCP of Stewart & Trinkle's form (§3.2): `k` contacts on a system of `dofs`
/// freedoms with unit mass, `d` friction directions each (±pairs when d is even, as in the
/// paper's evenly spaced cone), friction 0.4, q = J v for a random v (gaps zero). With
/// `dofs < k (d + 1)` the normal and friction rows are dependent, as in real contact sets.
fn contact_lcp(rng: &mut Numbers, k: usize, d: usize, dofs: usize) -> (Vec<f64>, Vec<f64>) {
    let imp = k * (1 + d);
    let size = imp + k;
    let mut j = vec![0.0; imp * dofs];
    for c in 0..k {
        let n: Vec<f64> = (0..dofs).map(|_| rng.next()).collect();
        let t1: Vec<f64> = (0..dofs).map(|_| rng.next()).collect();
        let t2: Vec<f64> = (0..dofs).map(|_| rng.next()).collect();
        j[c * dofs..(c + 1) * dofs].copy_from_slice(&n);
        for t in 0..d {
            let a = std::f64::consts::TAU * t as f64 / d as f64;
            let r = k + c * d + t;
            for x in 0..dofs {
                j[r * dofs + x] = a.cos() * t1[x] + a.sin() * t2[x];
            }
        }
    }
    let mut m = vec![0.0; size * size];
    for a in 0..imp {
        for b in 0..imp {
            m[a * size + b] = (0..dofs).map(|x| j[a * dofs + x] * j[b * dofs + x]).sum();
        }
    }
    for c in 0..k {
        let l = imp + c;
        for t in 0..d {
            let f = k + c * d + t;
            m[f * size + l] = 1.0;
            m[l * size + f] = -1.0;
        }
        m[l * size + c] = 0.4;
    }
    let v: Vec<f64> = (0..dofs).map(|_| rng.next()).collect();
    let mut q = vec![0.0; size];
    for a in 0..imp {
        q[a] = (0..dofs).map(|x| j[a * dofs + x] * v[x]).sum();
    }
    (m, q)
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
fn a_cycling_prone_problem_is_solved() {
    // Found by searching small integer problems: with the ratio test's ties broken by the
    // first tied row, Lemke's method (in exact rational arithmetic) returns after 5 pivots to
    // a basis it left, for ever. Lexicographically it ends in 3 pivots at z = [0, 1, 1, 0].
    let m = [
        0.0, 1.0, 2.0, 1.0, //
        1.0, 1.0, 0.0, 1.0, //
        -1.0, -1.0, 1.0, 2.0, //
        0.0, 2.0, 1.0, -2.0,
    ];
    let q = [-1.0, -1.0, 0.0, 0.0];
    let s = solve(&m, &q, 100).unwrap();
    check(&m, &q, &s.z);
    for (z, want) in s.z.iter().zip([0.0, 1.0, 1.0, 0.0]) {
        assert!((z - want).abs() < 1e-12, "z = {:?}", s.z);
    }
}

#[test]
fn an_infeasible_problem_is_a_ray() {
    // w = −z − 1 ≥ 0 has no solution with z ≥ 0.
    assert!(matches!(
        solve(&[-1.0], &[-1.0], 10),
        Err(LemkeError::Ray { .. })
    ));
    // w₁ = z₂ − 1, w₂ = −z₁ − 1: w₂ ≥ 0 has no solution.
    assert!(matches!(
        solve(&[0.0, 1.0, -1.0, 0.0], &[-1.0, -1.0], 10),
        Err(LemkeError::Ray { .. })
    ));
}

#[test]
fn a_small_budget_is_an_error() {
    let (m, q) = contact_lcp(&mut Numbers(3), 4, 8, 6);
    assert_eq!(solve(&m, &q, 1), Err(LemkeError::Budget { budget: 1 }));
}

#[test]
fn random_psd_problems_are_solved() {
    // M = AᵀA + I (positive definite): Lemke always succeeds.
    let mut rng = Numbers(7);
    for n in [3, 6, 12, 40] {
        let a: Vec<f64> = (0..n * n).map(|_| rng.next()).collect();
        let mut m = vec![0.0; n * n];
        for i in 0..n {
            for j in 0..n {
                m[i * n + j] = (0..n).map(|k| a[k * n + i] * a[k * n + j]).sum::<f64>()
                    + if i == j { 1.0 } else { 0.0 };
            }
        }
        let q: Vec<f64> = (0..n).map(|_| rng.next()).collect();
        let s = solve(&m, &q, 10 * n).unwrap();
        check(&m, &q, &s.z);
    }
}

#[test]
fn small_random_contact_problems_agree_with_brute_force() {
    // One and two contacts with 2–4 directions (sizes 4–12): brute force finds a solution for
    // every one (the contact LCP always has one), and so must Lemke's method.
    let mut rng = Numbers(11);
    for trial in 0..300 {
        let k = 1 + trial % 2;
        let d = [2, 3, 4][trial % 3];
        let dofs = [2, 3, 6][trial / 3 % 3];
        let (m, q) = contact_lcp(&mut rng, k, d, dofs);
        assert!(brute_force_solvable(&m, &q), "trial {trial}");
        let s = solve(&m, &q, 50 * q.len())
            .unwrap_or_else(|e| panic!("trial {trial} (k {k}, d {d}, dofs {dofs}): {e}"));
        check(&m, &q, &s.z);
    }
}

#[test]
fn random_degenerate_contact_problems_are_solved() {
    // Up to 8 contacts with 8 directions (sizes to 80) on fewer freedoms than rows: dependent
    // rows, exact ties, the problems a plain floating-point tableau fails on (about 1 in 500).
    let mut rng = Numbers(5);
    for trial in 0..400 {
        let k = 1 + trial % 8;
        let d = [4, 8][trial % 2];
        let dofs = 6 * (1 + trial / 2 % 3);
        let (m, q) = contact_lcp(&mut rng, k, d, dofs);
        let s = solve(&m, &q, 50 * q.len())
            .unwrap_or_else(|e| panic!("trial {trial} (k {k}, d {d}, dofs {dofs}): {e}"));
        check(&m, &q, &s.z);
    }
}
