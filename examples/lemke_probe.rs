//! Lemke's method on random contact LCPs of Stewart & Trinkle's form (§3.2): `k` contacts on a
//! system of `dofs` freedoms, `d` friction directions each, friction 0.4, q = J v (every gap
//! zero, as for bodies at rest: the hardest case, q on the boundary of the solvable problems).
//! With fewer freedoms than rows the rows are dependent and the problems massively degenerate.
//! Prints the failures (with a brute-force check of small ones: the contact LCP always has a
//! solution) and their count, for the unrelaxed and the relaxed solve ([`lemke::solve_relaxed`],
//! what a step uses).
//!
//! `cargo run --release --example lemke_probe [TRIALS] [MAX_CONTACTS]`
use tumble::lcp::lemke;

fn main() {
    let mut args = std::env::args().skip(1).map(|a| a.parse::<usize>().ok());
    let trials = args.next().flatten().unwrap_or(20_000);
    let most = args.next().flatten().unwrap_or(8).max(1);
    let mut seed = 11u64;
    let mut next = || {
        seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        ((seed >> 11) as f64 / (1u64 << 53) as f64) * 2.0 - 1.0
    };
    let (mut fails, mut relaxed_fails, mut total, mut pivots) = (0, 0, 0, 0);
    for trial in 0..trials {
        let k = 1 + trial % most;
        let d = [2, 4, 8][trial / most % 3];
        let dofs = 6 * (1 + trial % 3);
        let imp = k * (1 + d);
        let size = imp + k;
        let mut j = vec![0.0; imp * dofs];
        for c in 0..k {
            let n: Vec<f64> = (0..dofs).map(|_| next()).collect();
            let t1: Vec<f64> = (0..dofs).map(|_| next()).collect();
            let t2: Vec<f64> = (0..dofs).map(|_| next()).collect();
            for x in 0..dofs {
                j[c * dofs + x] = n[x];
            }
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
        let v: Vec<f64> = (0..dofs).map(|_| next()).collect();
        let mut q = vec![0.0; size];
        for a in 0..imp {
            q[a] = (0..dofs).map(|x| j[a * dofs + x] * v[x]).sum();
        }
        total += 1;
        match lemke::solve(&m, &q, 50 * size) {
            Ok(s) => pivots += s.pivots,
            Err(e) => {
                fails += 1;
                let brute = if size <= 16 {
                    format!("; brute force finds a solution: {}", brute(&m, &q))
                } else {
                    String::new()
                };
                println!("trial {trial} (k {k}, d {d}, dofs {dofs}, size {size}): {e}{brute}");
            }
        }
        if lemke::solve_relaxed(&m, &q, 1e-9, 50 * size).is_err() {
            relaxed_fails += 1;
        }
    }
    println!(
        "{fails} of {total} failed ({relaxed_fails} relaxed); {:.1} pivots per problem",
        pivots as f64 / (total - fails).max(1) as f64
    );
}

/// Brute force: any complementary basis solving the LCP?
pub fn brute(m: &[f64], q: &[f64]) -> bool {
    let n = q.len();
    for mask in 0u32..(1 << n) {
        // z_i basic where mask bit set: solve M_SS z_S = -q_S
        let s: Vec<usize> = (0..n).filter(|i| mask >> i & 1 == 1).collect();
        let k = s.len();
        let mut a = vec![0.0; k * (k + 1)];
        for (r, &i) in s.iter().enumerate() {
            for (c, &j) in s.iter().enumerate() {
                a[r * (k + 1) + c] = m[i * n + j];
            }
            a[r * (k + 1) + k] = -q[i];
        }
        // gaussian elimination
        let mut ok = true;
        for c in 0..k {
            let p = (c..k)
                .max_by(|&x, &y| {
                    a[x * (k + 1) + c]
                        .abs()
                        .total_cmp(&a[y * (k + 1) + c].abs())
                })
                .unwrap();
            if a[p * (k + 1) + c].abs() < 1e-12 {
                ok = false;
                break;
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
        if !ok {
            continue;
        }
        let mut z = vec![0.0; n];
        for (r, &i) in s.iter().enumerate() {
            z[i] = a[r * (k + 1) + k] / a[r * (k + 1) + r];
        }
        if z.iter().any(|&x| x < -1e-9) {
            continue;
        }
        let good = (0..n).all(|i| {
            let w: f64 = (0..n).map(|j| m[i * n + j] * z[j]).sum::<f64>() + q[i];
            w >= -1e-9 && (z[i] * w).abs() < 1e-7
        });
        if good {
            return true;
        }
    }
    false
}
