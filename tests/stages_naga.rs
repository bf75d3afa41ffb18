//! Every stage's WGSL parses and validates with naga (no device needed), and every struct shared
//! with Rust has the same size and field offsets on both sides (naga's layouter is the WGSL
//! host-shareable layout).

use naga::valid::{Capabilities, ValidationFlags, Validator};
use std::mem::{offset_of, size_of};
use tumble::gpu::shader::{stage_source, STAGES};
use tumble::gpu::SortParams;
use tumble::stages::{
    BoxOverride, BroadPhaseStats, Bump, FrameParams, PairBound, StageAabb, StageBody,
};

fn module(stage: &str) -> naga::Module {
    let src = stage_source(stage).unwrap();
    naga::front::wgsl::parse_str(&src)
        .unwrap_or_else(|e| panic!("{stage}.wgsl: {}", e.emit_to_string(&src)))
}

#[test]
fn every_stage_parses_and_validates() {
    for (name, _) in STAGES {
        let m = module(name);
        let mut v = Validator::new(ValidationFlags::all(), Capabilities::default());
        if let Err(e) = v.validate(&m) {
            let src = stage_source(name).unwrap();
            panic!("{name}.wgsl: {}", e.emit_to_string(&src));
        }
        assert!(
            m.entry_points.iter().all(|ep| ep.name.starts_with(name)),
            "{name}.wgsl: every entry point is named after its stage"
        );
    }
}

#[test]
fn broad_phase_has_all_passes() {
    let m = module("broad_phase");
    for ep in [
        "broad_phase_reduce",
        "broad_phase_setup",
        "broad_phase_classify",
        "broad_phase_sort_local",
        "broad_phase_sort_global",
        "broad_phase_sort_merge",
        "broad_phase_gather",
        "broad_phase_sweep",
        "broad_phase_large",
        "broad_phase_finish",
    ] {
        assert!(m.entry_points.iter().any(|e| e.name == ep), "missing {ep}");
    }
}

/// (size, [(field, offset)]) of WGSL struct `name` in stage `stage`.
fn wgsl_layout(stage: &str, name: &str) -> (u32, Vec<(String, u32)>) {
    let m = module(stage);
    let mut layouter = naga::proc::Layouter::default();
    layouter.update(m.to_ctx()).unwrap();
    let (handle, ty) = m
        .types
        .iter()
        .find(|(_, t)| t.name.as_deref() == Some(name))
        .unwrap_or_else(|| panic!("no struct {name} in {stage}.wgsl"));
    let naga::TypeInner::Struct { members, .. } = &ty.inner else {
        panic!("{name} is not a struct")
    };
    let fields = members
        .iter()
        .map(|m| (m.name.clone().unwrap_or_default(), m.offset))
        .collect();
    (layouter[handle].size, fields)
}

fn check(stage: &str, name: &str, rust_size: usize, rust: &[(&str, usize)]) {
    let (size, fields) = wgsl_layout(stage, name);
    assert_eq!(size as usize, rust_size, "size of {name}");
    for (field, offset) in rust {
        let (_, wgsl_offset) = fields
            .iter()
            .find(|(f, _)| f == field)
            .unwrap_or_else(|| panic!("{name}.{field} missing in WGSL"));
        assert_eq!(*wgsl_offset as usize, *offset, "offset of {name}.{field}");
    }
}

