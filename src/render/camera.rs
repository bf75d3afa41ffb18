//! Where `tumble render` looks from: the automatic camera that frames the moving bodies over the
//! whole run, or the one `--camera` gives, and the light's view for the shadow map.

use glam::camera::rh::{proj::directx, view::look_at_mat4};
use glam::{DVec3, Mat4, Vec3};

/// Vertical field of view of the automatic camera (degrees).
pub const DEFAULT_FOV_DEGREES: f64 = 40.0;

/// The automatic camera looks at the focus from this direction (z up): in front, to the right
/// and above, so both the tops and the sides of the bodies show.
pub const VIEW_FROM: DVec3 = DVec3::new(0.55, -1.0, 0.62);

/// The automatic camera stands this many times the distance at which the focus box just fits
/// the picture.
pub const FIT_MARGIN: f64 = 1.08;

/// The light comes from this direction (towards the light; z up): high and to the left of the
/// automatic camera, so shadows fall to the front right, visible.
pub const LIGHT_FROM: DVec3 = DVec3::new(-0.45, -0.35, 1.0);

/// A camera given on the command line: `--camera EX,EY,EZ[,TX,TY,TZ[,FOV]]`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CameraSpec {
    /// Eye position (m).
    pub eye: DVec3,
    /// Point looked at (m); `None`: the centre of the automatic focus.
    pub target: Option<DVec3>,
    /// Vertical field of view (degrees).
    pub fov_degrees: f64,
}

impl std::str::FromStr for CameraSpec {
    type Err = String;

    fn from_str(s: &str) -> Result<Self, String> {
        let v: Vec<f64> = s
            .split(',')
            .map(|x| {
                x.trim()
                    .parse::<f64>()
                    .ok()
                    .filter(|v| v.is_finite())
                    .ok_or_else(|| format!("\"{x}\" is not a finite number"))
            })
            .collect::<Result<_, _>>()?;
        let spec = match v.len() {
            3 | 6 | 7 => CameraSpec {
                eye: DVec3::new(v[0], v[1], v[2]),
                target: (v.len() >= 6).then(|| DVec3::new(v[3], v[4], v[5])),
                fov_degrees: v.get(6).copied().unwrap_or(DEFAULT_FOV_DEGREES),
            },
            n => {
                return Err(format!(
                    "{n} numbers; expected EX,EY,EZ[,TX,TY,TZ[,FOV_DEGREES]]"
                ))
            }
        };
        if !(1.0..=170.0).contains(&spec.fov_degrees) {
            return Err(format!(
                "field of view {} degrees is outside 1..170",
                spec.fov_degrees
            ));
        }
        if spec.target == Some(spec.eye) {
            return Err("the eye and the target are the same point".into());
        }
        Ok(spec)
    }
}

/// The box the picture is built around (m), and the sphere around it.
#[derive(Clone, Copy, Debug)]
pub struct Focus {
    /// Centre.
    pub centre: DVec3,
    /// Radius of the sphere around the box, > 0.
    pub radius: f64,
    /// Half the box's sides (zero: only the sphere is known).
    pub half: DVec3,
}

impl Focus {
    /// The box (`min`, `max`); its sphere is at least `floor` in radius.
    pub fn of_box(min: DVec3, max: DVec3, floor: f64) -> Focus {
        Focus {
            centre: 0.5 * (min + max),
            radius: (0.5 * (max - min).length()).max(floor),
            half: 0.5 * (max - min),
        }
    }

    /// The eye distance at which every corner of the box (or the sphere, if no box is known)
    /// fits the field of view (vertical `fov`, `aspect`) looking along `-from` at the centre.
    fn fitting_distance(&self, from: DVec3, fov: f64, aspect: f64) -> f64 {
        let ty = (0.5 * fov).tan();
        let tx = ty * aspect;
        if self.half == DVec3::ZERO {
            return self.radius / ty.min(tx).atan().sin();
        }
        let back = from.normalize();
        let right = DVec3::Z.cross(back).normalize_or(DVec3::X);
        let up = back.cross(right);
        let mut d = 0.0f64;
        for k in 0..8 {
            let sign = DVec3::new(
                if k & 1 == 0 { -1.0 } else { 1.0 },
                if k & 2 == 0 { -1.0 } else { 1.0 },
                if k & 4 == 0 { -1.0 } else { 1.0 },
            );
            let p = sign * self.half;
            // The corner is `p·back` nearer the eye than the centre.
            let near = p.dot(back);
            d = d
                .max(near + p.dot(right).abs() / tx)
                .max(near + p.dot(up).abs() / ty);
        }
        d
    }
}

/// The matrices of one picture.
#[derive(Clone, Copy, Debug)]
pub struct View {
    /// World to clip space of the camera.
    pub view_proj: Mat4,
    /// World to clip space of the light (orthographic, covering the focus).
    pub light_view_proj: Mat4,
    /// Unit direction towards the light.
    pub light_dir: Vec3,
    /// The camera's eye.
    pub eye: Vec3,
    /// Floor grid spacing (m).
    pub grid_spacing: f32,
}

