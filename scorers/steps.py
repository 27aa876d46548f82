"""Splitting a model's answer into reasoning steps and finding its final answer.

Pipeline (:func:`parse_output`), every stage linear in the input and none of them raising:

1. Reasoning blocks ``<think>…</think>`` / ``<thinking>…</thinking>`` (any case) are cut out into
   ``ParsedOutput.reasoning``. An opening tag that is never closed makes everything after it
   reasoning (a truncated thought has no visible answer); a closing tag with no opening tag before
   it (chat templates that put ``<think>`` in the prompt) makes everything before it reasoning.
2. Simple HTML (``<br>``, ``<p>``, ``<li>``, ``<b>``, ``<sup>``) and LaTeX are normalised
   (:func:`scorers.numbers.normalize`: ``$…$``/``\\(…\\)`` delimiters dropped, align ``\\\\`` becomes a
   line break, ``&=`` becomes ``=``).
3. Final-answer lines are found and removed from the text (they are not steps): a line that opens
   with ``Final answer``/``Answer``/``The answer is``/``答案`` (after markup such as ``**`` or ``###``
   and a connective such as ``Therefore,``), a heading ``**Final Answer**`` together with the line
   under it, and a line holding only ``\\boxed{…}``. Mid-line ``… the answer is X`` and
   ``\\boxed{X}`` inside a step also count as answers but keep their step. The last one wins.
4. Markdown tables become one paragraph per data row (``Header: cell; …``); header and ``|---|``
   rows go. Horizontal rules go.
5. The first rule that fits segments the rest: ``step_markers`` (``Step 1:``, ``**Step 2.**``,
   ``### Step 3``, ``Step 3 -``, ``STEP 4)``, also ``… . Step 2: …`` mid-line), ``numbered_list``
   (``1.``, ``1)``, ``(1)``; at least two items), ``bullets`` (``-``, ``*``, ``•``; at least two; of a
   numbered list and a bullet list the less indented one wins), ``headings`` (``## Title`` or whole
   bold lines; at least two), ``ordinal_words`` (``First, … Then, … Finally, …``: at least two cues,
   one of them ``First``/``To begin``), ``paragraphs`` (blank-line separated; at least two), else
   ``lines``. With a marker rule, text before the first marker is a preamble and is dropped; text
   after the last marker stays with the last step.
   Before stage 2, a visible text longer than :data:`MAX_READ_CHARS` is read as its first and last half
   of that, joined by a blank line (its steps and its final answer; nothing a scorer reads lies in the
   middle of a 128,000-character output), so every later stage costs a bounded time per output.
6. Markers are stripped, steps with no letter or digit are dropped, at most 200 steps are kept
   (the tail is merged into the 200th) and each is cut to 2,000 characters, so a hostile output
   cannot blow up the O(n·m) alignment downstream.

   An output that is only an answer (``#### 24\nThe answer is: 24``) keeps its answer line as its one
   step (rule ``answer_only``): ChainEval can then pair it with one gold step at most (recall at most
   1/n) instead of scoring an empty chain 0 while fac reads the answer.

Final answer: the last explicit answer (step 3); its number is the whole answer read as a number,
else the first number after its last ``=``/``≈``, else the quantity its sentence states
(:func:`scorers.answers.conclusion_value`: after ``is``, never a duration, threshold, date or "for
every $1"); an answer whose clause names no number ("the final answer is the Gross Profit, which is
$50,521") is read to the end of its sentence. A bare answer takes the scale word the output wrote the
same figure with ("$17 million ... The answer is: 17" is 17 million). Without an explicit answer,
the final answer is the quantity the last step with a number concludes with, read the same way.
Categorical answers keep their text (``"Project A"``, ``"Yes"``) with no number;
``ParsedOutput.conclusion`` keeps the sentence a categorical answer is looked for in.
"""

from __future__ import annotations

import re
from collections import deque
from dataclasses import dataclass
from typing import NamedTuple

from scorers.answers import conclusion_value, reconcile_scale, reconcile_sign
from scorers.numbers import Number, concluding_value, find_numbers, normalize, parse_number, strip_step_marker

__all__ = ["MAX_READ_CHARS", "MAX_STEP_CHARS", "MAX_STEPS", "ParsedOutput", "PredStep", "extract_final_answer",
           "parse_output", "segment", "valid_text"]

