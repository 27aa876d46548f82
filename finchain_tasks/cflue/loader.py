"""Load CFLUE knowledge questions from the official record schema, validating every record.

The official files (the development split ``data/knowledge/knowledge.json`` of aliyun/cflue, or the
full ModelScope release ``tongyi_dianjin/CFLUE``) are a JSON list of records::

    {"名称": "<exam>", "task": "单项选择题" | "多项选择题" | "判断题", "question": "...",
     "choices": "{'A': '...', 'B': '...'}", "answer": "ABD", "analysis": "..." | null}

``choices`` is a *string* holding a Python dict literal. Records come from files we did not write,
so that string is parsed syntactically and checked to be a dict of single letters to string
constants *before* :func:`ast.literal_eval` sees it; nothing in a record is ever executed.

Bad records are reported, never silently dropped: :func:`load_cflue` returns the valid records
together with ``(index, reason)`` for every invalid one (``strict=True`` raises on the first). A
file that cannot be read or parsed is one :class:`CflueDataError` naming the file and the line.

Hostile records stay records: a depth bomb in ``choices`` (``not not … 1``, ``----…1``) is refused by a
flat token scan before any parser recurses, JSON nested deeper than Python's stack is split into its
top-level records without recursion, and a 100k-digit number becomes a reason, not a ValueError. Each
such record is listed with its index and the load goes on with the others.
"""

from __future__ import annotations

import ast
import hashlib
import json
import os
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, NamedTuple

from finchain_tasks.plumbing.jsonl import jsonl_lines

SINGLE = "单项选择题"
MULTI = "多项选择题"
TRUE_FALSE = "判断题"
QUESTION_TYPES: dict[str, str] = {SINGLE: "single_choice", MULTI: "multiple_choice", TRUE_FALSE: "true_false"}
"""The three official question types, with the English slug used in metadata."""

REQUIRED_FIELDS = ("名称", "task", "question", "choices", "answer", "analysis")
"""Every record carries all six keys; ``analysis`` may be null (211 of the 3,864 dev questions)."""

MAX_MULTI_LETTERS = 5
MAX_CHOICES_CHARS = 20_000
"""A choices string longer than this is not a list of options; refuse before parsing it."""
MAX_RECORD_DEPTH = 16
"""A record is a flat object of strings; a value nested deeper than this is refused without walking it."""
MAX_INT_DIGITS = 100
"""An integer literal longer than this in a CFLUE file is no answer or option: the record is refused
(Python itself refuses to convert one of more than 4,300 digits, with a ValueError that would end the load)."""

ENV_VAR = "CFLUE_PATH"
SAMPLE_PATH = Path(__file__).resolve().parent.parent / "data" / "cflue" / "sample.json"
"""Questions the project wrote itself in the official schema (not CFLUE data): demos and tests."""

_HUB_ID = re.compile(r"^[A-Za-z0-9][\w.-]*/[\w.-]+$")
_OFFLINE_VARS = ("HF_HUB_OFFLINE", "HF_DATASETS_OFFLINE")
_ANSWER_SEPARATORS = re.compile(r"[\s、,，;；/]+")


class CflueDataError(ValueError):
    """The CFLUE source cannot be used: missing, unparseable, or (with ``strict``) an invalid record."""


@dataclass(frozen=True)
class CflueRecord:
    """One validated question. ``answer`` is sorted upper-case letters, all among ``choices``."""

    id: str
    index: int
    exam: str
    task: str
    question: str
    choices: dict[str, str]
    answer: str
    analysis: str | None

    @property
    def type_slug(self) -> str:
        return QUESTION_TYPES[self.task]

    @property
    def valid_letters(self) -> str:
        """The option letters of this question, e.g. ``"ABCD"``: what answer extraction may return."""
        return "".join(sorted(self.choices))

    def metadata(self) -> dict[str, Any]:
        return {"exam": self.exam, "type": self.task, "type_slug": self.type_slug, "index": self.index,
                "valid_letters": self.valid_letters, "has_analysis": self.analysis is not None}

    def to_dict(self) -> dict[str, Any]:
        return {"id": self.id, "index": self.index, "exam": self.exam, "task": self.task,
                "question": self.question, "choices": dict(self.choices), "answer": self.answer,
                "analysis": self.analysis}


