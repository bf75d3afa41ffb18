//! swept_aabb (pending).
