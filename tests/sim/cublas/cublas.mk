# tests/sim/cublas/: build fragment, owned by this part of the sim.