class CflueData(NamedTuple):
    """What :func:`load_cflue` returns: the valid records and ``(index, reason)`` for the others."""

    records: list[CflueRecord]
    invalid: list[tuple[int, str]]
    source: str


def record_id(index: int, question: str) -> str:
    """``cflue/<index>-<hash>``: the index keeps ids short and ordered, the hash of the question text
    makes a silently reordered or edited file visible (the same index then gets a different id)."""
    digest = hashlib.sha256(question.encode("utf-8")).hexdigest()[:8]
    return f"cflue/{index}-{digest}"


def parse_choices(text: Any) -> dict[str, str]:
    """The choices dict from its string form, without executing anything.

    The string must be one dict display whose keys and values are plain string literals. It is read
    by a flat scan of Python tokens that stops at the first token that does not fit (so a depth bomb
    such as ``not not … 1`` or ``----…1`` costs one token, where :func:`ast.parse` would recurse until
    the stack or memory gives out); each string literal alone then goes to :func:`ast.literal_eval`.
    A real dict (as some converted copies store it) is checked the same way. Raises ValueError.
    """
    if isinstance(text, Mapping):
        choices = dict(text)
    elif isinstance(text, str):
        if len(text) > MAX_CHOICES_CHARS:
            raise ValueError(f"choices string is longer than {MAX_CHOICES_CHARS} characters")
        if "\x00" in text:  # Python's parser raises SyntaxError (not ValueError) on it, which ended the load
            raise ValueError("choices holds a NUL character")
        choices = _scan_dict_literal(text.strip())
    else:
        raise ValueError(f"choices must be a string holding a dict literal, not {type(text).__name__}")
    _check_choices(choices)
    return dict(sorted(choices.items()))


_NOT_A_DICT = "choices is not a Python dict literal"
_NOT_STRINGS = "choices must map letters to plain strings (found a non-string or an expression)"


_STR = r"""(?:'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")"""
_PAIR = rf"{_STR}\s*:\s*{_STR}\s*"
_FLAT_DICT = re.compile(rf"\{{\s*(?:{_PAIR},\s*)*(?:{_PAIR})?\}}")
"""A flat dict display of plain one-line string literals: the shape of (nearly) every real record. Nothing in
it can nest, so Python's own parser reads it safely and fast; anything else goes to the token scan. Each run
of spaces can be taken by exactly one part of the pattern, so a failing match backtracks in linear time."""


def _scan_dict_literal(text: str) -> dict[str, str]:
    """``{'A': 'x', 'B': "y"}`` -> dict. The common flat shape goes to :func:`ast.parse` (C, fast, and safe
    because the regex admits no nesting); anything else to a token state machine:
    ``{`` (string ``:`` string+ ``,``?)* ``}``, which stops at the first token that does not fit."""
    if _FLAT_DICT.fullmatch(text):
        try:
            node = ast.parse(text, mode="eval").body
        except (SyntaxError, ValueError):  # e.g. a malformed escape: the scan below names it
            return _scan_tokens(text)
        if isinstance(node, ast.Dict) and all(isinstance(k, ast.Constant) for k in node.keys):
            keys = [k.value for k in node.keys]  # type: ignore[union-attr]
            if len(set(keys)) == len(keys):
                return dict(zip(keys, (v.value for v in node.values)))  # type: ignore[union-attr]
    return _scan_tokens(text)


_GAP = re.compile(r"(?:[ \t\f\r\n]|\\\r?\n|#[^\r\n]*)*")
"""What Python skips between tokens inside braces: spaces, line breaks, comments, backslash continuations."""
_LITERAL = re.compile(r"""[rRuU]?(?:''''(?:[^'\\]|\\.|'(?!''))*''''|\"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\""""
                      r"""|'(?:[^'\\\r\n]|\\.)*'|"(?:[^"\\\r\n]|\\.)*")""", re.S)
"""One plain string literal (short or triple-quoted, optional r/u prefix). Each alternative consumes a character
in exactly one way, so a match (or a failed one, such as an unclosed string) costs time linear in its length."""
_WORD = re.compile(r"\w+|\S")


