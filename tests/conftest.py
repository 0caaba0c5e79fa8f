"""Test-wide settings: property tests draw the same examples on every run."""

from hypothesis import settings

# Deterministic (the house rule for tests) and no example database left behind.
settings.register_profile("deterministic", derandomize=True, database=None)
settings.load_profile("deterministic")
