"""The columns of the measures scan's raw output, shared by the kernel (scan_jit)
and the module that picks its build (scan_kernel), which must not import numba."""

SUMSQ, ENTROPY, WORST, PATTERNS, HIT, EST = range(6)
