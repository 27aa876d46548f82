"""What the lm-eval and Inspect adapters of CFLUE share, so that both hosts ask and score alike.

- Where the data comes from: a path argument, else ``$CFLUE_PATH``, else the shipped sample
  (40 questions this project wrote in the CFLUE schema: a smoke test, not CFLUE), said in a warning.
- Invalid records are logged with their count and reasons, and returned for the run's metadata.
- The options both hosts take: profile (``default``: answers read as a reader would; ``reference``: the CFLUE
  authors' extraction and metrics, comparable with the paper), prompt variant (``zero_shot`` / ``cot``),
  extraction mode (the profile's unless named), Best-of-N size, analysis metrics on or off.
- Scoring one question: the extracted answer, the majority vote over N responses, the analysis scores.

Importing is cheap (stdlib and the host-free core only); jieba loads when analysis metrics run.
"""

from __future__ import annotations

import hashlib
import logging
import os
from collections.abc import Iterable, Mapping, Sequence
from functools import lru_cache
from pathlib import Path
from typing import Any, NamedTuple

from finchain_tasks.cflue import prompts
from finchain_tasks.cflue.loader import ENV_VAR, SAMPLE_PATH, CflueData, CflueDataError, CflueRecord, load_cflue, select
from scorers.cflue.extract import INVALID, MODES, extract_answer
from scorers.cflue.reference import DEFAULT_PROFILE, PROFILES, check_profile
from scorers.cflue.vote import MajorityVote

logger = logging.getLogger("finchain_tasks.cflue")

TASK_VERSION = "1.1.0"
"""Bump when prompts, extraction or metrics change what a CFLUE score means."""
PROMPT_VARIANTS = ("zero_shot", "cot")
EXTRACT_MODES = MODES
DEFAULT_EXTRACT = None
"""None: the profile's reading (``default`` -> ``robust``, ``reference`` -> the authors' rule); ``strict`` and
``robust`` may be named under the default profile."""
PROFILE_EXTRACT = {"default": "robust", "reference": "reference"}
DEFAULT_BON_TEMPERATURE = 0.7
"""Sampling temperature when N > 1 and the user sets none: N greedy answers would all be the same."""
MAX_REPORTED_INVALID = 50
SAMPLE_NOTICE = ("CFLUE: no path given and {env} is unset, so the shipped sample is used: {path} holds 40 "
                 "questions written by this project in the CFLUE schema, NOT the official CFLUE data; scores "
                 "on it say nothing about CFLUE. Download the data and pass its path (see "
                 "finchain_tasks/cflue/README.md).")


class Source(NamedTuple):
    """The selected records and what the run should record about where they came from."""

    records: list[CflueRecord]
    info: dict[str, Any]


def resolve_path(path: str | os.PathLike | None) -> tuple[str, bool]:
    """``(source, is_sample)``: the argument, else ``$CFLUE_PATH``, else the shipped sample;
    ``is_sample`` also when the sample was named explicitly."""
    source = str(path).strip() if path is not None and str(path).strip() else os.environ.get(ENV_VAR, "").strip()
    if not source:
        return str(SAMPLE_PATH), True
    try:
        return source, Path(source).expanduser().resolve() == SAMPLE_PATH
    except OSError:
        return source, False


@lru_cache(maxsize=8)
def _load(source: str, stamp: tuple[int, int] | None) -> CflueData:
    """One load (and one warning about invalid records) per file version and process: lm-eval
    builds each question type's task separately from the same file."""
    data = load_cflue(source)
    if data.invalid:
        shown = "; ".join(f"record {i}: {reason}" for i, reason in data.invalid[:10])
        more = f" (and {len(data.invalid) - 10} more)" if len(data.invalid) > 10 else ""
        logger.warning("CFLUE: %d invalid record(s) in %s were not loaded: %s%s",
                       len(data.invalid), data.source, shown, more)
    return data


@lru_cache(maxsize=1)
def _sample_notice(path: str) -> None:
    logger.warning(SAMPLE_NOTICE.format(env=ENV_VAR, path=path))


def _stamp(source: str) -> tuple[int, int] | None:
    try:
        stat = Path(source).expanduser().stat()
    except OSError:
        return None
    return stat.st_mtime_ns, stat.st_size


def load_source(path: str | os.PathLike | None = None, *, types: Iterable[str] | None = None,
                exams: Iterable[str] | None = None) -> Source:
    """Load, validate and select; CflueDataError (the loader's message) when unusable or empty."""
    source, is_sample = resolve_path(path)
    if is_sample:
        _sample_notice(source)
    data = _load(source, _stamp(source))
    types, exams = (list(types) if types else None), (list(exams) if exams else None)
    try:
        records = select(data.records, types=types, exams=exams)
    except ValueError as exc:
        raise CflueDataError(str(exc)) from None
    if not data.records:
        first = f"; record {data.invalid[0][0]}: {data.invalid[0][1]}" if data.invalid else ""
        raise CflueDataError(f"{data.source}: no valid question ({len(data.invalid)} invalid record(s) dropped"
                             f"{first})")
    if not records:
        known = sorted({r.exam for r in data.records})
        raise CflueDataError(f"{data.source}: no question matches types={types} exams={exams} "
                             f"({len(data.records)} valid questions; exams present: {', '.join(known)})")
    info = {"source": data.source, "is_sample": is_sample, "n_valid": len(data.records),
            "n_selected": len(records), "types": types, "exams": exams, "n_invalid": len(data.invalid),
            "invalid": [{"index": i, "reason": r} for i, r in data.invalid[:MAX_REPORTED_INVALID]],
            "invalid_truncated": len(data.invalid) > MAX_REPORTED_INVALID}
    return Source(records, info)


