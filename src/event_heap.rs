//! event_heap (pending).
