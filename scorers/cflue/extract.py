"""Answer extraction for CFLUE multiple-choice responses: the official rule and a robust one.

Both modes return the chosen option letters sorted and de-duplicated (``"DA"`` -> ``"AD"``, so
they compare with the loader's normalised gold), or ``"X"`` when no valid answer is found.

``reference`` is the CFLUE authors' code as it runs (``exec_knowledge_eval.py`` + ``extract_multi_choice``), the
``reference`` profile's reading; its result is the raw letter run, NOT sorted or checked against the options (so
"DA" is wrong for gold "AD", "E" for a four-option question is wrong, as in their accuracy):
  1. a response of exactly two lines (one ``\n``) is read from its FIRST line only, so ``"\nB"`` reads as ``""``
     -> ``"X"``; any other response is read whole;
  2. strip whitespace at both ends; remove every "、", ",", "，" and space;
  3. the letters after the first ``答案[是：:]+``, else the letters at the very start, else ``"X"``.

``strict`` is the official CFLUE rule on the whole response, with our output contract:
  1. strip whitespace at both ends (as the authors' code does, so a bare answer after a line break is read);
     remove every "、", ",", "，" and space (U+0020) from the response;
  2. the letters right after the first ``答案[是：:]+`` (``[ABCDEF]+``), else
  3. the letters at the very start of the text (``^[ABCDEF]+``), else ``"X"``.
  Only then the result is checked against ``valid_letters``: a letter outside them makes it ``"X"``
  (the official scorer marks such an answer wrong, so accuracy is unchanged; it counts as invalid).
  Known quirks kept on purpose: "Answer: B" gives ``"A"`` (the leading "A" of "Answer"), the first
  answer line wins, a full-width "Ｂ" is ``"X"``.

``robust`` reads what models actually write:
  1. Unicode NFKC (full-width "Ａ", "：", "（" become ASCII); ``<think>…</think>`` blocks are removed
     (and everything before a lone ``</think>``, after a lone unclosed ``<think>``); HTML tags are
     removed (but a bare upper-case ``<B>`` is kept as an option), entities unescaped; markdown and
     LaTeX delimiters ``* ` # _ $`` are removed.
  2. Candidates are answer markers — 答案 / 正确答案 / 最终答案 / 参考答案 / 正确选项 / 答: / Answer /
     Final answer / The answer is / 故选 / 所以选 / 因此选 / 应选 (not 不应选) — each followed by
     connectors (是 为 应该 选项 选 is : = spaces, line breaks) and an answer span; and ``\\boxed{…}``.
     A marker not followed by a span ("答案解析", "答案不是C") is no candidate. The LAST candidate in
     the text wins (a corrected answer, a final answer after a first guess).
  3. An answer span is a list of items separated by 、 , / & + ; 和 与 及 以及 "and", or plain spaces; an item
     is a letter run, optionally in brackets ``(C) [C] 【C】 <C>`` and followed by 项 / 选项:
     "答案是 B 和 D" -> BD, "答案：A、C" -> AC, "Answer: (C)" -> C, "答案：B，因为…" -> B.
     An upper-case run of letters that are not all option letters (A–F plus ``valid_letters``) is
     a word ("OK", "NPV") and ends the span. A lower-case letter counts only alone and followed
     by punctuation, a line end or a separator ("answer: b" -> B; "the answer is a bond" -> no).
  4. Option letters outside ``valid_letters`` ("答案：E" for options A–D) and hedged answers
     ("B或C", "B or C") make that candidate invalid: if it is the last one, the result is ``"X"``.
  5. With true/false options (``choices`` {'A': '对', 'B': '错'} or 正确/错误), 对 / 正确 / true / √
     and 错 / 错误 / 不正确 / 不对 / false / × after a marker, or alone at the start, map to A / B.
  6. Without any candidate: the last line that holds only an answer span ("B", "**B**", "A、C");
     else letters at the start of the response, when followed by punctuation, a line end, a space and
     non-Latin text, or 是 为 正确 选项 项 和 与 及 ("B. 因为…", "C选项正确"; not "A股市场…", not
     "A lot of…"); else ``"X"``.
"""

from __future__ import annotations

import html
import re
import unicodedata
from collections.abc import Mapping

INVALID = "X"
OFFICIAL_LETTERS = "ABCDEF"
MODES = ("strict", "robust", "reference")

_STRICT_STRIP = re.compile(r"[、,， ]")
_STRICT_ANSWER = re.compile(r"答案[是：:]+([ABCDEF]+)")
_STRICT_LEADING = re.compile(r"^[ABCDEF]+")