#[test]
fn shared_struct_layouts_match() {
    check(
        "swept_aabb",
        "StageBody",
        size_of::<StageBody>(),
        &[
            ("position", offset_of!(StageBody, position)),
            ("time", offset_of!(StageBody, time)),
            ("orientation", offset_of!(StageBody, orientation)),
            ("velocity", offset_of!(StageBody, velocity)),
            ("bounding_radius", offset_of!(StageBody, bounding_radius)),
            ("angular_velocity", offset_of!(StageBody, angular_velocity)),
            ("rotation_radius", offset_of!(StageBody, rotation_radius)),
            ("inv_inertia", offset_of!(StageBody, inv_inertia)),
            ("motion", offset_of!(StageBody, motion)),
            ("own_min", offset_of!(StageBody, own_min)),
            (
                "max_angular_speed",
                offset_of!(StageBody, max_angular_speed),
            ),
            ("own_max", offset_of!(StageBody, own_max)),
            ("has_own_box", offset_of!(StageBody, has_own_box)),
        ],
    );
    check(
        "swept_aabb",
        "FrameParams",
        size_of::<FrameParams>(),
        &[
            ("gravity", offset_of!(FrameParams, gravity)),
            ("frame_start", offset_of!(FrameParams, frame_start)),
            ("frame_period", offset_of!(FrameParams, frame_period)),
            ("epsilon", offset_of!(FrameParams, epsilon)),
            ("body_count", offset_of!(FrameParams, body_count)),
            ("pair_capacity", offset_of!(FrameParams, pair_capacity)),
            ("override_count", offset_of!(FrameParams, override_count)),
        ],
    );
    check(
        "swept_aabb",
        "StageAabb",
        size_of::<StageAabb>(),
        &[
            ("min", offset_of!(StageAabb, min)),
            ("motion", offset_of!(StageAabb, motion)),
            ("max", offset_of!(StageAabb, max)),
        ],
    );
    check(
        "swept_aabb",
        "BoxOverride",
        size_of::<BoxOverride>(),
        &[
            ("aabb", offset_of!(BoxOverride, aabb)),
            ("body", offset_of!(BoxOverride, body)),
        ],
    );
    check(
        "pair_bounds",
        "PairBound",
        size_of::<PairBound>(),
        &[
            ("a", offset_of!(PairBound, a)),
            ("b", offset_of!(PairBound, b)),
            ("distance_bound", offset_of!(PairBound, distance_bound)),
            ("toi_bound", offset_of!(PairBound, toi_bound)),
        ],
    );
    check(
        "broad_phase",
        "BroadPhaseStats",
        size_of::<BroadPhaseStats>(),
        &[
            ("centre_sum", offset_of!(BroadPhaseStats, centre_sum)),
            ("axis", offset_of!(BroadPhaseStats, axis)),
            ("centre_sq_sum", offset_of!(BroadPhaseStats, centre_sq_sum)),
            ("count", offset_of!(BroadPhaseStats, count)),
            ("extent_sum", offset_of!(BroadPhaseStats, extent_sum)),
            (
                "large_threshold",
                offset_of!(BroadPhaseStats, large_threshold),
            ),
        ],
    );
    check(
        "broad_phase",
        "Bump",
        size_of::<Bump>(),
        &[
            ("pairs", offset_of!(Bump, pairs)),
            ("overflow", offset_of!(Bump, overflow)),
            ("large", offset_of!(Bump, large)),
        ],
    );
    check(
        "pair_bounds",
        "BumpView",
        size_of::<Bump>(),
        &[
            ("pairs", offset_of!(Bump, pairs)),
            ("overflow", offset_of!(Bump, overflow)),
            ("large", offset_of!(Bump, large)),
        ],
    );
    check(
        "broad_phase",
        "SortParams",
        size_of::<SortParams>(),
        &[
            ("k", offset_of!(SortParams, k)),
            ("j", offset_of!(SortParams, j)),
            ("len", offset_of!(SortParams, len)),
        ],
    );
}

#[test]
fn imports_resolve_once() {
    let src = stage_source("pair_bounds").unwrap();
    assert_eq!(src.matches("struct StageBody").count(), 1);
    assert!(!src.contains("#import"));
}

/// The contact sweeps' structs: every field at the same offset on both sides.
#[test]
fn contact_sweep_layouts_match() {
    use tumble::stages::contact_sweep::{
        SweepControl, SweepParams, SweepPatch, SweepRow, SweepVel,
    };
    macro_rules! fields {
        ($t:ty: $($f:ident),*) => {
            &[$((stringify!($f), offset_of!($t, $f))),*]
        };
    }
    check(
        "contact_sweep",
        "SweepRow",
        size_of::<SweepRow>(),
        fields!(SweepRow: ra, bias, rb, drift, normal, k_nn, lin_a, inv_k_nn, ang_a, impulse,
            lin_b, spread_sq, ang_b, lever, spread, twist_arm, slip),
    );
    check(
        "contact_sweep",
        "SweepPatch",
        size_of::<SweepPatch>(),
        fields!(SweepPatch: sa, sb, first, count, ra, friction, rb, twist_inv, normal, radius,
            drift, inv_mass_a, tangential, twist, k, k_tt_inv, inv_inertia_a, inv_inertia_b,
            inv_mass_b, slides),
    );
    check(
        "contact_sweep",
        "SweepVel",
        size_of::<SweepVel>(),
        fields!(SweepVel: v, w),
    );
    check(
        "contact_sweep",
        "SweepParams",
        size_of::<SweepParams>(),
        fields!(SweepParams: h, tolerance, max_iterations, stall_window, colours),
    );
    check(
        "contact_sweep",
        "SweepControl",
        size_of::<SweepControl>(),
        fields!(SweepControl: residual_bits, done, iterations, residual, history),
    );
}
