"""Claims of each paper family, computed from the numbers a figure plots.

Each function takes the figure's tidy table (the CSV next to the figure) and the tolerances from
config, and returns ``claims.Claim`` verdicts. Tests feed each one a counterexample.
"""