MAX_STEPS = 200
MAX_STEP_CHARS = 2000
MAX_READ_CHARS = 128_000
"""The visible text read at most (its first and last half): about 32,000 tokens, beyond the longest answer a
registry model may write (max_model_len 16,384); a megabyte of hostile text would otherwise take seconds per
output (benchmarks/fuzz_scorer.py)."""


@dataclass(frozen=True, slots=True)
class PredStep:
    """One predicted step: its text (marker removed) and the value it concludes with."""

    text: str
    value: Number | None


@dataclass(frozen=True, slots=True)
class ParsedOutput:
    """A model output read as steps, a final answer and the reasoning that was set aside."""

    steps: tuple[PredStep, ...]
    final_answer: Number | None
    final_answer_text: str
    reasoning: str
    segmentation: str
    conclusion: str = ""
    """The text the answer was read from (the answer line, else the last step with a number, else the
    last step): where a categorical or yes/no answer written in a sentence is looked for."""
    stated: str = ""
    """When the answer is a bare number on an answer line ("#### 9817 / The answer is: 9817"): the output's
    last step with words before it, where it stated its verdict or its results. A reader reads a verdict
    there when the question asked yes/no, and both results there when it asked for two quantities."""


# ---------------------------------------------------------------------------------------------
# Stage 1-2: reasoning blocks, HTML, LaTeX.

_THINK_OPEN = re.compile(r"<[ \t]*think(?:ing)?[ \t]*>", re.I)
_THINK_CLOSE = re.compile(r"<[ \t]*/[ \t]*think(?:ing)?[ \t]*>", re.I)
_HTML = re.compile(r"<(/?)[ \t]*(br|p|div|li|ul|ol|b|strong|i|em|sup|sub|span|code|pre|h[1-6]|table|tr|td|th|"
                   r"tbody|thead|script|style)\b[^<>]{0,200}>", re.I)
_HTML_REPLACE = {"br": "\n", "p": "\n\n", "div": "\n", "li": "\n- ", "b": "**", "strong": "**", "sup": "^",
                 "tr": "\n", "td": " | ", "th": " | ", "h": "\n\n"}


def _split_reasoning(text: str) -> tuple[str, str]:
    """(visible text, reasoning) with ``<think>`` blocks moved out; linear even if tags never close."""
    thoughts, visible, pos = [], [], 0
    first_close, first_open = _THINK_CLOSE.search(text), _THINK_OPEN.search(text)
    if first_close and (first_open is None or first_close.start() < first_open.start()):
        thoughts.append(text[:first_close.start()])
        pos = first_close.end()
    while True:
        opening = _THINK_OPEN.search(text, pos)
        if opening is None:
            visible.append(text[pos:])
            break
        visible.append(text[pos:opening.start()])
        closing = _THINK_CLOSE.search(text, opening.end())
        if closing is None:
            thoughts.append(text[opening.end():])
            break
        thoughts.append(text[opening.end():closing.start()])
        pos = closing.end()
    return "".join(visible), "\n\n".join(t.strip() for t in thoughts if t.strip())


def _html(m: re.Match) -> str:
    name = m.group(2).lower()
    if m.group(1):  # a closing tag
        return {"b": "**", "strong": "**", "p": "\n\n", "div": "\n", "li": "\n"}.get(name, "")
    return _HTML_REPLACE.get(name[0] if name[0] == "h" and len(name) == 2 else name, "")


def _prepare(text: str) -> tuple[str, str]:
    if not isinstance(text, str):
        text = "" if text is None else str(text)
    visible, reasoning = _split_reasoning(text)
    if len(visible) > MAX_READ_CHARS:
        half = MAX_READ_CHARS // 2
        visible = f"{visible[:half]}\n\n{visible[-half:]}"
    return normalize(_HTML.sub(_html, visible)), reasoning


# ---------------------------------------------------------------------------------------------
# Stage 3: the final answer.

_LEAD = re.compile(r"[ \t>#*_]*(?:(?i:therefore|thus|so|hence|in\s+conclusion|in\s+summary|overall)\b|所以|因此|故"
                   r"|综上所述?)?[ \t,，:]*[*_]*[ \t]*(?i:the[ \t]+)?")