def _scan_tokens(text: str) -> dict[str, str]:
    """The state machine of :func:`_scan_dict_literal` for every shape but the flat one:
    ``{`` (string ``:`` string+ ``,``?)* ``}``, read by a few anchored regexes in one left-to-right pass (linear
    time: Python's ``tokenize`` was quadratic on runs of comment lines), stopping at the first thing that does
    not fit."""
    pos = _GAP.match(text).end()
    if not text.startswith("{", pos):
        lead = _WORD.match(text, pos)
        found = repr(lead.group()[:20]) if lead else "nothing"
        raise ValueError(f"choices is not a dict literal (it starts with {found})")
    choices: dict[str, str] = {}
    pos = _GAP.match(text, pos + 1).end()
    while not text.startswith("}", pos):
        key, pos = _string_run(text, pos, "key")
        if not text.startswith(":", pos):
            raise ValueError(f"{_NOT_A_DICT} (expected ':' after key {key!r})")
        value, pos = _string_run(text, _GAP.match(text, pos + 1).end(), "value")
        if key in choices:
            raise ValueError(f"choices names the key {key!r} twice")
        choices[key] = value
        if text.startswith(",", pos):
            pos = _GAP.match(text, pos + 1).end()
        elif not text.startswith("}", pos):
            found = _WORD.match(text, pos)
            if found is None:
                raise ValueError(f"{_NOT_A_DICT} (unclosed brace or string)")
            raise ValueError(f"{_NOT_A_DICT} (expected ',' or '}}', found {found.group()[:20]!r})")
    if _GAP.match(text, pos + 1).end() != len(text):
        raise ValueError(f"{_NOT_A_DICT} (text after the closing brace)")
    return choices


def _string_run(text: str, pos: int, what: str) -> tuple[str, int]:
    """One string literal at ``pos`` (adjacent literals concatenate, as in Python) and the position after it."""
    parts = []
    while match := _LITERAL.match(text, pos):
        parts.append(match.group())
        pos = _GAP.match(text, match.end()).end()
    if not parts:
        if pos >= len(text) or text[pos] in "'\"" or text[pos:pos + 2].lstrip("rRuU")[:1] in ("'", '"'):
            raise ValueError(f"{_NOT_A_DICT} (unclosed brace or string)")
        raise ValueError(_NOT_STRINGS if what == "value" else f"{_NOT_A_DICT} (a key is not a string)")
    try:
        value = ast.literal_eval(" ".join(parts))  # string literals only: nothing to execute, nothing nested
    except (SyntaxError, ValueError):  # e.g. a malformed \N{...} or \x escape
        raise ValueError(f"{_NOT_A_DICT} (a string literal Python cannot read)") from None
    if not isinstance(value, str):  # pragma: no cover - the prefixes allowed exclude bytes
        raise ValueError(_NOT_STRINGS)
    return value, pos


def _check_choices(choices: dict) -> None:
    if len(choices) < 2:
        raise ValueError(f"choices has {len(choices)} option(s); a question needs at least 2")
    for key, value in choices.items():
        if not (isinstance(key, str) and len(key) == 1 and "A" <= key <= "Z"):
            raise ValueError(f"choice key {key!r} is not a single upper-case letter")
        if not isinstance(value, str):
            raise ValueError(f"choice {key} is not a string")
        _check_unicode(value, f"choice {key}")


_SURROGATE = re.compile("[\ud800-\udfff]")


def _check_unicode(text: str, where: str) -> None:
    """Refuse a lone surrogate (JSON's ``"\\ud800"`` or a literal's ``'\\ud800'`` decode to one): it is not
    text, cannot be written as UTF-8, and would fail later, far from the record that holds it."""
    found = _SURROGATE.search(text)
    if found:
        raise ValueError(f"{where} holds a lone surrogate (U+{ord(found.group()):04X}), which is not valid Unicode")


def normalize_answer(answer: Any, task: str, choices: Mapping[str, str]) -> str:
    """Sorted, de-duplicated upper-case letters, checked against the type and the option letters."""
    if not isinstance(answer, str):
        raise ValueError(f"answer must be a string of letters, not {type(answer).__name__}")
    letters = _ANSWER_SEPARATORS.sub("", answer).upper()
    if not letters:
        raise ValueError("answer is empty")
    if not letters.isascii() or not letters.isalpha():
        raise ValueError(f"answer {answer!r} is not option letters")
    unknown = sorted(set(letters) - set(choices))
    if unknown:
        raise ValueError(f"answer letter(s) {''.join(unknown)} not among the choices {''.join(sorted(choices))}")
    norm = "".join(sorted(set(letters)))
    if task in (SINGLE, TRUE_FALSE) and len(norm) != 1:
        raise ValueError(f"a {task} has exactly one answer letter, got {answer!r}")
    if task == MULTI and len(norm) > MAX_MULTI_LETTERS:
        raise ValueError(f"a {MULTI} has 1-{MAX_MULTI_LETTERS} answer letters, got {answer!r}")
    return norm


