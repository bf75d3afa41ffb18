//! ballistic (pending).
