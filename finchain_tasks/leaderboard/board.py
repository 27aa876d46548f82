"""A leaderboard definition: ``leaderboards/<name>.yaml``.

One file says what a board shows (tasks, metrics in order, the ChainEval profile it expects), which models
(registry names, a registry leaderboard's list, or categories), where to read results (``sources``), which
reported figures to show beside them, and how the statistics are computed. The registry stays the one
source of facts about models; the board only selects."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

REPO_BOARDS = Path(__file__).resolve().parents[2] / "leaderboards"
"""The boards of a source checkout (the top-level ``leaderboards/`` folder: links to the packaged ones)."""
PACKAGE_BOARDS = Path(__file__).resolve().parents[1] / "data" / "leaderboards"
"""The boards the wheel ships (package data), found after ``./leaderboards`` and a checkout's folder."""
TASKS = ("finchain", "cflue", "cflue_application")
METRICS = ("chaineval", "fac", "fac_strict", "step_f1", "precision", "recall", "parse_ok", "no_error",
           "err_1", "err_2", "err_3", "err_4plus", "accuracy", "invalid_strict", "invalid_robust", "f1", "rouge_l",
           "sentence_bleu")
_KEYS = {"name", "title", "description", "tasks", "metrics", "profile", "models", "sources", "reported",
         "statistics"}
_STAT_KEYS = {"resamples", "seed", "confidence", "alpha", "correction", "min_shared", "min_overlap"}


class BoardError(ValueError):
    """A board file that cannot be used; the message is one line naming the file and the field."""


@dataclass(frozen=True)
class Statistics:
    """How intervals and tests are computed (see :mod:`finchain_tasks.leaderboard.stats`)."""

    resamples: int = 2000
    seed: int = 0
    confidence: float = 0.95
    alpha: float = 0.05
    correction: str = "holm"
    min_shared: int = 2
    """Two rows sharing fewer clusters (templates, exams) than this are "not comparable", never "tied"."""
    min_overlap: float = 0.5
    """... nor when the clusters they share are under this fraction of either row's own clusters."""


@dataclass(frozen=True)
class Board:
    name: str
    title: str
    tasks: tuple[str, ...] = ("finchain",)
    metrics: tuple[str, ...] = ("chaineval", "fac", "fac_strict", "step_f1")
    profile: str = "paper"
    models: dict[str, Any] = field(default_factory=dict)
    sources: tuple[str, ...] = ()
    reported: tuple[str, ...] = ()
    description: str = ""
    statistics: Statistics = field(default_factory=Statistics)
    path: Optional[Path] = None

    @property
    def primary(self) -> str:
        """The metric that orders the table and decides the tie groups: the first one listed."""
        return self.metrics[0]

    @property
    def shipped(self) -> bool:
        """A board the package ships (read from the installed package, or through a checkout's
        ``leaderboards/`` links to the same files), not one the user wrote."""
        return self.path is not None and self.path.resolve().parent == PACKAGE_BOARDS

    def source_paths(self) -> list[Path]:
        """The sources as paths: relative ones against the board file's folder. A shipped board resolves them
        as if it sat in ``./leaderboards`` of the working directory (``../finchain-runs`` is ``./finchain-runs``,
        where ``finchain eval`` writes), never inside site-packages or a checkout, and whether or not
        ``./leaderboards`` exists (the path is joined as text, not walked through that folder)."""
        given = [Path(s).expanduser() for s in self.sources]
        if not self.shipped:
            base = self.path.parent if self.path else Path.cwd()
            return [p if p.is_absolute() else base / p for p in given]
        return [p if p.is_absolute() else Path(os.path.normpath(Path.cwd() / "leaderboards" / p)) for p in given]

    def where_sources_are_read(self) -> str:
        """One line for an error: the folders the sources were looked for in, and why there."""
        looked = ", ".join(str(p) for p in self.source_paths()) or "none listed"
        why = (" (a shipped board reads its relative sources from the working directory)" if self.shipped
               else f" (relative to {self.path.parent})" if self.path else "")
        return f"looked in {looked}{why}"


def find_board(name_or_path: str) -> Path:
    """A board file: a path to a YAML file, else ``./leaderboards/<name>.yaml``, else the checkout's, else the
    installed package's."""
    direct = Path(name_or_path)
    if direct.suffix in (".yaml", ".yml") and direct.is_file():
        return direct
    for folder in (Path.cwd() / "leaderboards", REPO_BOARDS, PACKAGE_BOARDS):
        candidate = folder / f"{name_or_path}.yaml"
        if candidate.is_file():
            return candidate
    raise BoardError(f"no board {name_or_path!r}: give a YAML file or a name under ./leaderboards/")


def _tuple(raw: dict, key: str, default: tuple, allowed: Optional[tuple] = None, where: str = "") -> tuple:
    value = raw.get(key, default)
    value = [value] if isinstance(value, str) else value
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise BoardError(f"{where}: {key}: expected a list of names")
    unknown = [v for v in value if allowed is not None and v not in allowed]
    if unknown:
        raise BoardError(f"{where}: {key}: unknown {', '.join(unknown)} (known: {', '.join(allowed or ())})")
    return tuple(value)


