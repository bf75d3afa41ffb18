#!/usr/bin/env python3
"""Writes the example meshes of scenes/meshes/ (no dependencies; run from anywhere):

- cube.stl        binary STL, a 100 mm cube centred on the origin (scale = 0.001 makes it 0.1 m)
- cube-ascii.stl  the same cube as ASCII STL
- l-bracket.obj   a closed L-shaped bracket, 60 x 40 x 60 mm, 10 mm thick (millimetres)
- dish.obj        an open spherical cap (radius of curvature 0.5 m, rim radius 0.2 m, metres),
                  its triangles facing up, rings of 6 i vertices for near-even triangles

Every triangle winds counter-clockwise seen from outside (for the dish: from above).
"""

import math
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))


def cube(half):
    """Vertices and outward triangles of a cube of half side `half`."""
    v = [(x, y, z) for z in (-half, half) for y in (-half, half) for x in (-half, half)]
    # Corner k has +half on axis i when bit i of k is set; each face as two triangles.
    quads = [
        (0, 2, 3, 1),  # -z
        (4, 5, 7, 6),  # +z
        (0, 1, 5, 4),  # -y
        (2, 6, 7, 3),  # +y
        (0, 4, 6, 2),  # -x
        (1, 3, 7, 5),  # +x
    ]
    tris = []
    for a, b, c, d in quads:
        tris += [(a, b, c), (a, c, d)]
    return v, tris


def normal(p, q, r):
    u = [q[i] - p[i] for i in range(3)]
    w = [r[i] - p[i] for i in range(3)]
    n = (u[1] * w[2] - u[2] * w[1], u[2] * w[0] - u[0] * w[2], u[0] * w[1] - u[1] * w[0])
    length = math.sqrt(sum(c * c for c in n)) or 1.0
    return tuple(c / length for c in n)


def write_binary_stl(path, v, tris):
    with open(path, "wb") as f:
        f.write(b"tumble example mesh".ljust(80, b" "))
        f.write(struct.pack("<I", len(tris)))
        for t in tris:
            p = [v[i] for i in t]
            f.write(struct.pack("<3f", *normal(*p)))
            for q in p:
                f.write(struct.pack("<3f", *q))
            f.write(struct.pack("<H", 0))


def write_ascii_stl(path, v, tris, name):
    with open(path, "w") as f:
        f.write(f"solid {name}\n")
        for t in tris:
            p = [v[i] for i in t]
            f.write("  facet normal {:g} {:g} {:g}\n    outer loop\n".format(*normal(*p)))
            for q in p:
                f.write("      vertex {:g} {:g} {:g}\n".format(*q))
            f.write("    endloop\n  endfacet\n")
        f.write(f"endsolid {name}\n")


def write_obj(path, v, tris, comment):
    with open(path, "w") as f:
        f.write(f"# {comment}\n")
        for p in v:
            f.write("v {:.6g} {:.6g} {:.6g}\n".format(*p))
        for t in tris:
            f.write("f {} {} {}\n".format(*(i + 1 for i in t)))


def l_bracket(leg=60.0, width=40.0, thick=10.0):
    """An L profile in the x-z plane extruded along y, closed, outward triangles."""
    profile = [(0, 0), (leg, 0), (leg, thick), (thick, thick), (thick, leg), (0, leg)]
    n = len(profile)
    # Centred on the origin along y so that the part is symmetric about y = 0.
    v = [(x, -width / 2, z) for x, z in profile] + [(x, width / 2, z) for x, z in profile]
    # The profile runs counter-clockwise seen from -y (x right, z up, looking along +y), so
    # the front cap (y = -w/2) takes it as is and the back cap reversed.
    front = [(0, 1, 2), (0, 2, 3), (0, 3, 4), (0, 4, 5)]
    tris = list(front) + [(n + a, n + c, n + b) for a, b, c in front]
    for i in range(n):
        j = (i + 1) % n
        tris += [(i, n + i, n + j), (i, n + j, j)]
    return v, tris


def dish(radius=0.5, rim=0.2, rings=6):
    """An open spherical cap of curvature `radius` with its lowest point at the origin and
    rim radius `rim`: ring i (i = 1..rings) has 6 i vertices at polar angle i/rings of the
    rim's; consecutive rings are stitched by walking both in angle. Triangles face up."""
    theta_max = math.asin(rim / radius)

    def point(theta, phi):
        s = radius * math.sin(theta)
        return (s * math.cos(phi), s * math.sin(phi), radius - radius * math.cos(theta))

    v = [(0.0, 0.0, 0.0)]
    ring_start = [0]
    ring_len = [1]
    for i in range(1, rings + 1):
        ring_start.append(len(v))
        ring_len.append(6 * i)
        for k in range(6 * i):
            v.append(point(theta_max * i / rings, 2 * math.pi * k / (6 * i)))
    tris = []
    for i in range(1, rings + 1):
        inner, n_in = ring_start[i - 1], ring_len[i - 1]
        outer, n_out = ring_start[i], ring_len[i]
        a = b = 0
        while a < n_in or b < n_out:
            # Advance the ring whose next vertex comes first in angle (the inner ring's single
            # centre vertex never advances).
            next_in = (a + 1) / n_in if n_in > 1 else 2.0
            next_out = (b + 1) / n_out
            ia, ib = inner + a % n_in, outer + b % n_out
            if b < n_out and (next_out <= next_in or a >= n_in):
                tris.append((ia, ib, outer + (b + 1) % n_out))
                b += 1
            else:
                tris.append((ia, ib, inner + (a + 1) % n_in))
                a += 1
            if n_in == 1 and b >= n_out:
                break
    return v, tris


def main():
    v, t = cube(50.0)
    write_binary_stl(os.path.join(HERE, "cube.stl"), v, t)
    write_ascii_stl(os.path.join(HERE, "cube-ascii.stl"), v, t, "cube")
    v, t = l_bracket()
    write_obj(os.path.join(HERE, "l-bracket.obj"), v, t, "L bracket, mm: 60 x 40 x 60, 10 thick")
    v, t = dish()
    write_obj(os.path.join(HERE, "dish.obj"), v, t, "open spherical cap, m: R 0.5, rim 0.2")


if __name__ == "__main__":
    main()
