"""finchain-tasks: verifiable financial reasoning benchmarks for lm-eval and Inspect.

Importing this package is cheap on purpose: Inspect imports every plugin's registry on every run.
"""

__version__ = "0.1.0"