_CUE = re.compile(r"(?<![A-Za-z])(?:(?i:final[ \t]+answer|answer)|最终答案|答案)")
_SEP = re.compile(r"(?:[ \t]*(?:\*\*|__))?[ \t]*(?:(?i:is|was|would[ \t]+be|will[ \t]+be|should[ \t]+be)(?![A-Za-z])"
                  r"|[:：=]|是|为|為)[ \t]*(?:\*\*|__)?[ \t]*[:：]?[ \t]*")
_ONLY_MARKUP = re.compile(r"[\s*_:：#.]*")
_BOXED = re.compile(r"\\boxed\s*\{((?:[^{}]|\{[^{}]*\})*)\}")
_SENTENCE_END = re.compile(r"[.;](?=\s)|。|；|,\s+(?=[a-z])")
_MAX_ANSWER_CHARS = 300
_MAX_CANDIDATE = 2000


@dataclass(frozen=True, slots=True)
class _Answer:
    key: tuple[int, int]  # (line, column): the last one wins
    text: str
    removes: tuple[int, ...]


def _next_line(lines: list[str], i: int) -> int | None:
    for j in range(i + 1, min(len(lines), i + 4)):
        if lines[j].strip():
            return None if strip_step_marker(lines[j]) != lines[j].strip() else j
    return None


def _line_start_answer(lines: list[str], i: int) -> _Answer | None:
    """An answer line: ``Final answer: X``, ``**Answer:** X``, ``The answer is X``, a heading + next line."""
    line = lines[i]
    lead = _LEAD.match(line)
    cue = _CUE.match(line, lead.end())
    if cue is None:
        return None
    sep = _SEP.match(line, cue.end())
    rest = line[sep.end():] if sep else line[cue.end():]
    if not _ONLY_MARKUP.fullmatch(rest):
        emphasised = any(c in line[:cue.start()] for c in "#*_") or sep
        return _Answer((i, cue.start()), rest[:_MAX_CANDIDATE], (i,)) if emphasised else None
    j = _next_line(lines, i)
    return _Answer((i, cue.start()), lines[j][:_MAX_CANDIDATE], (i, j)) if j is not None else _Answer((i, -1), "", (i,))


def _answers_in_line(lines: list[str], i: int) -> list[_Answer]:
    found = []
    start = _line_start_answer(lines, i)
    if start is not None:
        found.append(start)
    line = lines[i]
    for cue in _CUE.finditer(line):
        sep = _SEP.match(line, cue.end())
        text = line[sep.end():sep.end() + _MAX_CANDIDATE] if sep else ""
        if text.strip() and (start is None or cue.start() > start.key[1]):
            found.append(_Answer((i, cue.start()), text, ()))
    boxes = list(_BOXED.finditer(line))
    for box in boxes:
        alone = len(boxes) == 1 and not line[:box.start()].strip(" \t*_$#>:.") and not line[box.end():].strip(" \t*_$.")
        found.append(_Answer((i, box.start()), box.group(1)[:_MAX_CANDIDATE], (i,) if alone else ()))
    return found


def _clean_answer(text: str) -> str:
    boxes = list(_BOXED.finditer(text))
    if boxes:
        text = boxes[-1].group(1)
    cut = _SENTENCE_END.search(text)
    if cut:
        text = text[:cut.start()]
    text = text.replace("**", "").replace("__", "").strip().strip("*_`\"'“”").strip().rstrip(".;,!。").strip()
    return " ".join(text.split())[:_MAX_ANSWER_CHARS]


_EQUALS = re.compile(r"=|≈")


def _answer_value(text: str) -> Number | None:
    """The number an answer states: all of it, after its last ``=``, else the quantity its sentence
    states (:func:`scorers.answers.conclusion_value`: after ``is``, skipping durations, thresholds and
    yardsticks such as "for every $1")."""
    if not text:
        return None
    number = parse_number(text)
    if number is not None:
        return number
    equals = deque(_EQUALS.finditer(text), maxlen=1)
    if equals and (found := find_numbers(text[equals[0].end():])):
        return found[0]
    return conclusion_value(text)


_FIRST_SENTENCE = re.compile(r"[.;](?=\s)|。|；|\n")