def _models(raw: Any, where: str) -> dict[str, Any]:
    """``[names]`` or ``{names: [...], leaderboard: <registry board>, categories: [...]}``; empty: every model."""
    if raw is None:
        return {}
    if isinstance(raw, list):
        raw = {"names": raw}
    if not isinstance(raw, dict) or set(raw) - {"names", "leaderboard", "categories"}:
        raise BoardError(f"{where}: models: expected a list of names or names/leaderboard/categories")
    return dict(raw)


_STAT_RULES: dict[str, tuple[type, float, float, bool, bool]] = {
    "resamples": (int, 100, 100_000, True, True),
    "seed": (int, 0, 2**32 - 1, True, True),
    "confidence": (float, 0.0, 1.0, False, False),
    "alpha": (float, 0.0, 1.0, False, False),
    "min_shared": (int, 2, 1_000_000, True, True),
    "min_overlap": (float, 0.0, 1.0, False, True),
}
"""field -> (type, low, high, low included, high included). The bounds keep a board file from asking for what
no board means and a machine cannot do (a trillion resamples is an 87 TiB allocation; numpy's seeds are
unsigned 32-bit words here)."""


def _bounds(low: float, high: float, low_in: bool, high_in: bool) -> str:
    return f"{'[' if low_in else '('}{low:,}, {high:,}{']' if high_in else ')'}"


def _statistics(raw: Any, where: str) -> Statistics:
    """The board's ``statistics``, every field typed and within :data:`_STAT_RULES`; else one line naming it."""
    if raw is None:
        return Statistics()
    if not isinstance(raw, dict):
        raise BoardError(f"{where}: statistics: expected a mapping, got {type(raw).__name__}")
    for key, value in raw.items():
        if key not in _STAT_KEYS:
            raise BoardError(f"{where}: statistics: unknown field {str(key)[:40]!r} (known: "
                             f"{', '.join(sorted(_STAT_KEYS))})")
        if key == "correction":
            if value not in ("holm", "none"):
                raise BoardError(f"{where}: statistics: correction: holm or none, got {str(value)[:40]!r}")
            continue
        kind, low, high, low_in, high_in = _STAT_RULES[key]
        typed = isinstance(value, int) if kind is int else isinstance(value, (int, float))
        if isinstance(value, bool) or not typed:
            raise BoardError(f"{where}: statistics: {key}: expected {'a whole number' if kind is int else 'a number'}"
                             f", got {str(value)[:40]!r}")
        inside = (low <= value if low_in else low < value) and (value <= high if high_in else value < high)
        if not inside:  # NaN fails both comparisons
            raise BoardError(f"{where}: statistics: {key}: {str(value)[:40]} is outside "
                             f"{_bounds(low, high, low_in, high_in)}")
    return Statistics(**raw)


def parse_board(raw: Any, where: str, path: Optional[Path] = None) -> Board:
    """A :class:`Board` from parsed YAML; any unknown or ill-typed field is a one-line :class:`BoardError`."""
    if not isinstance(raw, dict):
        raise BoardError(f"{where}: expected a mapping")
    unknown = set(raw) - _KEYS
    if unknown:
        raise BoardError(f"{where}: unknown field(s) {', '.join(sorted(unknown))}")
    statistics = _statistics(raw.get("statistics"), where)
    name = str(raw.get("name") or (path.stem if path else ""))
    if not name:
        raise BoardError(f"{where}: name: missing")
    return Board(
        name=name, title=str(raw.get("title") or name), description=str(raw.get("description") or ""),
        tasks=_tuple(raw, "tasks", ("finchain",), TASKS, where),
        metrics=_tuple(raw, "metrics", ("chaineval", "fac", "fac_strict", "step_f1"), METRICS, where),
        profile=str(raw.get("profile") or "paper"), models=_models(raw.get("models"), where),
        sources=_tuple(raw, "sources", (), None, where), reported=_tuple(raw, "reported", (), None, where),
        statistics=statistics, path=path)


def load_board(name_or_path: str) -> Board:
    """Read a board by name (``leaderboards/<name>.yaml``) or path."""
    from finchain_tasks.models.registry import RegistryError, _read_yaml

    path = find_board(name_or_path)
    try:  # the registry's loader: no aliases (a few hundred bytes of them expand to gigabytes), no deep nesting
        raw = _read_yaml(path, str(path))
    except RegistryError as exc:
        raise BoardError(str(exc).replace("in a registry", "in a board")) from None
    return parse_board(raw, str(path), path)


def selected_models(board: Board, registry: Any, found: list[str]) -> list[str]:
    """The models of ``found`` (names seen in the sources) the board shows: its names, its registry
    leaderboard's list and its categories together; a board that selects nothing shows every model found."""
    sel = board.models
    if not sel:
        return list(found)
    names = set(sel.get("names") or [])
    if sel.get("leaderboard"):
        boards = getattr(registry, "leaderboards", {})
        if sel["leaderboard"] not in boards:
            raise BoardError(f"{board.name}: models: no registry leaderboard {sel['leaderboard']!r}")
        names |= set(boards[sel["leaderboard"]].models)
    categories = set(sel.get("categories") or [])
    models = getattr(registry, "models", {})
    return [m for m in found if m in names or (m in models and models[m].category in categories)]
