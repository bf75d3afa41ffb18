//! The papers' experiments (scenes/experiments/), one module per experiment, each asserting
//! numbers against the paper or a closed form and printing its errors.
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
mod st_falling_rod;
mod st_four_balls;