def resolve_extract(extract: str | None, profile: str = DEFAULT_PROFILE) -> str:
    """The extraction mode a run uses: the one named, else the profile's. Under ``reference`` only the authors'
    rule is allowed (their figures depend on it)."""
    profile = check_profile(profile)
    mode = extract or PROFILE_EXTRACT[profile]
    if mode not in EXTRACT_MODES:
        raise ValueError(f"CFLUE extraction mode must be one of {EXTRACT_MODES}, got {extract!r}")
    if profile == "reference" and mode != "reference":
        raise ValueError(f"CFLUE profile=reference reads answers by the authors' rule; drop extract={extract!r}")
    return mode


def check_extract(extract: str | None, profile: str = DEFAULT_PROFILE) -> str:
    return resolve_extract(extract, profile)


def check_options(prompt: str, extract: str | None, n: Any, profile: str = DEFAULT_PROFILE) -> int:
    """Refuse unknown option values before any question is asked; returns N as an int."""
    if prompt not in PROMPT_VARIANTS:
        raise ValueError(f"CFLUE prompt variant must be one of {PROMPT_VARIANTS}, got {prompt!r}")
    resolve_extract(extract, profile)
    if isinstance(n, bool) or not str(n).strip().isdigit() or int(n) < 1:
        raise ValueError(f"CFLUE Best-of-N size must be a whole number >= 1, got {n!r}")
    return int(n)


def max_new_tokens(prompt: str) -> int:
    return prompts.COT_MAX_NEW_TOKENS if prompt == "cot" else prompts.MAX_NEW_TOKENS


def messages(record: CflueRecord, prompt: str) -> tuple[str, str]:
    """``(system, user)`` text of a record under a prompt variant."""
    return prompts.SYSTEM_PROMPT, prompts.record_prompt(record, cot=prompt == "cot")


def prompt_fingerprint() -> str:
    """12 hex digits over every prompt constant: two runs with the same value asked the same way."""
    return hashlib.sha256("\x00".join(prompts.prompt_texts()).encode("utf-8")).hexdigest()[:12]


def run_info(source: Source, prompt: str, extract: str, n: int, analysis: bool,
             profile: str = DEFAULT_PROFILE) -> dict[str, Any]:
    """What a result must carry to be read correctly: data source, profile, prompt, extraction, Best-of-N."""
    import finchain_tasks

    return {"package_version": finchain_tasks.__version__, "task_version": TASK_VERSION, "profile": profile,
            "cflue_profile": profile, "prompt_variant": prompt, "prompt_fingerprint": prompt_fingerprint(),
            "extract_mode": extract,
            "best_of_n": {"n": n, "selector": MajorityVote.name}, "analysis_metrics": analysis, **source.info}


def answer_of(response: str | None, choices: Mapping[str, str], extract: str) -> str:
    """The response's answer letters, or ``"X"`` (``extract`` None: the default profile's robust reading)."""
    return extract_answer(response, extract or PROFILE_EXTRACT[DEFAULT_PROFILE], choices=choices)


def vote(question_id: str, responses: Sequence[str], choices: Mapping[str, str], extract: str) -> tuple[int, list[str]]:
    """``(index of the kept response, extracted answer of each)`` under :class:`MajorityVote`,
    extracting with the question's options and the run's mode (the same reading that scores it)."""
    selector = MajorityVote(lambda _qid, text: answer_of(text, choices, extract))
    return selector.select(question_id, list(responses)), selector.answers(question_id, list(responses))


def analysis_reference(pairs: Sequence[tuple[str | None, str | None]]) -> dict[str, float]:
    """The ``reference`` profile's analysis metrics over every ``(reference, response)`` pair at once (the authors
    compute corpus BLEU), on 0–1 like the default's: BLEU-1/4 divided by 100."""
    from scorers.cflue.reference import knowledge_analysis

    out = knowledge_analysis(pairs)
    return {key: (out[key] / 100 if key.startswith("bleu") else out[key]) for key in ANALYSIS_KEYS}


def analysis_scores(reference: str | None, response: str | None) -> dict[str, float] | None:
    """BLEU-1/4 and ROUGE-1/2/L of the response's "解析" against the reference; None without one."""
    from scorers.cflue.metrics import extract_analysis, jieba_tokenize, text_scores

    if reference is None or not reference.strip():
        return None
    return text_scores(jieba_tokenize(extract_analysis(response)), jieba_tokenize(reference))


ANALYSIS_KEYS = ("bleu_1", "bleu_4", "rouge_1", "rouge_2", "rouge_l")

__all__ = ["DEFAULT_BON_TEMPERATURE", "DEFAULT_EXTRACT", "DEFAULT_PROFILE", "EXTRACT_MODES", "INVALID", "PROFILES",
           "PROMPT_VARIANTS", "analysis_reference", "resolve_extract",
           "TASK_VERSION", "CflueDataError", "Source", "analysis_scores", "answer_of", "check_extract", "check_options",
           "load_source", "max_new_tokens", "messages", "resolve_path", "run_info", "vote"]
