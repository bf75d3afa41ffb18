//! A dense symmetric positive semi-definite solve for an articulation's joint rows: the
//! Cholesky factor of `A = J M⁻¹ Jᵀ` (rows × rows, a few dozen for a chain of 20 links), with
//! rows that depend on earlier ones (a redundant joint, a closed loop) given zero impulse.

/// The lower Cholesky factor of a symmetric matrix, row-major `n × n`.
#[derive(Clone, Debug, Default)]
pub struct Cholesky {
    n: usize,
    l: Vec<f64>,
    /// Rows whose pivot vanished (dependent on earlier rows): their unknown is set to 0.
    dropped: Vec<bool>,
}

impl Cholesky {
    /// Factors `a` (row-major `n × n`, symmetric). A pivot below `1e-12` times the largest
    /// diagonal entry marks a dependent row.
    pub fn new(a: &[f64], n: usize) -> Cholesky {
        let scale = (0..n).map(|i| a[i * n + i]).fold(0.0, f64::max);
        let floor = 1e-12 * scale.max(1e-300);
        let mut l = vec![0.0; n * n];
        let mut dropped = vec![false; n];
        for j in 0..n {
            let mut d = a[j * n + j];
            for k in 0..j {
                d -= l[j * n + k] * l[j * n + k];
            }
            if d <= floor {
                dropped[j] = true;
                continue;
            }
            let d = d.sqrt();
            l[j * n + j] = d;
            for i in j + 1..n {
                let mut s = a[i * n + j];
                for k in 0..j {
                    s -= l[i * n + k] * l[j * n + k];
                }
                l[i * n + j] = s / d;
            }
        }
        Cholesky { n, l, dropped }
    }

    /// Solves `A x = b` in place (dropped rows: `x = 0`).
    pub fn solve(&self, b: &mut [f64]) {
        let (n, l) = (self.n, &self.l);
        for i in 0..n {
            if self.dropped[i] {
                b[i] = 0.0;
                continue;
            }
            let mut s = b[i];
            for k in 0..i {
                s -= l[i * n + k] * b[k];
            }
            b[i] = s / l[i * n + i];
        }
        for i in (0..n).rev() {
            if self.dropped[i] {
                b[i] = 0.0;
                continue;
            }
            let mut s = b[i];
            for k in i + 1..n {
                s -= l[k * n + i] * b[k];
            }
            b[i] = s / l[i * n + i];
        }
    }
}

#[cfg(test)]
mod tests {
    use super::Cholesky;

    #[test]
    fn solves_a_spd_system_and_drops_a_dependent_row() {
        // A = [[4, 2], [2, 3]]: x = A⁻¹ [2, 1] = [0.5, 0].
        let c = Cholesky::new(&[4.0, 2.0, 2.0, 3.0], 2);
        let mut b = [2.0, 1.0];
        c.solve(&mut b);
        assert!((b[0] - 0.5).abs() < 1e-15 && b[1].abs() < 1e-15, "{b:?}");
        // Row 2 repeats row 1: its unknown is 0, the first takes the whole load.
        let c = Cholesky::new(&[2.0, 2.0, 2.0, 2.0], 2);
        let mut b = [4.0, 4.0];
        c.solve(&mut b);
        assert!((b[0] - 2.0).abs() < 1e-14 && b[1] == 0.0, "{b:?}");
    }
}
