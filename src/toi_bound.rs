//! toi_bound (pending).
