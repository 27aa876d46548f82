"""The template catalogue and problems addressed the way the rest of the project addresses them:
``finchain/<domain>/<topic>/<template>/<seed>``, the id a leaderboard sample carries, so a sample on the
board opens the same case here."""

from __future__ import annotations

import inspect
import secrets
from dataclasses import dataclass
from urllib.parse import urlencode

from finchain_tasks.engine import all_templates
from finchain_tasks.engine.problem import Problem
from finchain_tasks.engine.registry import MAX_SEED
from finchain_tasks.explore import answers
from finchain_tasks.finchain.generate import FRESH_SEED_FLOOR

PREFIX = "finchain/"


@dataclass(frozen=True)
class Case:
    """What a permalink names: a problem, and optionally the model, profile, parameters, PRM and answer of
    a verdict (the answer travels as :mod:`.answers` says)."""

    template_id: str
    seed: int
    model: str = ""
    profile: str = "paper"
    params: str = ""
    prm: str = "calc"
    answer: str = ""

    @property
    def problem_id(self) -> str:
        return f"{PREFIX}{self.template_id}/{self.seed}"


def catalogue() -> dict[str, dict[str, list[tuple[str, str]]]]:
    """domain -> topic -> [(template name, level)], in the registry's stable order."""
    out: dict[str, dict[str, list[tuple[str, str]]]] = {}
    for t in all_templates().values():
        out.setdefault(t.domain, {}).setdefault(t.topic, []).append((t.name, t.level))
    return out


def template_ids(domain: str = "", topic: str = "", level: str = "") -> list[str]:
    """Template ids under the chosen domain and topic (empty = any), at the chosen level (empty = any)."""
    return [t.id for t in all_templates().values()
            if (not domain or t.domain == domain) and (not topic or t.topic == topic)
            and (not level or t.level == level)]


def parse_problem_id(problem_id: str) -> tuple[str, int]:
    """``finchain/<domain>/<topic>/<template>/<seed>`` (the prefix may be left out) -> (template id, seed)."""
    text = problem_id.strip()
    text = text[len(PREFIX):] if text.startswith(PREFIX) else text
    parts = text.split("/")
    if len(parts) != 4 or not parts[3].isdigit():
        raise ValueError(f"not a FinChain problem id: {problem_id[:120]!r} "
                         "(expected finchain/<domain>/<topic>/<template>/<seed>)")
    template_id = "/".join(parts[:3])
    if template_id not in all_templates():
        raise ValueError(f"no template {template_id!r}; `finchain list` shows them")
    return template_id, check_seed(parts[3])


def check_seed(seed: object) -> int:
    """A seed as the generator takes it, or a one-line error."""
    try:
        value = int(str(seed).strip())
    except ValueError:
        raise ValueError(f"a seed is a whole number in [0, {MAX_SEED}], got {str(seed)[:40]!r}") from None
    if not 0 <= value <= MAX_SEED:
        raise ValueError(f"a seed is a whole number in [0, {MAX_SEED}], got {value}")
    return value


def fresh_seed() -> int:
    """An unseen seed, outside the canonical split (as ``finchain generate --fresh`` draws them)."""
    return FRESH_SEED_FLOOR + secrets.randbelow(MAX_SEED - FRESH_SEED_FLOOR + 1)


def load(template_id: str, seed: int) -> Problem:
    if template_id not in all_templates():
        raise ValueError(f"no template {template_id!r}; `finchain list` shows them")
    return all_templates()[template_id].generate(check_seed(seed))


def source_of(template_id: str) -> str:
    """The template's Python source: what a reader checks the question and the steps against."""
    return inspect.getsource(all_templates()[template_id].fn)


def permalink(base_url: str, case: Case) -> str:
    """The address that reopens ``case``: problem id, model, profile, parameters, PRM and answer in the
    query string (each only when it is not the default)."""
    query = {"problem": case.problem_id, "profile": case.profile}
    if case.model:
        query["model"] = case.model
    if case.params.strip():
        query["params"] = case.params.strip()
    if case.prm.strip() != "calc":
        query["prm"] = case.prm.strip()
    query.update(answers.to_query(case.answer))
    return f"{base_url.rstrip('/')}/?{urlencode(query)}"


def case_from_query(query: dict[str, str]) -> Case | None:
    """The case a permalink's query names; None when it names none. Bad values raise one-line errors."""
    problem = query.get("problem") or query.get("id")
    if not problem:
        return None
    template_id, seed = parse_problem_id(problem)
    profile = query.get("profile") or "paper"
    return Case(template_id, seed, model=query.get("model", "")[:200], profile=profile,
                params=query.get("params", "")[:500], prm=query.get("prm", "calc")[:200],
                answer=answers.from_query(query))
