"""The game's numba kernels, apart from the Python that uses them: the one-pass scan
of every guess over a candidate set (scan_kernel: compiled ahead of time like the
search's, numba's jit as the fallback; its columns in scan_columns, its jitted body
in scan_jit), the objective wins' search of a set with three guesses left
(wins_kernel, in the same compiled module; its jitted body in wins_jit) and the
adversary's kernels (adversary_jit). The search's own kernels
are solver/search/kernels.py and its neighbours."""