def _text_field(row: Mapping, key: str) -> str:
    value = row[key]
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"field {key!r} must be a non-empty string")
    return value.strip()


class _Rejected(NamedTuple):
    """A record refused while reading (invalid JSON, nested past the stack), kept in its place so that it
    is counted, indexed and reported like any other invalid record."""

    reason: str


class _LongInt(NamedTuple):
    """Stands for an integer literal of more than :data:`MAX_INT_DIGITS` digits, never converted."""

    digits: int


def _parse_int(text: str) -> int | _LongInt:
    return int(text) if len(text.lstrip("-")) <= MAX_INT_DIGITS else _LongInt(len(text.lstrip("-")))


def _loads(text: str) -> Any:
    """json.loads that leaves giant integers unconverted (a :class:`_LongInt`), so one cannot end the load."""
    return json.loads(text, parse_int=_parse_int)


def _check_shape(row: Mapping) -> None:
    """Refuse a record holding a giant integer, a lone surrogate or a value nested past :data:`MAX_RECORD_DEPTH`,
    by an iterative walk (no recursion, so no depth can overflow it)."""
    for key, top in row.items():
        _check_unicode(str(key), f"field name {str(key)[:40]!r}")
        stack: list[tuple[Any, int]] = [(top, 1)]
        while stack:
            value, depth = stack.pop()
            if isinstance(value, str):
                _check_unicode(value, f"field {str(key)[:40]!r}")
            if isinstance(value, _LongInt):
                raise ValueError(f"field {str(key)[:40]!r} holds a number of {value.digits} digits")
            if isinstance(value, (list, dict)):
                if depth >= MAX_RECORD_DEPTH:
                    raise ValueError(f"field {str(key)[:40]!r} is nested more than {MAX_RECORD_DEPTH} levels deep")
                stack.extend((v, depth + 1) for v in (value.values() if isinstance(value, dict) else value))
                if isinstance(value, dict):
                    stack.extend((k, depth + 1) for k in value if isinstance(k, str))


def checked_object(row: Any, required: Iterable[str]) -> Mapping:
    """A raw record as a JSON object with every ``required`` field, or ValueError saying why not.

    Shared by both CFLUE halves: the reader has already turned bombs into ``_Rejected`` and huge
    numbers into ``_LongInt``, so this only names them."""
    if isinstance(row, _Rejected):
        raise ValueError(row.reason)
    if isinstance(row, _LongInt):
        raise ValueError(f"record is a number of {row.digits} digits, not a JSON object")
    if not isinstance(row, Mapping):
        raise ValueError(f"record is a {type(row).__name__}, not a JSON object")
    _check_shape(row)
    missing = [k for k in required if k not in row]
    if missing:
        raise ValueError(f"missing field(s) {', '.join(missing)}")
    return row


def validate_record(row: Any, index: int) -> CflueRecord:
    """One raw record -> :class:`CflueRecord`, or ValueError saying what is wrong with it."""
    checked_object(row, REQUIRED_FIELDS)
    task = _text_field(row, "task")
    if task not in QUESTION_TYPES:
        raise ValueError(f"unknown question type {task!r} (expected one of {', '.join(QUESTION_TYPES)})")
    question = _text_field(row, "question")
    choices = parse_choices(row["choices"])
    if task == TRUE_FALSE and sorted(choices) != ["A", "B"]:
        raise ValueError(f"a {TRUE_FALSE} has exactly the options A and B (e.g. {{'A': '对', 'B': '错'}})")
    answer = normalize_answer(row["answer"], task, choices)
    analysis = row["analysis"]
    if analysis is not None and not isinstance(analysis, str):
        raise ValueError("field 'analysis' must be a string or null")
    if isinstance(analysis, str) and not analysis.strip():
        analysis = None  # an empty analysis is no analysis: the text metrics skip it like null
    return CflueRecord(id=record_id(index, question), index=index, exam=_text_field(row, "名称"), task=task,
                       question=question, choices=choices, answer=answer, analysis=analysis)


