# collector/: build fragment (included by the top Makefile). Filled in by its owner.
