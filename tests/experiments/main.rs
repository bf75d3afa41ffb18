mod bs_incline;
mod figure_st;
mod newtons_cradle;
mod st_falling_rod;
mod st_four_balls;
