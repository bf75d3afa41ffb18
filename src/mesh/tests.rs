use super::*;

/// The unit cube's 8 corners (bit i of k: +1 on axis i) and its 12 outward triangles.
fn cube() -> (Vec<DVec3>, Vec<[u32; 3]>) {
    let v = (0..8)
        .map(|k| DVec3::new((k & 1) as f64, ((k >> 1) & 1) as f64, ((k >> 2) & 1) as f64))
        .collect();
    let quads = [
        [0, 2, 3, 1],
        [4, 5, 7, 6],
        [0, 1, 5, 4],
        [2, 6, 7, 3],
        [0, 4, 6, 2],
        [1, 3, 7, 5],
    ];
    let t = quads
        .iter()
        .flat_map(|q| [[q[0], q[1], q[2]], [q[0], q[2], q[3]]])
        .collect();
    (v, t)
}

/// Every triangle given its own three copies of its corners, as STL stores them.
fn unshared(v: &[DVec3], t: &[[u32; 3]]) -> (Vec<DVec3>, Vec<[u32; 3]>) {
    let points = t.iter().flat_map(|f| f.map(|i| v[i as usize])).collect();
    let faces = (0..t.len() as u32)
        .map(|k| [3 * k, 3 * k + 1, 3 * k + 2])
        .collect();
    (points, faces)
}

#[test]
fn welding_joins_equal_corners_and_finds_a_closed_cube() {
    let (v, t) = cube();
    let (points, faces) = unshared(&v, &t);
    let mesh = build(points, &faces, DVec3::splat(2.0), "cube").unwrap();
    assert_eq!(mesh.vertices.len(), 8);
    assert_eq!(mesh.triangles.len(), 12);
    assert!(mesh.closed(), "{:?}", mesh.open);
    assert!((signed_volume(&mesh) - 8.0).abs() < 1e-12);
}

#[test]
fn an_inward_cube_is_turned_outward() {
    let (v, t) = cube();
    let inward: Vec<[u32; 3]> = t.iter().map(|f| [f[0], f[2], f[1]]).collect();
    let mesh = build(v, &inward, DVec3::ONE, "cube").unwrap();
    assert!(mesh.closed());
    assert!((signed_volume(&mesh) - 1.0).abs() < 1e-12);
}

#[test]
fn open_non_manifold_and_mis_wound_meshes_are_not_closed() {
    let (v, t) = cube();
    let open = build(v.clone(), &t[..10], DVec3::ONE, "open").unwrap();
    let why = open.open.unwrap();
    assert!(why.contains("the mesh is open (4 border edges"), "{why}");
    let mut flipped = t.clone();
    flipped[0] = [t[0][0], t[0][2], t[0][1]];
    let why = build(v.clone(), &flipped, DVec3::ONE, "flipped")
        .unwrap()
        .open
        .unwrap();
    assert!(why.contains("not wound consistently"), "{why}");
    let mut extra = t.clone();
    extra.push(t[0]);
    let why = build(v, &extra, DVec3::ONE, "extra").unwrap().open.unwrap();
    assert!(why.contains("shared by"), "{why}");
}

#[test]
fn degenerate_triangles_are_dropped_and_empty_meshes_refused() {
    let v = vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::ZERO];
    // Triangle [0, 1, 3] repeats the origin once welded.
    let err = build(v.clone(), &[[0, 1, 3]], DVec3::ONE, "sliver").unwrap_err();
    assert!(err.contains("no triangles"), "{err}");
    let mesh = build(v, &[[0, 1, 2], [0, 1, 3]], DVec3::ONE, "one").unwrap();
    assert_eq!(mesh.triangles.len(), 1);
    assert_eq!(mesh.vertices.len(), 3);
    let nan = build(vec![DVec3::NAN; 3], &[[0, 1, 2]], DVec3::ONE, "nan").unwrap_err();
    assert!(nan.contains("not finite"), "{nan}");
}

#[test]
fn a_binary_stl_whose_header_starts_with_solid_is_read_as_binary() {
    let (v, t) = cube();
    let mut bytes = b"solid but binary".to_vec();
    bytes.resize(80, b' ');
    bytes.extend((t.len() as u32).to_le_bytes());
    for f in &t {
        bytes.extend([0f32; 3].iter().flat_map(|x| x.to_le_bytes()));
        for &i in f {
            let p = v[i as usize].as_vec3();
            bytes.extend(p.to_array().iter().flat_map(|x| x.to_le_bytes()));
        }
        bytes.extend([0u8, 0]);
    }
    let raw = read::read_stl_bytes(bytes).unwrap_or_else(|_| panic!("refused"));
    assert_eq!(raw.triangles.len(), 12);
    let mesh = build(raw.positions, &raw.triangles, DVec3::ONE, "stl").unwrap();
    assert!(mesh.closed() && mesh.vertices.len() == 8);
}

#[test]
fn hull_decomposition_and_triangles_are_built_and_checked() {
    let (v, t) = cube();
    let mesh = build(v, &t, DVec3::ONE, "cube").unwrap();
    let hull = collision(&mesh, &ConvexMode::Hull).unwrap();
    assert!(matches!(&hull, MeshCollision::Hull { vertices } if vertices.len() == 8));
    let pieces = collision(&mesh, &ConvexMode::Decompose(DecomposeParams::default())).unwrap();
    let MeshCollision::Decomposed { parts } = &pieces else {
        panic!("not decomposed")
    };
    assert!(!parts.is_empty());
    for c in [hull, pieces, MeshCollision::Triangles] {
        validate(&mesh, &c).unwrap();
    }
    let flat = build(
        vec![DVec3::ZERO, DVec3::X, DVec3::Y, DVec3::ONE.with_z(0.0)],
        &[[0, 1, 3], [0, 3, 2]],
        DVec3::ONE,
        "flat",
    )
    .unwrap();
    let (key, why) = collision(&flat, &ConvexMode::Hull).unwrap_err();
    assert_eq!(key, MeshKey::File);
    assert!(why.contains("span no volume"), "{why}");
    assert!(collision(&flat, &ConvexMode::None).is_ok());
}