def _answer_of(candidate: _Answer) -> tuple[str, Number | None]:
    """(text, number) of one explicit answer. When the cleaned answer names no number but its sentence
    does ("The final answer is the Gross Profit, which is $50,521"), the sentence's quantity is read."""
    text = _clean_answer(candidate.text)
    number = parse_number(text) if text else None
    if number is None:
        cut = _FIRST_SENTENCE.search(candidate.text)
        sentence = text if _BOXED.search(candidate.text) else candidate.text[:cut.start()] if cut else candidate.text
        sentence = sentence.replace("**", "").replace("__", "").strip().strip("*_`\"'“”").rstrip(".;,!。").strip()
        if len(sentence) > len(text) and any(ch.isdigit() for ch in sentence[len(text):]):
            text = " ".join(sentence.replace("**", "").split())[:_MAX_ANSWER_CHARS]
        number = _answer_value(text)
    return text, number


def _find_answer(lines: list[str]) -> tuple[str, Number | None, set[int]]:
    """(answer text, its number, lines to drop from the steps) over all explicit answers."""
    answers: list[_Answer] = []
    for i, line in enumerate(lines):
        if line.strip():
            answers.extend(_answers_in_line(lines, i))
    removes = {j for a in answers for j in a.removes}
    for candidate in sorted(answers, key=lambda a: a.key, reverse=True):
        text, number = _answer_of(candidate)
        if text:
            return text, number, removes
    return "", None, removes


# ---------------------------------------------------------------------------------------------
# Stage 4: tables and rules.

_RULE_CELL = re.compile(r":?-{2,}:?")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def _row_text(cells: list[str], header: list[str]) -> str:
    """``Year: 1; Cash flow: 100; PV: 90.91``: header names keep a row readable on its own."""
    if len(header) == len(cells):
        return "; ".join(f"{h}: {c}" if h else c for h, c in zip(header, cells) if c)
    return " | ".join(c for c in cells if c)


def _is_rule(line: str) -> bool:
    """A table's ``|---|:--:|`` separator row."""
    return "|" in line and all(_RULE_CELL.fullmatch(c) for c in _cells(line))


def _is_hr(line: str) -> bool:
    """A Markdown horizontal rule: ``---``, ``* * *``, ``___``."""
    bare = line.replace(" ", "").replace("\t", "")
    return len(bare) >= 3 and bare[0] in "-*_" and bare == bare[0] * len(bare)


def _tables(lines: list[str]) -> list[str]:
    """Each table data row becomes its own paragraph; header and ``|---|`` rows are dropped."""
    out: list[str] = []
    k = 0
    while k < len(lines):
        line = lines[k]
        k += 1
        if _is_rule(line) or _is_hr(line):
            continue
        if "|" in line and k < len(lines) and _is_rule(lines[k]):
            header, k = _cells(line), k + 1
            while k < len(lines) and "|" in lines[k] and lines[k].strip():
                out.extend(("", _row_text(_cells(lines[k]), header), ""))
                k += 1
        elif line.strip().startswith("|") and line.count("|") >= 2:
            out.extend(("", _row_text(_cells(line), []), ""))
        else:
            out.append(line)
    return out


# ---------------------------------------------------------------------------------------------
# Stage 5-6: segmentation.

_STEP_LINE = re.compile(r"^[ \t]*(?:>[ \t]*)*(?:#{1,6}[ \t]*)?(?:(?:\*\*|__)[ \t]*)?(?i:step)(?:[ \t]*#)?"
                        r"[ \t]*[0-9]{1,3}(?![0-9])", re.M)
_STEP_INLINE = re.compile(r"(?<=[.!?])[ \t]+(?:\*\*)?(?i:step)[ \t]*[0-9]{1,3}(?:[ \t]*\*\*)?[ \t]*:")
_NUMBERED = re.compile(r"^([ \t]*)(?:>[ \t]*)*(?:\*\*|__)?(?:[0-9]{1,3}[.)]|\([0-9]{1,3}\))(?:\*\*|__)?[ \t]+\S", re.M)
_BULLETED = re.compile(r"^([ \t]*)[-*•+‣◦▪][ \t]+\S", re.M)
_HEADING = re.compile(r"^[ \t]*(?:#{1,6}[ \t]+\S[^\n]*|(?:\*\*|__)[^*_\n]{1,120}(?:\*\*|__)(?:[ \t]*:)?)[ \t]*$", re.M)
_HEADING_PREFIX = re.compile(r"^[ \t]*#{1,6}[ \t]+")
_ORDINAL = re.compile(r"(?:^|(?<=[.!?;:]))[ \t]*(?:\*\*)?(?P<w>(?i:first(?:ly)?|second(?:ly)?|third(?:ly)?|"
                      r"fourth(?:ly)?|fifth|then|next|after[ \t]+that|afterwards|subsequently|finally|lastly|"
                      r"to[ \t]+(?:begin|start)))(?:\*\*)?(?=[,:]|\s)", re.M)
