//! The papers' experiments (scenes/experiments/), one module per experiment, each asserting
//! numbers against the paper or a closed form and printing its errors. With
//! `TUMBLE_WRITE_FIGURES=1` each also writes its trajectory plot to `docs/images/experiments/`.
#[path = "../common/mod.rs"]
mod common;

mod figure;
mod figure_st;
mod gallery;

mod block_on_block;
mod bowling;
mod bs_incline;
mod bs_small_funnel;
mod chain_of_balls;
mod coins;
mod dominos;
mod marbles;
mod newtons_cradle;
mod platter;
mod pool_break;
mod rattleback;
mod st_falling_rod;
mod st_four_balls;
mod tippe_top;
mod tippe_top_reference;
