"""Template registration and discovery.

A template module lives at ``finchain_tasks/templates/<domain>/<topic>.py``; its functions are
decorated with :func:`template`, which reads the domain and topic from the module path, so the
folder names alone lead a newcomer to any template. An advanced template's docstring ends with a
``Concepts: a; b; c.`` paragraph naming the concepts it combines; :attr:`Template.concepts` reads it and
``finchain list`` shows it.
"""

from __future__ import annotations

import importlib
import pkgutil
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from functools import lru_cache

from finchain_tasks.engine.builder import Builder, Redraw, TemplateError
from finchain_tasks.engine.problem import LEVELS, Problem

MAX_SEED = 2**32 - 1
MAX_DRAWS = 1_000
"""How many times ``b.require`` may reject a seed's draw before the template is declared broken."""
_PACKAGE = "finchain_tasks.templates"
_REGISTERED: dict[str, Template] = {}
CONCEPTS_PREFIX = "Concepts:"


@dataclass(frozen=True, slots=True)
class Template:
    """A registered template: where it sits in the taxonomy, its level, and its body."""

    domain: str
    topic: str
    name: str
    level: str
    fn: Callable[[Builder], None]
    key: int
    floor: float = 0.0
    """Every numeric answer satisfies |answer| > floor (the verifier checks it)."""

    @property
    def id(self) -> str:
        return f"{self.domain}/{self.topic}/{self.name}"

    @property
    def summary(self) -> str:
        return (self.fn.__doc__ or "").strip().splitlines()[0] if self.fn.__doc__ else ""

    @property
    def concepts(self) -> tuple[str, ...]:
        """The concepts the template combines, read from the ``Concepts: a; b; c.`` paragraph of its docstring.

        Every advanced template declares one (TEMPLATES.md: an advanced question combines several
        concepts), so a reader of ``finchain list --level advanced`` sees what each one exercises.
        """
        for paragraph in (self.fn.__doc__ or "").split("\n\n"):
            text = " ".join(paragraph.split())
            if text.startswith(CONCEPTS_PREFIX):
                items = text[len(CONCEPTS_PREFIX):].rstrip(". ").split(";")
                return tuple(item.strip() for item in items if item.strip())
        return ()

    def generate(self, seed: int) -> Problem:
        """The problem for ``seed``; the same seed always gives the same problem."""
        return self.draw(seed)[0]

    def draw(self, seed: int) -> tuple[Problem, list[str]]:
        """The problem for ``seed`` and the ``require`` reasons of the draws it rejected first.

        Attempt 0 uses the generator seeded by the template key plus the seed; attempt k > 0 a
        generator seeded by the text ``"<key+seed>/<k>"``: both are deterministic in any process.
        """
        if not 0 <= seed <= MAX_SEED:
            raise ValueError(f"seed must be in [0, {MAX_SEED}], got {seed}")
        rejected: list[str] = []
        for attempt in range(MAX_DRAWS):
            b = Builder(self.key + seed if attempt == 0 else f"{self.key + seed}/{attempt}")
            try:
                self.fn(b)
            except Redraw as why:
                rejected.append(why.why)
                continue
            if b.question is None or not b.steps:
                raise TemplateError(f"template {self.id} wrote no question or no steps")
            problem = Problem(self.domain, self.topic, self.name, self.level, seed, b.question,
                              b.params, b.displays, tuple(b.steps), tuple(b.declared),
                              dict(b.companies), dict(b.signed_names))
            return problem, rejected
        raise TemplateError(f"template {self.id}, seed {seed}: no draw in {MAX_DRAWS} met "
                            f"require({rejected[-1]!r})")


def template(level: str, floor: float = 0.0) -> Callable[[Callable[[Builder], None]], Callable[[Builder], None]]:
    """Register a template function at ``level`` (easy, intermediate or advanced).

    ``floor`` declares how far from zero every numeric answer stays (|answer| > floor): a relative
    tolerance means nothing near zero, so a template whose answer can be small says how small.
    """
    if level not in LEVELS:
        raise TemplateError(f"level must be one of {LEVELS}, got {level!r}")
    if not (isinstance(floor, (int, float)) and floor >= 0 and floor == floor and floor != float("inf")):
        raise TemplateError(f"floor must be a finite number >= 0, got {floor!r}")

    def register(fn: Callable[[Builder], None]) -> Callable[[Builder], None]:
        parts = fn.__module__.split(".")
        if parts[:2] != _PACKAGE.split(".") or len(parts) != 4:
            raise TemplateError(f"{fn.__module__}.{fn.__name__}: templates live in {_PACKAGE}.<domain>.<topic>")
        domain, topic = parts[2], parts[3]
        tid = f"{domain}/{topic}/{fn.__name__}"
        key = zlib.crc32(tid.encode()) << 32
        _REGISTERED[tid] = Template(domain, topic, fn.__name__, level, fn, key, float(floor))
        return fn

    return register


@lru_cache(maxsize=1)
def _load_all() -> dict[str, Template]:
    package = importlib.import_module(_PACKAGE)
    for info in pkgutil.walk_packages(package.__path__, prefix=f"{_PACKAGE}."):
        importlib.import_module(info.name)
    return dict(sorted(_REGISTERED.items()))


def all_templates() -> dict[str, Template]:
    """Every registered template, keyed by ``domain/topic/name``, in a stable order."""
    return _load_all()


def select(
    domains: Iterable[str] = (), topics: Iterable[str] = (), levels: Iterable[str] = (),
    templates: Iterable[str] = (),
) -> list[Template]:
    """Templates matching every non-empty filter; unknown filter values raise ``ValueError``."""
    from finchain_tasks.finchain.taxonomy import domains as taxonomy_domains

    allt = all_templates().values()
    wanted = {"domain": set(domains), "topic": set(topics), "level": set(levels), "template": set(templates)}
    known = {
        "domain": set(taxonomy_domains()),
        "topic": {t.id for d in taxonomy_domains().values() for t in d.topics},
        "level": set(LEVELS),
        "template": {t.name for t in allt} | {t.id for t in allt},
    }
    for kind, values in wanted.items():
        unknown = values - known[kind]
        if unknown:
            raise ValueError(f"unknown {kind} {sorted(unknown)}; known: {', '.join(sorted(known[kind]))}")
    return [
        t for t in allt
        if (not wanted["domain"] or t.domain in wanted["domain"])
        and (not wanted["topic"] or t.topic in wanted["topic"])
        and (not wanted["level"] or t.level in wanted["level"])
        and (not wanted["template"] or t.name in wanted["template"] or t.id in wanted["template"])
    ]


def get(template_id: str) -> Template:
    try:
        return all_templates()[template_id]
    except KeyError:
        raise ValueError(f"no template {template_id!r}; see `finchain list`") from None
