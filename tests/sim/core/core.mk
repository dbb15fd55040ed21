# tests/sim/core/: build fragment, owned by this part of the sim.