def validate_rows(rows: Iterable[Any], source: str, *, strict: bool = False,
                  lines: Sequence[int] | None = None) -> CflueData:
    """Validate raw rows (from a file or a hub dataset); ``lines`` gives JSONL line numbers for messages."""
    records: list[CflueRecord] = []
    invalid: list[tuple[int, str]] = []
    for index, row in enumerate(rows):
        try:
            records.append(validate_record(row, index))
        except ValueError as exc:
            where = f"line {lines[index]}: " if lines is not None else ""
            reason = f"{where}{exc}"
            if strict:
                raise CflueDataError(f"{source}: record {index}: {reason}") from None
            invalid.append((index, reason))
    return CflueData(records, invalid, source)


def read_rows(path: Path) -> tuple[list[Any], list[int] | None]:
    """Raw rows of a JSON list or JSONL file (and the JSONL line of each row), or CflueDataError.

    A row that cannot be read (an invalid JSONL line, a list element nested past the parser's stack)
    stays in the list as a rejected row, so it is reported with its index and the others still load."""
    from finchain_tasks.plumbing.safe_files import UnreadableFile, read_bytes

    try:  # a regular file only: a FIFO or a link to a device is refused without blocking
        text = read_bytes(path).decode("utf-8-sig")
    except UnreadableFile as exc:
        raise CflueDataError(f"{path}: cannot read CFLUE file ({exc.reason})") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise CflueDataError(f"{path}: cannot read CFLUE file ({exc})") from None
    if path.suffix.lower() in (".jsonl", ".ndjson"):
        return _read_jsonl(path, text)
    if not text.lstrip().startswith("["):
        try:  # a .json holding one object is a wrong layout, not a one-line JSONL file
            whole = _loads(text)
        except (json.JSONDecodeError, RecursionError):
            return _read_jsonl(path, text)
        raise CflueDataError(f"{path}: expected a JSON list of records (or JSONL), found a {type(whole).__name__}")
    try:
        rows = _loads(text)
    except json.JSONDecodeError as exc:
        raise CflueDataError(f"{path}: invalid JSON at line {exc.lineno}, column {exc.colno}: {exc.msg}") from None
    except RecursionError:  # some element is nested past the stack: read the list element by element
        rows = _split_list(path, text)
    return rows, None


_JSON_TOKEN = re.compile(r'"(?:[^"\\]++|\\.)*+"|[\[\]{},"]', re.DOTALL)
"""A whole string (possessive: one that never closes fails in one pass, no backtracking), a bracket, a comma,
or a lone opening quote (a string that never closes)."""


def _split_list(path: Path, text: str) -> list[Any]:
    """The elements of a top-level JSON list, each parsed on its own; one nested past the stack (or
    otherwise unreadable) becomes a rejected row. Brackets are counted by one left-to-right scan that
    steps over strings, reading each character once (linear in the file: a scan that retried every
    quote as a string's start was quadratic in a run of escaped quotes); no depth can make it recurse."""
    start = text.index("[") + 1
    rows: list[Any] = []
    depth, element_start = 1, start
    for match in _JSON_TOKEN.finditer(text, start):
        token = match.group()
        if token == '"':
            line = text.count("\n", 0, match.start()) + 1
            raise CflueDataError(f"{path}: invalid JSON: a string opened on line {line} is never closed")
        if token in "[{":
            depth += 1
        elif token in "]}":
            depth -= 1
        if depth == 0 or (depth == 1 and token == ","):
            piece = text[element_start:match.start()]
            if piece.strip() or token == ",":
                rows.append(_element(piece))
            element_start = match.end()
            if depth == 0:
                if text[element_start:].strip():
                    raise CflueDataError(f"{path}: invalid JSON: text after the closing ']'")
                return rows
    raise CflueDataError(f"{path}: invalid JSON: the list is never closed")


def _element(piece: str) -> Any:
    try:
        return _loads(piece)
    except RecursionError:
        return _Rejected("nested too deeply to read (a JSON depth bomb)")
    except json.JSONDecodeError as exc:
        return _Rejected(f"not valid JSON: {exc.msg}")


