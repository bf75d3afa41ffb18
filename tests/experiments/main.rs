mod bs_incline;
mod figure_st;
mod newtons_cradle;
mod pool_break;
mod st_falling_rod;
mod st_four_balls;