_THINK = re.compile(r"<think>.*?</think>", re.S | re.I)
_TAG = re.compile(r"<(?![A-Z]>)/?[A-Za-z][^<>\n]{0,200}>")
_MARKUP = re.compile(r"[*`#_$]")
_MARKER = re.compile(
    r"最终答案|正确答案|参考答案|答案|正确选项|答(?=\s*:)"
    r"|(?:final\s+|correct\s+)?answer(?![a-z])"
    r"|(?:故|所以|因此|因而|(?<!不)应该|(?<!不)应)选(?:择)?(?!项)", re.I)
_BOXED = re.compile(r"\\boxed\s*\{((?:[^{}]|\{[^{}]*\})*)\}")
_LEAD = re.compile(r"(?:\s|[:=]|是|为|应该|应当|应|选项|选择|选|is(?![a-z]))*", re.I)
_ITEM = re.compile(r"(?:[(\[【<][ \t]*)?([A-Za-z]+)(?:[ \t]*[)\]】>])?(?:[ \t]*(?:选项|项))?")
_SEP = re.compile(r"[ \t]*(?:[、,/&+;]|和|与|以及|及|and(?![a-z]))?[ \t]*(?:选项|选)?[ \t]*", re.I)
_HEDGE = re.compile(r"[ \t]*(?:或者?|or(?![a-z]))[ \t]*(?:[(\[【<][ \t]*)?[a-z](?![a-z])", re.I)
_LOWER_OK = re.compile(r"[ \t]*(?:$|\n|[^\w\s]|和|与|及|and(?![a-z]))", re.I)
_LEADING_OK = re.compile(r"$|[^\w\s]|[ \t]*\n|[ \t]+(?![ \tA-Za-z])|是|为|正确|选项|项|选|和|与|及")
_BARE_LINE = re.compile(r"^[ \t]*(?:[(\[【<][ \t]*)?([A-Za-z](?:[ \t]*(?:(?:[、,/&+;]|和|与|及)[ \t]*)?[A-Za-z])*)"
                        r"[ \t]*(?:[)\]】>][ \t]*)?(?:[.。][ \t]*)?$", re.M)
_TF_WORD = re.compile(r"[(\[【]?[ \t]*(不正确|不对|错误|正确|true|false|对|错|√|✓|×|✗)(?![\u4e00-\u9fffa-z])", re.I)
_TRUE_WORDS = {"对", "正确", "true", "√", "✓", "是"}
_FALSE_WORDS = {"错", "错误", "不正确", "不对", "false", "×", "✗", "否"}


def extract_answer(text: str | None, mode: str = "strict", valid_letters: str = OFFICIAL_LETTERS,
                   choices: Mapping[str, str] | None = None) -> str:
    """The answer letters of a response (sorted, unique), or ``"X"``; never raises on any text.

    ``valid_letters`` are the question's option letters; ``choices`` (the option dict), when given,
    supplies them instead and enables the true/false word mapping of robust mode.
    """
    if mode not in MODES:
        raise ValueError(f"unknown extraction mode {mode!r}; expected one of {MODES}")
    if not isinstance(text, str) or not text:
        return INVALID
    valid = frozenset(k for k in (choices if choices is not None else valid_letters.upper()) if "A" <= k <= "Z")
    if mode == "reference":
        return reference_letters(text)
    if mode == "strict":
        return _strict(text, valid)
    return _robust(text, valid, _true_false_map(choices))


def _finish(letters: str, valid: frozenset[str]) -> str:
    found = set(letters.upper())
    if not found or not found <= valid:
        return INVALID
    return "".join(sorted(found))


def reference_letters(text: str) -> str:
    """The authors' reading of a response, raw (see the module docstring): their letters or ``"X"``."""
    lines = text.split("\n")
    gen = _STRICT_STRIP.sub("", (lines[0] if len(lines) == 2 else text).strip())
    match = _STRICT_ANSWER.search(gen)
    if match:
        return match.group(1)
    match = _STRICT_LEADING.match(gen)
    return match.group(0) if match else INVALID


def _strict(text: str, valid: frozenset[str]) -> str:
    stripped = _STRICT_STRIP.sub("", text.strip())
    match = _STRICT_ANSWER.search(stripped)
    if match:
        return _finish(match.group(1), valid)
    match = _STRICT_LEADING.match(stripped)
    return _finish(match.group(0), valid) if match else INVALID