_CUE_TAIL = re.compile(r"[,:]?[ \t]*")
_FIRST_CUES = ("first", "firstly", "to begin", "to start")
_PARAGRAPH_BREAK = re.compile(r"\n[ \t]*\n")
_ALNUM = re.compile(r"[^\W_]")


def _cut(text: str, starts: list[int]) -> list[str]:
    """Pieces from each start to the next; text before the first start (the preamble) is dropped."""
    starts = sorted(set(starts))
    return [text[a:b] for a, b in zip(starts, starts[1:] + [len(text)])]


def _indent(m: re.Match) -> int:
    return len(m.group(1).expandtabs(4))


def _list_starts(pattern: re.Pattern, text: str) -> tuple[list[int], int]:
    """Item starts at the outermost indentation (nested items stay inside their parent)."""
    found = list(pattern.finditer(text))
    if len(found) < 2:
        return [], 1 << 30
    top = min(_indent(m) for m in found)
    starts = [m.start() for m in found if _indent(m) == top]
    return (starts, top) if len(starts) >= 2 else ([], 1 << 30)


def _ordinal_pieces(text: str) -> list[str]:
    """Pieces that start at ``First,``/``Then,``/``Finally,`` (cue words removed)."""
    found = list(_ORDINAL.finditer(text))
    words = {" ".join(m.group("w").lower().split()) for m in found}
    if len(found) < 2 or not words & set(_FIRST_CUES):
        return []
    bounds = [m.start("w") for m in found[1:]] + [len(text)]
    return [text[_CUE_TAIL.match(text, m.end()).end():b] for m, b in zip(found, bounds)]


def _heading_pieces(text: str) -> list[str]:
    """Pieces that start at a ``## Heading`` or a whole-bold line; the heading text stays as the title."""
    found = list(_HEADING.finditer(text))
    if len(found) < 2:
        return []
    pieces = []
    for piece in _cut(text, [m.start() for m in found]):
        piece = _HEADING_PREFIX.sub("", piece.strip())
        if piece.startswith(("**", "__")):
            piece = piece[2:].replace(piece[:2], "", 1)
        pieces.append(piece)
    return pieces


def _marker_pieces(text: str) -> tuple[list[str], str]:
    steps = [m.start() for m in _STEP_LINE.finditer(text)] + [m.end() - len(m.group(0).lstrip(" \t"))
                                                               for m in _STEP_INLINE.finditer(text)]
    if steps:
        return _cut(text, steps), "step_markers"
    numbered, n_top = _list_starts(_NUMBERED, text)
    bullets, b_top = _list_starts(_BULLETED, text)
    if numbered and n_top <= b_top:
        return _cut(text, numbered), "numbered_list"
    if bullets:
        return _cut(text, bullets), "bullets"
    if pieces := _heading_pieces(text):
        return pieces, "headings"
    if pieces := _ordinal_pieces(text):
        return pieces, "ordinal_words"
    return [], ""


def _split(text: str) -> tuple[list[str], str]:
    pieces, rule = _marker_pieces(text)
    if not rule:
        pieces = [p for p in _PARAGRAPH_BREAK.split(text) if p.strip()]
        rule = "paragraphs"
        if len(pieces) < 2:
            pieces, rule = text.split("\n"), "lines"
    return pieces, rule


def _finish(pieces: list[str]) -> list[str]:
    """Strip markers, drop empty steps, cap the count and each step's length."""
    steps = [s for s in (strip_step_marker(p) for p in pieces) if _ALNUM.search(s)]
    if len(steps) > MAX_STEPS:
        steps[MAX_STEPS - 1:] = ["\n".join(steps[MAX_STEPS - 1:])]
    return [s[:MAX_STEP_CHARS].strip() for s in steps]


