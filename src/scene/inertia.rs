//! A body's `inertia` key: principal moments `[I1, I2, I3]` or a full symmetric tensor
//! `[[Ixx, Ixy, Ixz], [Ixy, Iyy, Iyz], [Ixz, Iyz, Izz]]` in the shape's frame, checked to be a
//! rigid body's inertia (positive, and the triangle inequality of the principal moments).

use super::table::{fmt_vec, Span, Tab};
use super::{InertiaSpec, SceneError};
use crate::mass_properties::principal_axes;
use glam::{DMat3, DVec3};
use toml::de::DeValue;

/// Relative tolerance of the symmetry check of a full tensor: `|I_ij − I_ji|` may be at most this
/// times the largest entry (decimals rounded in the file, not a different tensor).
const SYMMETRY_TOLERANCE: f64 = 1e-9;

/// Reads `inertia`, if present: an array of three numbers is the principal moments, an array of
/// three arrays the full tensor.
pub(super) fn parse_inertia(t: &Tab) -> Result<Option<InertiaSpec>, SceneError> {
    let Some(v) = t.get("inertia") else {
        return Ok(None);
    };
    let items = t.array(v, "inertia")?;
    let is_tensor = matches!(items.first().map(|i| i.get_ref()), Some(DeValue::Array(_)));
    if !is_tensor {
        let (i, span) = (t.vec3_value(v, "inertia")?, v.span());
        check_moments(t, &span, i, "principal moments", &fmt_vec(i))?;
        return Ok(Some(InertiaSpec::Principal(i)));
    }
    let rows = t.array_of_len(v, "inertia", 3)?;
    let mut m = [[0.0; 3]; 3];
    for (r, row) in rows.iter().enumerate() {
        m[r] = t.vec3_value(row, &format!("inertia[{r}]"))?.to_array();
    }
    let span = v.span();
    let largest = m.iter().flatten().fold(0.0f64, |a, x| a.max(x.abs()));
    for (r, c) in [(0, 1), (0, 2), (1, 2)] {
        if (m[r][c] - m[c][r]).abs() > SYMMETRY_TOLERANCE * largest {
            return Err(t.value_error(
                &span,
                "inertia",
                &format!(
                    "tensor must be symmetric (got inertia[{r}][{c}] = {} but inertia[{c}][{r}] = \
                     {}; relative tolerance {SYMMETRY_TOLERANCE:e})",
                    m[r][c], m[c][r]
                ),
            ));
        }
    }
    // Rows and columns are the same for a symmetric tensor; `from_cols` takes the rows as given.
    let tensor = DMat3::from_cols_array_2d(&m);
    let (moments, _) = principal_axes(tensor);
    let shown = format!(
        "[{}] (eigenvalues {})",
        m.map(|row| fmt_vec(DVec3::from_array(row))).join(", "),
        fmt_vec(moments.to_array().map(round12).into())
    );
    check_moments(t, &span, moments, "tensor", &shown)?;
    Ok(Some(InertiaSpec::Tensor(tensor)))
}

/// Principal moments (given, or a tensor's eigenvalues) that a rigid body can have: each > 0 (a
/// tensor positive definite) and the triangle inequality `Ia + Ib >= Ic` in every order, each
/// moment being the integral of a sum of two squared coordinates; rounding is allowed for thin
/// plates, where it is an equality.
fn check_moments(
    t: &Tab,
    span: &Span,
    i: DVec3,
    what: &str,
    shown: &str,
) -> Result<(), SceneError> {
    if i.min_element() <= 0.0 {
        let rule = if what == "tensor" {
            "tensor must be positive definite"
        } else {
            "principal moments must all be > 0"
        };
        return Err(t.value_error(span, "inertia", &format!("{rule} (got {shown})")));
    }
    let tol = 1e-12 * (i.x + i.y + i.z);
    let [a, b, c] = i.to_array();
    if a + b < c - tol || b + c < a - tol || c + a < b - tol {
        let whose = if what == "tensor" {
            "tensor's eigenvalues"
        } else {
            "principal moments"
        };
        return Err(t.value_error(
            span,
            "inertia",
            &format!(
                "{whose} must satisfy the triangle inequality Ia + Ib >= Ic for every order (got \
                 {shown})"
            ),
        ));
    }
    Ok(())
}

/// `x` rounded to 12 significant digits, so that an eigenvalue of an integer tensor reads as the
/// integer it is up to rounding (`-1`, not `-0.9999999999999998`).
fn round12(x: f64) -> f64 {
    format!("{x:.11e}").parse().unwrap_or(x)
}
