# tests/sim/cupti/: build fragment, owned by this part of the sim.