def _read_jsonl(path: Path, text: str) -> tuple[list[Any], list[int]]:
    rows, lines = [], []
    for lineno, line in jsonl_lines(text):  # not splitlines(): U+2028 or NEL inside a record's text (33.1)
        try:
            rows.append(_loads(line))
        except json.JSONDecodeError as exc:
            rows.append(_Rejected(f"not valid JSON: {exc.msg}"))
        except RecursionError:
            rows.append(_Rejected("nested too deeply to read (a JSON depth bomb)"))
        lines.append(lineno)
    if not rows:
        raise CflueDataError(f"{path}: no records (expected a JSON list or JSONL)")
    return rows, lines


def looks_like_hub_id(source: str) -> bool:
    """``owner/name`` with no file suffix: a ModelScope/Hugging Face dataset id, not a local path."""
    return bool(_HUB_ID.match(source)) and Path(source).suffix.lower() not in (".json", ".jsonl", ".ndjson")


def _offline() -> bool:
    return any(os.environ.get(v, "").strip().lower() in ("1", "true", "yes", "on") for v in _OFFLINE_VARS)


def _hub_rows(source: str, split: str | None) -> list[Any]:
    """Rows of a hub dataset through ``datasets`` (imported only here), or one clear CflueDataError."""
    advice = (f"download the CFLUE file (e.g. data/knowledge/knowledge.json of github.com/aliyun/cflue, or the "
              f"ModelScope release tongyi_dianjin/CFLUE) and pass its local path, or set {ENV_VAR}")
    if _offline():
        raise CflueDataError(f"{source}: not a local file, and hub datasets cannot be fetched offline: {advice}")
    try:
        import datasets
    except ImportError:
        raise CflueDataError(f"{source}: not a local file, and `datasets` is not installed: {advice}") from None
    try:
        loaded = datasets.load_dataset(source, split=split)
    except Exception as exc:  # network, auth, unknown id: all end the same way for the user
        raise CflueDataError(f"{source}: not a local file, and loading it as a hub dataset failed "
                             f"({type(exc).__name__}: {exc}): {advice}") from None
    if isinstance(loaded, Mapping):
        if len(loaded) != 1:
            raise CflueDataError(f"{source}: choose a split with split=... (available: {', '.join(loaded)})")
        loaded = next(iter(loaded.values()))
    return list(loaded)


def load_cflue(source: str | os.PathLike | None = None, *, strict: bool = False, split: str | None = None) -> CflueData:
    """Load and validate CFLUE questions.

    ``source`` is a local JSON list / JSONL file, or (when no such file exists and it looks like
    ``owner/name``) a hub dataset id read through ``datasets`` when online; default: ``$CFLUE_PATH``.
    Returns :class:`CflueData`; invalid records are listed in ``.invalid`` as ``(index, reason)``,
    or with ``strict=True`` the first one raises CflueDataError naming the file and record index.
    """
    if source is None:
        source = os.environ.get(ENV_VAR, "").strip() or None
    if source is None:
        raise CflueDataError(f"no CFLUE data given: pass a path or set {ENV_VAR} (see finchain_tasks/cflue/README.md)")
    path = Path(source).expanduser()
    if path.is_file():
        rows, lines = read_rows(path)
        return validate_rows(rows, str(path), strict=strict, lines=lines)
    if path.exists():
        raise CflueDataError(f"{path}: not a file (pass the JSON/JSONL file itself)")
    if looks_like_hub_id(str(source)):
        return validate_rows(_hub_rows(str(source), split), str(source), strict=strict)
    raise CflueDataError(f"{path}: CFLUE file not found (pass an existing JSON/JSONL file or set {ENV_VAR})")


def select(records: Iterable[CflueRecord], *, types: Iterable[str] | None = None,
           exams: Iterable[str] | None = None) -> list[CflueRecord]:
    """Records of the given question types (Chinese name or slug) and exams; None keeps all."""
    wanted_types = None
    if types is not None:
        slugs = {v: k for k, v in QUESTION_TYPES.items()}
        wanted_types = {slugs.get(t, t) for t in types}
        unknown = wanted_types - set(QUESTION_TYPES)
        if unknown:
            raise ValueError(f"unknown question type(s) {sorted(unknown)}; known: {[*QUESTION_TYPES, *slugs]}")
    wanted_exams = set(exams) if exams is not None else None
    return [r for r in records if (wanted_types is None or r.task in wanted_types)
            and (wanted_exams is None or r.exam in wanted_exams)]
