// tumble render: one vertex buffer holds every body's mesh in its own frame, each vertex tagged
// with its body; a storage buffer holds each body's model matrix and colour for the frame. Two
// passes: depth from the light (shadow map), then the shaded picture with 3x3 PCF shadows.

struct Globals {
    view_proj: mat4x4<f32>,
    light_view_proj: mat4x4<f32>,
    // xyz: direction towards the light (unit); w: shadow-map texel size in uv.
    light_dir: vec4<f32>,
    // xyz: the camera's eye; w: grid spacing (m).
    eye: vec4<f32>,
};

struct Instance {
    model: mat4x4<f32>,
    // rgb: colour; a: 0 lit, 1 lit with the floor grid, 2 unlit (contact arrows).
    colour: vec4<f32>,
};

@group(0) @binding(0) var<uniform> g: Globals;
@group(0) @binding(1) var<storage, read> instances: array<Instance>;
@group(1) @binding(0) var shadow_map: texture_depth_2d;
@group(1) @binding(1) var shadow_sampler: sampler_comparison;

struct VsIn {
    @location(0) position: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) body: u32,
};

struct VsOut {
    @builtin(position) clip: vec4<f32>,
    @location(0) world: vec3<f32>,
    @location(1) normal: vec3<f32>,
    @location(2) @interpolate(flat) body: u32,
};

@vertex
fn vs_shadow(v: VsIn) -> @builtin(position) vec4<f32> {
    let m = instances[v.body].model;
    return g.light_view_proj * (m * vec4<f32>(v.position, 1.0));
}

@vertex
fn vs_main(v: VsIn) -> VsOut {
    let m = instances[v.body].model;
    let world = m * vec4<f32>(v.position, 1.0);
    var out: VsOut;
    out.clip = g.view_proj * world;
    out.world = world.xyz;
    // Rigid motions only: the model's rotation turns normals too.
    out.normal = (m * vec4<f32>(v.normal, 0.0)).xyz;
    out.body = v.body;
    return out;
}

// Fraction of light reaching `world` (1 lit, 0 in shadow), averaged over 3x3 texels.
fn lit_fraction(world: vec3<f32>, n: vec3<f32>) -> f32 {
    // A slope-scaled offset along the normal keeps surfaces from shadowing themselves.
    let texel = g.light_dir.w;
    let p = g.light_view_proj * vec4<f32>(world + n * texel * 2.0, 1.0);
    let ndc = p.xyz / p.w;
    let uv = vec2<f32>(ndc.x * 0.5 + 0.5, 0.5 - ndc.y * 0.5);
    if (uv.x < 0.0 || uv.x > 1.0 || uv.y < 0.0 || uv.y > 1.0 || ndc.z > 1.0) {
        return 1.0;
    }
    var sum = 0.0;
    for (var i = -1; i <= 1; i++) {
        for (var j = -1; j <= 1; j++) {
            let o = vec2<f32>(f32(i), f32(j)) * texel;
            sum += textureSampleCompareLevel(shadow_map, shadow_sampler, uv + o, ndc.z - 0.002);
        }
    }
    return sum / 9.0;
}

// Anti-aliased grid lines on the world's x-y plane: 0 off a line, 1 on one.
fn grid(world: vec3<f32>, spacing: f32) -> f32 {
    let c = world.xy / spacing;
    let w = fwidth(c);
    let d = abs(fract(c - 0.5) - 0.5) / max(w, vec2<f32>(1e-6));
    return 1.0 - min(min(d.x, d.y), 1.0);
}

@fragment
fn fs_main(v: VsOut) -> @location(0) vec4<f32> {
    let inst = instances[v.body];
    let base = inst.colour.rgb;
    if (inst.colour.a > 1.5) {
        return vec4<f32>(base, 1.0);
    }
    var n = normalize(v.normal);
    let to_eye = normalize(g.eye.xyz - v.world);
    // Back faces (inside a hollow fixture) are shaded from the side the camera sees.
    if (dot(n, to_eye) < 0.0) {
        n = -n;
    }
    let l = g.light_dir.xyz;
    let diffuse = max(dot(n, l), 0.0) * lit_fraction(v.world, n);
    // Hemisphere ambient: sky from above (+z), ground bounce from below.
    let ambient = mix(vec3<f32>(0.32, 0.30, 0.28), vec3<f32>(0.55, 0.60, 0.68), n.z * 0.5 + 0.5);
    let h = normalize(l + to_eye);
    let specular = pow(max(dot(n, h), 0.0), 48.0) * 0.25 * diffuse;
    var colour = base * (ambient + vec3<f32>(0.85, 0.82, 0.78) * diffuse) + vec3<f32>(specular);
    if (inst.colour.a > 0.5 && n.z > 0.95) {
        colour = mix(colour, colour * 0.55, grid(v.world, g.eye.w));
    }
    return vec4<f32>(colour, 1.0);
}