class _Read(NamedTuple):
    steps: list[str]
    rule: str
    answer_text: str
    answer: Number | None
    reasoning: str


def _read(text: str) -> _Read:
    """The whole pipeline, once: reasoning out, answer lines out, segmentation."""
    visible, reasoning = _prepare(text)
    lines = visible.split("\n")
    answer_text, answer, removes = _find_answer(lines)
    if answer is not None:
        answer = reconcile_sign(reconcile_scale(answer, visible), visible)
    kept = "\n".join(_tables([line for i, line in enumerate(lines) if i not in removes]))
    pieces, rule = _split(kept)
    steps = _finish(pieces)
    if not steps and removes:
        # an answer-only output ("#### 24\nThe answer is: 24") is one step: its answer line, so that
        # ChainEval can match it to the gold's last step instead of scoring an empty chain
        steps = _finish([lines[i] for i in sorted(removes)][-1:])
        rule = "answer_only"
    return _Read(steps, rule if steps else "none", answer_text, answer, reasoning)


def _fallback(steps: list[str], values: list[Number | None]) -> tuple[str, Number | None, str]:
    """No explicit answer: the quantity the last step with a number concludes with, read as a sentence
    (:func:`scorers.answers.conclusion_value`), so "the new value is $1,809,968, which is 69% of the
    original" gives $1,809,968; also the last step, where a categorical answer is looked for."""
    last = steps[-1] if steps else ""
    for text, value in zip(reversed(steps), reversed(values)):
        if value is not None and (number := conclusion_value(text)) is not None:
            return number.text, number, last
    return "", None, last


def segment(text: str) -> tuple[list[str], str]:
    """(step texts, rule name) for a model output; the rule is ``"none"`` when no step is left."""
    read = _read(text)
    return read.steps, read.rule


def extract_final_answer(text: str) -> tuple[str, Number | None]:
    """(answer text, its number): the last explicit answer, else the last step value found."""
    read = _read(text)
    if read.answer_text:
        return read.answer_text, read.answer
    answer_text, answer, _ = _fallback(read.steps, [concluding_value(s) for s in read.steps])
    return answer_text, answer


_BARE_CODE = re.compile(r"[01]")
_WORDS = re.compile(r"[A-Za-z]{2}")
_ANSWER_ONLY = re.compile(r"^\s*(?:#{2,}|(?i:(?:the\s+)?(?:final\s+)?answer\b))")


def _stated(answer_text: str, steps: list[str]) -> str:
    """What an output stated before a bare numeric answer line: its steps, answer-only lines dropped.

    An answer line that is only ``1`` or ``0`` is a code the question never defined, so a categorical gold is read
    from the verdict the output stated before it."""
    if _WORDS.search(answer_text):
        return ""
    lines = (line for step in steps for line in step.split("\n"))
    return "\n".join(line for line in lines if _WORDS.search(line) and not _ANSWER_ONLY.match(line))


_SURROGATE = re.compile("[\ud800-\udfff]")


def valid_text(text: str | None) -> str:
    """The text with every lone surrogate (``\\ud800`` from a JSON escape: not valid Unicode, and
    the tokenizer refuses it, which would fail a whole batch) replaced by U+FFFD; None is ''."""
    if not isinstance(text, str):
        return ""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return _SURROGATE.sub("\ufffd", text)
    return text


def parse_output(text: str) -> ParsedOutput:
    """A model output as steps with values, a final answer, its reasoning and the rule used."""
    read = _read(text)
    steps = tuple(PredStep(s, concluding_value(s)) for s in read.steps)
    if read.answer_text:
        answer_text, answer, conclusion = read.answer_text, read.answer, read.answer_text
        if _BARE_CODE.fullmatch(answer_text) and read.steps:
            conclusion = read.steps[-1]  # "... so it should be reported. The answer is: 1": the verdict is there
    else:
        answer_text, answer, conclusion = _fallback(read.steps, [s.value for s in steps])
    stated = _stated(answer_text, read.steps) if read.answer_text else ""
    return ParsedOutput(steps, answer, answer_text, read.reasoning, read.rule, conclusion, stated)
