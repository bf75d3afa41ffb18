mod figure_st;