/// Where the automatic camera stands for a picture of `aspect` (width / height) around
/// `focus`: along [`VIEW_FROM`] from the focus centre, where the box's corners fit the field of
/// view with a small margin. It looks at the focus centre.
pub fn automatic_eye(focus: Focus, aspect: f64) -> DVec3 {
    let fov = DEFAULT_FOV_DEGREES.to_radians();
    let distance = FIT_MARGIN * focus.fitting_distance(VIEW_FROM, fov, aspect);
    focus.centre + VIEW_FROM.normalize() * distance
}

/// The view for a picture of `aspect` (width / height) around `focus`: the automatic camera
/// unless `spec` gives one. `scene_radius` bounds the whole scene seen from the focus centre,
/// for the far plane.
pub fn view(focus: Focus, spec: Option<&CameraSpec>, aspect: f64, scene_radius: f64) -> View {
    let (eye, target, fov) = match spec {
        Some(s) => (
            s.eye,
            s.target.unwrap_or(focus.centre),
            s.fov_degrees.to_radians(),
        ),
        None => (
            automatic_eye(focus, aspect),
            focus.centre,
            DEFAULT_FOV_DEGREES.to_radians(),
        ),
    };
    let distance = (eye - target).length();
    let reach = (eye - focus.centre).length() + scene_radius.max(focus.radius);
    let near = (distance * 0.01)
        .min(0.5 * (distance - focus.radius))
        .max(1e-4);
    let far = reach * 1.5;
    let up = if (eye - target).normalize().cross(DVec3::Z).length() < 1e-6 {
        DVec3::Y // looking straight down or up
    } else {
        DVec3::Z
    };
    let view = look_at_mat4(eye.as_vec3(), target.as_vec3(), up.as_vec3());
    let proj = directx::perspective(fov as f32, aspect as f32, near as f32, far as f32);
    // The light: orthographic along its direction, a box around the focus grown by half.
    let l = LIGHT_FROM.normalize();
    let r = (1.5 * focus.radius) as f32;
    let light_eye = focus.centre + l * (4.0 * focus.radius);
    let light_view = look_at_mat4(light_eye.as_vec3(), focus.centre.as_vec3(), Vec3::Z);
    let light_proj = directx::orthographic(-r, r, -r, r, 0.0, (8.0 * focus.radius) as f32);
    View {
        view_proj: proj * view,
        light_view_proj: light_proj * light_view,
        light_dir: l.as_vec3(),
        eye: eye.as_vec3(),
        grid_spacing: 1.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn camera_spec_parses_and_refuses() {
        let c: CameraSpec = "1,2,3".parse().unwrap();
        assert_eq!(c.eye, DVec3::new(1.0, 2.0, 3.0));
        assert_eq!(c.target, None);
        let c: CameraSpec = "1,2,3,0,0,0,60".parse().unwrap();
        assert_eq!(c.target, Some(DVec3::ZERO));
        assert_eq!(c.fov_degrees, 60.0);
        assert!("1,2".parse::<CameraSpec>().is_err());
        assert!("1,2,x".parse::<CameraSpec>().is_err());
        assert!("1,2,3,1,2,3".parse::<CameraSpec>().is_err());
        assert!("1,2,3,0,0,0,180".parse::<CameraSpec>().is_err());
    }

    #[test]
    fn the_automatic_camera_sees_the_whole_focus() {
        let sphere = Focus {
            centre: DVec3::new(1.0, 2.0, 0.5),
            radius: 0.3,
            half: DVec3::ZERO,
        };
        let long = Focus::of_box(DVec3::new(0.0, 1.9, 0.4), DVec3::new(2.0, 2.1, 0.6), 0.0);
        for (focus, aspect) in [
            (sphere, 4.0 / 3.0),
            (sphere, 0.5),
            (long, 4.0 / 3.0),
            (long, 0.5),
        ] {
            let v = view(focus, None, aspect, 1.0);
            // Points on the focus sphere along the axes (or the box's corners) project inside
            // the picture.
            let points: Vec<DVec3> = if focus.half == DVec3::ZERO {
                [
                    DVec3::X,
                    DVec3::Y,
                    DVec3::Z,
                    -DVec3::X,
                    -DVec3::Y,
                    -DVec3::Z,
                ]
                .map(|d| d * focus.radius)
                .to_vec()
            } else {
                (0..8)
                    .map(|k| {
                        let s = |b: i32| if k & b == 0 { -1.0 } else { 1.0 };
                        DVec3::new(s(1), s(2), s(4)) * focus.half
                    })
                    .collect()
            };
            for d in points {
                let p = (focus.centre + d).as_vec3();
                let c = v.view_proj * p.extend(1.0);
                let ndc = c.truncate() / c.w;
                assert!(ndc.x.abs() < 1.0 && ndc.y.abs() < 1.0, "{d}: {ndc}");
                assert!((0.0..1.0).contains(&ndc.z), "{d}: depth {}", ndc.z);
                let l = v.light_view_proj * p.extend(1.0);
                assert!(l.x.abs() < 1.0 && l.y.abs() < 1.0 && (0.0..1.0).contains(&l.z));
            }
        }
    }
}
