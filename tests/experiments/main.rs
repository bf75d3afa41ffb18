mod bs_incline;
mod figure_st;