def _true_false_map(choices: Mapping[str, str] | None) -> dict[str, str]:
    """{'true': 'A', 'false': 'B'} when the options are a 对/错 (正确/错误) pair, else {}."""
    if not choices or len(choices) != 2:
        return {}
    kinds = {}
    for letter, value in choices.items():
        word = str(value).strip().lower()
        kind = "true" if word in _TRUE_WORDS else "false" if word in _FALSE_WORDS else None
        if kind:
            kinds[kind] = letter
    return kinds if len(kinds) == 2 else {}


def _tf_letter(word: str, tf: dict[str, str]) -> str:
    return tf["true"] if word.lower() in _TRUE_WORDS else tf["false"]


def clean_response(text: str) -> str:
    """Robust mode's view of a response: NFKC, no reasoning block, no HTML, no markdown emphasis."""
    text = unicodedata.normalize("NFKC", text)
    lower = text.lower()
    if "</think>" in lower:  # (the check keeps many unclosed "<think>" from costing quadratic time)
        text = _THINK.sub("\n", text)
        lower = text.lower()
    if "</think>" in lower:
        text = text[lower.rindex("</think>") + len("</think>"):]
        lower = text.lower()
    if "<think>" in lower:
        text = text[:lower.index("<think>")]
    return _MARKUP.sub("", html.unescape(_TAG.sub(" ", text)))


def _item_letters(run: str, s: str, end: int, valid: frozenset[str]) -> str | None:
    """An item's letters, INVALID for option letters that this question lacks, None for a word."""
    if run.isupper():
        if not set(run) <= valid | set(OFFICIAL_LETTERS):
            return None
        return run if set(run) <= valid else INVALID
    if len(run) == 1 and _LOWER_OK.match(s, end):
        upper = run.upper()
        if upper in valid:
            return upper
        return INVALID if upper in OFFICIAL_LETTERS else None
    return None


def _span(s: str, pos: int, valid: frozenset[str], *, leading: bool = False) -> str:
    """Letters of the answer span at ``pos`` ("" when there is none, INVALID when out of range or hedged)."""
    letters, last_end = "", pos
    while True:
        match = _ITEM.match(s, pos)
        if not match:
            break
        got = _item_letters(match.group(1), s, match.end(), valid)
        if got is None:
            break
        if got == INVALID or _HEDGE.match(s, match.end()):
            return INVALID
        letters, last_end = letters + got, match.end()
        pos = _SEP.match(s, last_end).end()
    if leading and letters and not _LEADING_OK.match(s, last_end):
        return ""
    return letters


def _after_marker(s: str, pos: int, valid: frozenset[str], tf: dict[str, str]) -> str:
    pos = _LEAD.match(s, pos).end()
    letters = _span(s, pos, valid)
    if not letters and tf:
        word = _TF_WORD.match(s, pos)
        if word:
            return _tf_letter(word.group(1), tf)
    return letters


def _candidates(s: str, valid: frozenset[str], tf: dict[str, str]) -> list[tuple[int, str]]:
    """(position, letters or INVALID) of every answer marker and \\boxed{} that carries an answer."""
    found = []
    for match in _MARKER.finditer(s):
        got = _after_marker(s, match.end(), valid, tf)
        if got:
            found.append((match.start(), got))
    for match in _BOXED.finditer(s):
        content = re.sub(r"\\[A-Za-z]+|[{}]", " ", match.group(1)).strip()
        got = _after_marker(content, 0, valid, tf)
        if got:
            found.append((match.start(), got))
    return sorted(found)


def _bare_line(s: str, valid: frozenset[str]) -> str:
    """The last line that holds nothing but an answer span, e.g. "B" or "A、C"."""
    for match in reversed(list(_BARE_LINE.finditer(s))):
        run = re.sub(r"[^A-Za-z]", "", match.group(1))
        # the line ends right after the span; a word of lower-case letters gives None (one letter may answer)
        got = _item_letters(run, "", 0, valid)
        if got:
            return got
    return ""


def _robust(text: str, valid: frozenset[str], tf: dict[str, str]) -> str:
    s = clean_response(text)
    found = _candidates(s, valid, tf)
    if found:
        return INVALID if found[-1][1] == INVALID else _finish(found[-1][1], valid)
    got = _bare_line(s, valid) or _span(s.lstrip(), 0, valid, leading=True)
    if not got and tf:
        word = _TF_WORD.match(s.lstrip())
        if word and _LEADING_OK.match(s.lstrip(), word.end()):
            got = _tf_letter(word.group(1), tf)
    return _finish(got, valid) if got and got != INVALID else INVALID
