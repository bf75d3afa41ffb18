//! Hash maps in a checkpoint: written as their entries sorted by key, read back by inserting
//! them. A hash map's iteration order depends on its history (capacity, removals), so written
//! as it iterates, one state could make different files; sorted, the file depends on the
//! contents only. Nothing in the world reads a map in iteration order where that would change
//! a result (each is looked up by key, or retained, or copied into another map by key), so
//! the rebuilt map behaves as the original did.
//!
//! Used as `#[serde(with = "crate::sorted_map")]`; it imports nothing of the crate, so the
//! stores that use it need not import the checkpoint.

use serde::de::{Deserialize, Deserializer};
use serde::ser::{Serialize, Serializer};
use std::collections::HashMap;
use std::hash::{BuildHasher, Hash};

/// Writes `map` as a sequence of `(key, value)` entries in ascending key order.
pub fn serialize<K, V, H, S>(map: &HashMap<K, V, H>, serializer: S) -> Result<S::Ok, S::Error>
where
    K: Ord + Serialize,
    V: Serialize,
    S: Serializer,
{
    let mut entries: Vec<(&K, &V)> = map.iter().collect();
    entries.sort_unstable_by(|x, y| x.0.cmp(y.0));
    serializer.collect_seq(entries)
}

/// Reads a map written by [`serialize`] (a repeated key keeps its last value).
pub fn deserialize<'de, K, V, H, D>(deserializer: D) -> Result<HashMap<K, V, H>, D::Error>
where
    K: Eq + Hash + Deserialize<'de>,
    V: Deserialize<'de>,
    H: BuildHasher + Default,
    D: Deserializer<'de>,
{
    let entries = Vec::<(K, V)>::deserialize(deserializer)?;
    let mut map = HashMap::with_capacity_and_hasher(entries.len(), H::default());
    map.extend(entries);
    Ok(map)
}
