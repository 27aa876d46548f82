"""FinChain for Inspect: the ``finchain`` task, the ``chaineval`` scorer and a ``litellm`` model provider.

Importing this package is cheap (nothing is imported here); Inspect loads the modules through
``finchain_tasks._registry``, the package's ``inspect_ai`` entry point.
"""
