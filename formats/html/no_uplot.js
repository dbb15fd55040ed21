/* uPlot was not installed when cuprof was built (npm ci --prefix formats/html): no charts. */
