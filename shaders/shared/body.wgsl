// Types shared by every frame stage.
// Keep in sync with src/stages/mod.rs (StageBody, FrameParams, StageAabb, BoxOverride, PairBound, the
// MOTION_* constants, ROUND_REL, TOI_NONE); tests/stages_naga.rs checks sizes and offsets.
// Layout: every vec3 is followed by a 4-byte scalar so WGSL's 16-byte vec3 alignment adds no
// hidden padding and the Rust side can use plain [f32; 3].

const MOTION_DYNAMIC: u32 = 0u;
const MOTION_FIXED: u32 = 1u;
const MOTION_KINEMATIC: u32 = 2u;

// 2^-20: relative padding that keeps f32 results conservative (16 ulps of the magnitudes involved).
const ROUND_REL: f32 = 9.5367431640625e-7;
// toi_bound when the spheres cannot meet within the frame (largest finite f32, no infinities).
const TOI_NONE: f32 = 3.40282347e38;

struct StageBody {
    position: vec3<f32>,
    time: f32,
    orientation: vec4<f32>,       // quaternion (x, y, z, w), body -> world
    velocity: vec3<f32>,
    bounding_radius: f32,
    angular_velocity: vec3<f32>,  // world
    rotation_radius: f32,
    inv_inertia: vec3<f32>,       // principal, body frame; 0 = infinite
    motion: u32,
    own_min: vec3<f32>,           // own box at `time`, relative to position (if has_own_box)
    max_angular_speed: f32,       // bound on |angular velocity| over the frame
    own_max: vec3<f32>,
    has_own_box: u32,             // 1: own_min/own_max/max_angular_speed are valid
}

struct FrameParams {
    gravity: vec3<f32>,
    frame_start: f32,
    frame_period: f32,
    epsilon: f32,
    body_count: u32,
    pair_capacity: u32,
    override_count: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

struct StageAabb {
    min: vec3<f32>,
    motion: u32,
    max: vec3<f32>,
    pad: u32,
}

struct BoxOverride {
    aabb: StageAabb,
    body: u32,
    pad0: u32,
    pad1: u32,
    pad2: u32,
}

struct PairBound {
    a: u32,
    b: u32,
    distance_bound: f32,
    toi_bound: f32,
}
