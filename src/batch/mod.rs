//! `tumble batch`: stable-pose statistics over many drops of one part (Mirtich 1996, §2.4).

pub mod plot;
pub mod poses;
