mod bs_incline;
mod bs_small_funnel;
mod figure_st;
mod newtons_cradle;
mod pool_break;
mod st_falling_rod;
mod st_four_balls;
