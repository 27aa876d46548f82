"""Scaling out on an existing distributed engine (Ray): never a home-made one.

:mod:`finchain_tasks.scale.ray_map` holds the Ray Data plumbing the per-row commands share (``finchain score``,
``bon --prm``, ``prm label``, ``prm select``); :mod:`finchain_tasks.scale.jobs` the per-row work of each;
:mod:`finchain_tasks.scale.ray_bench` spreads ``finchain bench`` over a cluster. Ray is imported lazily, only
when ``--ray`` is given (the ``ray`` extra), so the core never needs it. docs/scaling-out.md is the user's page.
"""
