// Thread indexing shared by the stages. One GPU thread handles one item `ix` (one call of the CPU
// twin's `<stage>_one(ix, ...)`). Dispatches wider than the 65 535-workgroup limit of one
// dimension are folded into y; keep in sync with `dispatch_size` in src/gpu/mod.rs.

const WG_SIZE: u32 = 64u;

fn thread_index(gid: vec3<u32>, nwg: vec3<u32>) -> u32 {
    return gid.x + gid.y * nwg.x * WG_SIZE;
}
