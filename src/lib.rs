//! # tumble — event-driven, impulse-based rigid-body simulation
//!
//! The data flow, one module per stage (Mirtich & Canny 1994, §3–§4):
//!
//! scene ([`scene`]) → world ([`world`]) → frame loop: sync bodies ([`ballistic`]) → swept boxes
//! ([`swept_aabb`]) → broad phase ([`hash_grid`]) → pair bounds ([`toi_bound`]) → event loop
//! ([`event_heap`], [`narrow_phase`]) → collision response ([`collision_impulse`]) → output
//! ([`output`]).
//!
//! The authoritative state is f64 on the host. The data-parallel frame stages also exist as WGSL
//! compute shaders ([`gpu`]) with CPU twins of the same name ([`stages`]).

pub mod ballistic;
pub mod batch;
pub mod bench;
pub mod body;
pub mod checkpoint;
pub mod collision_impulse;
pub mod compare;
pub mod constraint_row;
pub mod event_heap;
pub mod event_loop_allocations;
pub mod export;
pub mod flow;
pub mod geometry_guard;
pub mod gpu;
pub mod hash_grid;
pub mod joints;
pub mod kinematic_path;
pub mod lcp;
pub mod mass_properties;
pub mod material;
pub mod mesh;
pub mod narrow_phase;
pub mod output;
pub mod parquet_tables;
pub mod plural;
pub mod render;
pub mod resting_contact;
pub mod run_dir;
pub mod run_record;
pub mod scene;
pub mod shape;
pub mod simulation;
pub mod sorted_map;
pub mod stages;
pub mod swept_aabb;
pub mod tessellate;
pub mod toi_bound;
pub(crate) mod union_find;
pub mod view;
pub mod world;
