//! The Mirtich & Canny validation gallery: one module per experiment of scenes/experiments/.
mod figure;
mod gallery;

mod block_on_block;
mod bowling;
mod chain_of_balls;
mod coins;
mod dominos;
mod marbles;
mod platter;
