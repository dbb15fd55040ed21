# tests/sim/cudart/: build fragment, owned by this part of the sim.
