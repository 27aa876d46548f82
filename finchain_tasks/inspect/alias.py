"""The short name: ``inspect eval finchain`` as well as ``inspect eval finchain_tasks/finchain``.

Inspect resolves a name without a package prefix only among objects registered under exactly that
name, and offers no public API to add one: a package's objects are registered as
``<package>/<name>``. Inspect does load every installed plugin's entry point (our ``_registry``)
before it resolves task names (``platform_init`` -> hooks -> ``ensure_entry_points()``), so this
module adds the bare key to Inspect's private registry table (``inspect_ai._util.registry``),
pointing at the *same* task object. Because the object is the same, a run started as ``finchain``
is logged as ``finchain_tasks/finchain``: reports never see two names for one task.

Guarded: if Inspect's internals change (the table or key function is missing, or the lookup does
not return our task afterwards), or another package already owns the bare name, nothing is
registered and a warning says to use the full name. It never raises: an exception here would stop
Inspect from loading the rest of our registry.
"""

from __future__ import annotations

import logging

logger = logging.getLogger(__name__)

BARE_NAMES = {"finchain": "finchain_tasks/finchain", "cflue": "finchain_tasks/cflue",
              "cflue_application": "finchain_tasks/cflue_application"}
"""Short task name -> full registry name."""


def register_bare_names() -> list[str]:
    """Register every short name that can be registered safely; return those registered."""
    try:
        from inspect_ai._util import registry as inspect_registry

        table, key, lookup = inspect_registry._registry, inspect_registry.registry_key, inspect_registry.registry_lookup
        if not isinstance(table, dict):
            raise TypeError(f"registry table is a {type(table).__name__}, not a dict")
    except Exception as exc:  # any change in Inspect's private API
        logger.warning("finchain-tasks: this Inspect version does not allow the short task name (%s); "
                       "use `inspect eval finchain_tasks/finchain`", exc)
        return []
    return [bare for bare, full in BARE_NAMES.items() if _register(table, key, lookup, bare, full)]


def _register(table: dict, key, lookup, bare: str, full: str) -> bool:
    try:
        target = table.get(key("task", full)) or _ours(table.get(key("task", bare)))
        if target is None:
            raise LookupError(f"{full} is not registered")
        for name in (bare, full):
            if not _claim(table, key, lookup, name, target):
                return False
        return True
    except Exception as exc:
        logger.warning("finchain-tasks: could not register the short task name %r (%s); use `inspect eval %s`",
                       bare, exc, full)
        return False


def _ours(obj: object) -> object | None:
    """Our task registered under its bare name: Inspect did not see the package as installed.

    That happens when a stale ``finchain_tasks.egg-info`` (written into a source checkout by
    ``pip install -e``) precedes the installed metadata on ``sys.path``; then the full name is
    the one to add.
    """
    return obj if obj is not None and getattr(obj, "__module__", "").startswith("finchain_tasks.") else None


def _claim(table: dict, key, lookup, name: str, target: object) -> bool:
    owner = table.get(key("task", name))
    if owner is not None and owner is not target:
        logger.warning("finchain-tasks: another package already registers the task name %r; "
                       "use `inspect eval finchain_tasks/finchain`", name)
        return False
    table[key("task", name)] = target
    if lookup("task", name) is not target:
        table.pop(key("task", name), None)
        raise LookupError(f"registry lookup of {name!r} does not return our task")
    return True
