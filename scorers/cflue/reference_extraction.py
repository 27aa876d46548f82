"""The CFLUE authors' extraction scoring (``compute_extraction`` of aliyun/cflue ``utils/compute_score.py``), one
function per sub-task, for the ``reference`` profile. Our own code with their behaviour, quirks included:

- 金融事件主体抽取: 1 when the gold entity occurs in the response as a substring, else 0.
- 金融事件因果关系抽取: only the FIRST gold object counts. For each of the eight Chinese field names (原因类型 ...)
  the first ``<name>(.*?)(\\n|$)`` in the response is a found field; its value is the captured text PLUS the line
  break it ended at (their character filter runs over the two captured groups, not over characters), so a value
  such as "：出口下降\\n" never equals the gold "出口下降": a stated field matches only when it says 未提及/无/None
  (and the gold is blank or inside it), or when the name is followed directly by the value at the very end of the
  text. acc = matches / 8, recall = found / 8, F1 of the two.
- 金融事件抽取: full-width punctuation made ASCII and spaces removed; with "value" anywhere, ``keyN: … valueN: …``
  pairs, else every ``left:right`` line (split at its LAST colon) until a left side containing "key"; the gold
  list becomes {role: argument} (a repeated role keeps its last argument); F1 of ``key|value`` sets. A JSON
  object scores 0 (its quotes and braces stay in the keys).
- 行业情感信息抽取: their parser of ``行业：…情感分类：…``, ``抽取结果：…`` and ``industry:polarity`` lists (below);
  every value reduced to its first 正/负/中/无; the gold is the string of a dict, read the same way.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from typing import Any

CAUSAL_FIELDS = (("原因类型", "reason_type"), ("原因产品", "reason_product"), ("原因地区", "reason_region"),
                 ("原因行业", "reason_industry"), ("结果类型", "result_type"), ("结果产品", "result_product"),
                 ("结果地区", "result_region"), ("结果行业", "result_industry"))
_DROPPED = {",", "，", "。", ".", "、", ";", "；", ":", "：", " "}
_NOT_MENTIONED = re.compile(r"未提及|无|无结果|无明确|None")
_SEPARATORS = ("、", ":", ";", ",", "\n")
_POLAR_PAIR = re.compile(r"(\w+)[:\s]+([正|负|中|无])\w+")
_POLAR_PAIR_LOOSE = re.compile(r"(\w+)[:\s]*([正|负|中|无])\w+")
_POLAR_PAIR_HAN = re.compile("([\u4e00-\u9fa5]+)[:\\s]+([正|负|中|无])[\u4e00-\u9fa5]+")
_POLARITY = re.compile(r"(正|负|中|无)")


def _literal(value: Any) -> Any:
    """Their ``eval`` of a gold value stored as text; ``ast.literal_eval`` reads the same literals, runs nothing."""
    return ast.literal_eval(value) if isinstance(value, str) else value


def _normalise(content: str) -> str:
    for old, new in (("：", ":"), ("，", ","), (" ", ""), ("；", ";"), ("。", "."), (",\n", "\n")):
        content = content.replace(old, new)
    return content


def _strip(text: str) -> str:
    return text.strip("\n.;").strip()


def _separators(text: str) -> list[str]:
    """The separators present in ``text``, fewest occurrences first (a stable sort: ties keep 、 : ; , \\n order)."""
    return sorted((s for s in _SEPARATORS if s in text), key=text.count)


def set_f1(gold: dict, pred: dict) -> float:
    """``cal_f1`` / 100: F1 of the ``key|value`` strings (0–1)."""
    gold_set = {"|".join(item) for item in gold.items()}
    pred_set = {"|".join(item) for item in pred.items()}
    common = len(gold_set & pred_set)
    precision = common / (len(pred_set) + 1e-12)
    recall = common / (len(gold_set) + 1e-12)
    return 0.0 if precision + recall == 0 else 2 * (precision * recall) / (precision + recall) * 100 / 100


# ---------------------------------------------------------------------------------- the four sub-tasks
def entity_f1(gold: Any, response: str) -> float:
    return 1.0 if str(gold) in response else 0.0


def causal_f1(gold: Any, response: str) -> float:
    objects = _literal(gold)
    first = objects[0] if objects else {}  # their code raises on an empty gold list; we read it as all blank
    hits = found = 0
    for name, key in CAUSAL_FIELDS:
        match = re.search(f"{name}(.*?)(\n|$)", response)
        if match is None:
            continue
        found += 1
        value = "".join(part for part in match.groups() if part not in _DROPPED)
        gold_value = first.get(key, "")
        if _NOT_MENTIONED.search(value):
            hits += gold_value == "" or gold_value in value
        else:
            hits += value == gold_value
    acc, recall = hits / 8, found / 8
    return 0.0 if acc + recall == 0 else 2 * acc * recall / (acc + recall)


def event_items(response: str) -> dict[str, str]:
    content = _normalise(response)
    result: dict[str, str] = {}
    if "value" in content:
        for _, key, _, value in re.findall(r"(key\d):(.*)\s*(value\d?):?\s*(.*)", content):
            result[_strip(key)] = _strip(value)
        return result
    for left, right in re.findall(r"(.*):(.*)", content):
        if "key" in left:
            break
        result[_strip(left)] = _strip(right)
    return result


def event_f1(gold: Any, response: str) -> float:
    roles = {obj["role"]: obj["argument"] for obj in _literal(gold) or []}
    return set_f1(roles, event_items(response))


def polarities(mapping: dict) -> dict[str, str]:
    """Each value reduced to its first 正/负/中/无; a value without one is dropped."""
    out = {}
    for key, value in mapping.items():
        found = _POLARITY.search(str(value))
        if found:
            out[key] = found.group(1)
    return out


def industry_f1(gold: Any, response: str) -> float:
    return set_f1(polarities(_literal(gold)), polarities(industry_items(response)))


# ---------------------------------------------------------------------------------- the industry parser
def _pairs(pieces: Sequence[str], sep: str) -> dict[str, str]:
    """``dict(tuple(p.split(sep)) for p in pieces)``: ValueError unless every piece splits in exactly two."""
    out = {}
    for piece in pieces:
        parts = piece.split(sep)
        if len(parts) != 2:
            raise ValueError("not a pair")
        out[parts[0]] = parts[1]
    return out


def _padded(keys: list[str], values: list[str], pad_keys: bool) -> dict[str, str]:
    size = max(len(keys), len(values))
    if pad_keys:
        keys = keys + ["无"] * (size - len(keys))
    return dict(zip(keys, values + ["无"] * (size - len(values))))


def _first_group(pieces: Sequence[str], patterns: Sequence[str]) -> list[str | None]:
    """``extract_re_exprs``: the first pattern whose first match exists in every piece, else the last tried."""
    found: list[str | None] = []
    for pattern in patterns:
        found = [(m[0] if (m := re.findall(pattern, p, re.S)) else None) for p in pieces]
        if None not in found:
            break
    return found


def _labelled(ind: str, cls: str) -> dict[str, str]:
    """The ``行业：… 情感分类：…`` shape."""
    seps = _separators(cls)
    if not seps:
        ind_seps = _separators(ind)
        if ind_seps:
            keys = ind.split(ind_seps[0])
            return dict(zip(keys, [cls] * len(keys)))
        return {ind: cls}
    pieces = cls.split(seps[0])
    try:
        if len(seps) > 1:
            return _pairs(pieces, ":")
        ind_seps = _separators(ind)
        if not ind_seps:
            raise NameError("their industry list is unbound here")
        keys = ind.split(ind_seps[0])
        values = _first_group(pieces, [".*[为是](.*)", ".*（(.*)）"])
        if None not in values:
            return dict(zip(keys, values))  # type: ignore[arg-type]
        return _padded(keys, pieces, pad_keys=False)
    except (ValueError, NameError):
        return {a: b for a, b in _POLAR_PAIR.findall(cls)}


def _after_result_word(body: str) -> dict[str, str]:
    """The ``抽取结果：…`` shape (``body`` is what follows the colon, stripped)."""
    tail = re.match(r".*情感分类结果:(.*)", body, re.S)
    if tail:
        cls = tail.group(1)
        seps = _separators(cls)
        if not seps:
            return {}
        ind = re.match(r"(.*)情感分类结果", body, re.S).group(1).strip()  # type: ignore[union-attr]
        keys, values = ind.split(seps[0]), cls.split(seps[0])
        return dict(zip(keys, values)) if len(keys) == len(values) else _padded(keys, values, pad_keys=True)
    seps = _separators(body)
    if not seps:
        return {body: "无"}
    pieces = body.split(seps[0])
    if len(seps) == 1:
        return dict(zip(pieces, ["无"] * len(pieces)))
    try:
        return _pairs(pieces, seps[1])
    except ValueError:
        return {a: b for a, b in _POLAR_PAIR.findall(body)}


def decode_list(content: str) -> dict[str, str] | None:
    """``decode_re_content``: ``a:b,c:d``-style text by its two rarest separators, with two fallbacks."""
    seps = _separators(content)
    if not seps:
        return None
    pieces = [_strip(p) for p in content.split(seps[0])]
    try:
        if len(seps) > 1:
            return _pairs(pieces, seps[1])
        if len(pieces) % 2:
            pieces = pieces[1:]
        if len(pieces) != 2:
            raise ValueError("not one pair")
        return {pieces[0]: pieces[1]}
    except ValueError:
        pass
    if len(seps) > 1:
        out = {}
        for piece in content.split(seps[1]):
            if seps[0] in piece:
                parts = piece.split(seps[0])
                if len(parts) != 2:
                    break
                out[parts[0]] = parts[1]
        else:
            return out
    lines = "\n".join(_strip(x) for x in content.split("\n") if len(x) > 0)
    return {a: b for a, b in _POLAR_PAIR_HAN.findall(lines)}


def industry_items(response: str) -> dict[str, str]:
    """``industry_classification_result_process_single``: the response as {industry: polarity text}."""
    content = _normalise(response)
    labelled = re.match(r"行业:(.*)情感分类:(.*)", content, re.S)
    result: dict[str, str] | None
    if labelled:
        result = _labelled(labelled.group(1).strip("\n.;"), labelled.group(2).strip("\n.;"))
    elif "抽取结果" in content:
        head = re.match(r"抽取结果.*?:(.*)", content, re.S)
        result = _after_result_word(_strip(head.group(1))) if head else dict(_POLAR_PAIR.findall(content))
    else:
        head_list = re.findall(r"^.*结果.*?:(.*)", content, re.S)
        result = decode_list(_strip(head_list[0]) if head_list else content)
    if not result:
        result = {a: b for a, b in _POLAR_PAIR_LOOSE.findall(content)}
    return result


SUB_TASKS = {"金融事件主体抽取": entity_f1, "金融事件因果关系抽取": causal_f1, "金融事件抽取": event_f1,
             "行业情感信息抽取": industry_f1}


def extraction_f1(sub_task: str, gold: Any, response: str | None) -> float:
    """The per-record F1 (0–1) of an extraction record; a sub-task they do not know scores 0, as theirs does."""
    scorer = SUB_TASKS.get(sub_task)
    return scorer(gold, response or "") if scorer else 0.0
