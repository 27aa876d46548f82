"""CFLUE application metrics (the five financial NLP tasks), host-free, as plain functions.

The definitions follow the CFLUE authors' evaluation (aliyun/cflue ``utils/compute_score.py``, read for
the facts; this is our own code):

- classification (``金融文本分类``): accuracy, the share of responses whose label equals the gold label
  after light normalisation (:func:`normalize_label`). Micro over every record of the task, as the
  official script takes one mean over all classification rows.
- translation (``金融翻译``): BLEU-4 per direction, sacrebleu's corpus BLEU (its defaults: 13a, exp
  smoothing) over pre-tokenised text: English split into words and punctuation, Chinese by jieba, as the
  official script joins tokens with spaces before scoring. COMET (a system score) only when the caller
  passes a COMET scorer (the user's checkpoint); otherwise :data:`NOT_COMPUTED`.
- extraction (``金融文本抽取``): F1 of the predicted (key, value) items against the gold items, per
  record, then the mean (:func:`extraction_f1`).
- reading comprehension / QA (``金融咨询``) and generation (``金融文本生成``): ROUGE-L F1 of jieba tokens
  per record, then the mean (the official ``rouge`` package with ``avg=True``); an empty response is
  scored as the text "None", as the official script does. Generation also reports BERTScore F1
  (bert-base-chinese) when the caller passes a BERTScore scorer; otherwise :data:`NOT_COMPUTED`.

Every summary value is on the 0–100 scale of the CFLUE table. A metric that needs a model the user does not
have is the string :data:`NOT_COMPUTED`, never 0. The table's "Avg." is the plain mean of its eight columns
(TC ACC, MT en2zh BLEU-4 and COMET, MT zh2en BLEU-4 and COMET, RE F1, RC ROUGE-L, TG ROUGE-L): checked
against the published rows (GPT-4: 49.63). Without COMET it is not computed; ``average_of_computed`` then
gives the mean of the columns that are, and names them.

Importing is cheap: jieba and sacrebleu load when a metric that needs them runs.
"""

from __future__ import annotations

import json
import math
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, NamedTuple

from scorers.cflue.metrics import jieba_tokenize, rouge_l

NOT_COMPUTED = "not computed"
SCALE = 100.0

CLASSIFICATION = "classification"
TRANSLATION = "translation"
EXTRACTION = "extraction"
READING = "reading_comprehension"
GENERATION = "generation"
TASKS: dict[str, str] = {"金融文本分类": CLASSIFICATION, "金融翻译": TRANSLATION, "金融文本抽取": EXTRACTION,
                         "金融咨询": READING, "金融文本生成": GENERATION}
"""The five official task names, with the English slug used in task names and metadata."""
EN2ZH, ZH2EN = "en2zh", "zh2en"
DIRECTIONS: dict[str, str] = {"金融英中翻译": EN2ZH, "金融中英翻译": ZH2EN}
"""Translation sub-task -> direction; the target language decides the tokenizer."""
CAUSAL_KEYS: dict[str, str] = {"reason_type": "原因类型", "reason_product": "原因产品", "reason_industry": "原因行业",
                               "reason_region": "原因地区", "result_type": "结果类型", "result_product": "结果产品",
                               "result_industry": "结果行业", "result_region": "结果地区"}
"""The causal-extraction gold keys are English; the instruction asks for the Chinese names. Both map here."""
TABLE_COLUMNS: tuple[tuple[str, str, str | None, str], ...] = (
    ("Fin_TC ACC", CLASSIFICATION, None, "accuracy"),
    ("Fin_MT en2zh BLEU-4", TRANSLATION, EN2ZH, "bleu"),
    ("Fin_MT en2zh COMET", TRANSLATION, EN2ZH, "comet"),
    ("Fin_MT zh2en BLEU-4", TRANSLATION, ZH2EN, "bleu"),
    ("Fin_MT zh2en COMET", TRANSLATION, ZH2EN, "comet"),
    ("Fin_RE F1", EXTRACTION, None, "f1"),
    ("Fin_RC ROUGE-L", READING, None, "rouge_l"),
    ("Fin_TG ROUGE-L", GENERATION, None, "rouge_l"),
)
"""(column, task, translation direction or None, metric): the published application table, in order."""

CometScorer = Callable[[list[dict[str, str]]], float]
"""``[{"src", "mt", "ref"}, ...] -> system score in [0, 1]`` (COMET's ``predict(...).system_score``)."""
BertScorer = Callable[[list[str], list[str]], float]
"""``(candidates, references) -> mean F1 in [0, 1]``."""


class AppOutcome(NamedTuple):
    """One scored record: task slug, sub-task, gold output, the model's response, and the source text
    (translation only, for COMET)."""

    task: str
    sub_task: str
    reference: Any
    prediction: str
    source: str = ""


# ---------------------------------------------------------------------------------- classification
# Every text below is NFKC-normalised before a pattern sees it, which folds the full-width ：，；！？（） into
# : , ; ! ? ( ): the patterns name those marks in their ASCII form only (a test pins the folding, row by row).
# 。 、 “ ” ‘ ’ 「 」 『 』 【 】 《 》 have no ASCII form and stay as they are.
_LABEL_PREFIX = re.compile(r"^(?:是否合规|是否符合规定|[^\s:,。;“”\"']{0,8}?"
                           r"(?:分类|类别|标签|结果|意图|倾向|答案|判断|结论|行业|类型|情感|情绪))\s*:\s*")
"""A label-introducing prefix: a short head naming what follows (分类结果：, 标签：, 情感倾向：, 判断结果：,
所属行业：)."""
_WRAP = " \t\r\n'\"“”‘’`[]【】「」《》()*"
_TRAIL = "。.!,;"
POLARITY = {"正面": "正向", "积极": "正向", "负面": "负向", "消极": "负向", "中立": "中性",
            "positive": "正向", "negative": "负向", "neutral": "中性"}
"""Sentiment words the instructions use (正面/中性/负面, or English) for the labels the data uses (正向/中性/负向)."""
YES_NO = {"合规": "是", "符合": "是", "符合规定": "是", "符合要求": "是",
          "不合规": "否", "不符合": "否", "不符合规定": "否", "不符合要求": "否"}
"""合规政策审核 asks for 是/否; a reader takes 合规 / 不合规 as the same answer."""
_QUOTES = re.compile(r"[“「『\"']([^“”「」『』\"']{1,40})[”」』\"']")
"""One quoted label in the first line (so no line break can fall inside it)."""
_NEGATED = r"(?<![不非未没])"
"""Before a head that states a label: 不属于 / 不应该是 / 并非属于 deny the label that follows, they do not state it."""
_IN_SENTENCE = re.compile(_NEGATED + r"(?:属于|意图是|答案是|结果是|(?<![认作成以因行])为"
                          r"|(?:类别|分类|标签|类型|倾向|行业|结论)应?是|(?:认为|判断|应该|应当)是):?\s*"
                          r"([^,。;]{1,30}?)(?:类别|类|这一类|一类)?[。.!]?$")
"""The words after a head at the end of the first line (这段文本属于银行类。). 归为 / 分类为 / 应为 are read by
the bare 为 (not after 认 作 成 以 因 行: 认为 作为 成为 以为 因为 行为), 类别应该是 by 应该是. Spaces may fall
inside (属于 银行 类); a comma or a full stop may not, so 不属于保险,而属于银行 states 银行."""
_VERDICT = re.compile(r"(?:(?:该|此|这份?|这个|本)[^不非否未没]{0,6}?)?(?:是|为)?"
                      r"(不合规|不符合规定|不符合要求|不符合|合规|符合规定|符合要求|符合)(?:的)?\.?")
"""A short first clause that is a compliance verdict: 该内容不合规 / 该报告符合规定 (the whole clause; it ends
before any 。 ; ! ?, so only a "." can follow). The words between the subject and the verdict hold no negation:
该内容不是合规的, 该内容并非合规, 该内容是否合规 are no verdict."""
_LEAD_YES_NO = re.compile(r"(是|否|不合规|合规),\s*(.+)")
_NEGATIVE = re.compile(r"不合规|不符合|违反|违规")
_POSITIVE = re.compile(r"(?<!不)(?:合规|符合)")
_CLAUSE = re.compile(r"[。;!?]|,?\s*(?:理由|原因|解释|因为|由于)")
_QUOTE_CHARS = re.compile(r"[“”‘’「」『』\"']")
_SENTENCE_MARKS = re.compile(r"[\s。,;:!?]")
LABEL_ONLY_MAX = 20


def normalize_label(text: Any) -> str:
    """Light normalisation: NFKC, a leading "分类结果："-style prefix dropped, wrapping quotes, brackets and
    markdown stars removed, trailing full stops and commas removed, sentiment and 合规 synonyms mapped."""
    label = unicodedata.normalize("NFKC", str(text or "")).strip()
    label = _LABEL_PREFIX.sub("", label.replace("**", ""))  # markdown bold around a prefix: **分类结果**：X
    previous = None
    while previous != label:
        previous = label
        label = label.strip(_WRAP).rstrip(_TRAIL)
    return POLARITY.get(label.lower(), YES_NO.get(label, label))


def label_candidates(response: str) -> list[str]:
    """What a reader takes as the stated label, most literal first: the whole response; its first line and that
    line's first clause (a label then a reason: "不合规。理由：…", "经济绩效，因为…"); the one quoted label of a
    sentence (该文本属于“经济绩效”类别。); the words after 属于/为/答案是 at the end of the first line. A list of
    several labels ("A, B") or a hedge ("A或B") is none of these."""
    text = unicodedata.normalize("NFKC", response or "").strip()
    first = text.split("\n", 1)[0].strip()
    out = [text, first, _CLAUSE.split(first, 1)[0]]
    quoted = {q.strip() for q in _QUOTES.findall(first)}
    if len(quoted) == 1:
        out.append(quoted.pop())
    stated = _IN_SENTENCE.search(_LABEL_PREFIX.sub("", first).strip("*"))
    if stated:
        out.append(stated.group(1))
    out.extend(_verdicts(_CLAUSE.split(_LABEL_PREFIX.sub("", first).strip("*"), 1)[0].strip()))
    return [normalize_label(c) for c in out if c]


def _verdicts(clause: str) -> list[str]:
    """A compliance verdict a reader takes from a short concluding clause: the clause is the verdict itself
    (该内容不合规。), or a 是/否 followed by a sentence that says the same (否，该内容不符合规定。); a lead word the
    sentence contradicts (是，该内容不合规) is no answer."""
    whole = _VERDICT.fullmatch(clause)
    if whole:
        return [whole.group(1)]
    lead = _LEAD_YES_NO.fullmatch(clause)
    if not lead:
        return []
    word, rest = normalize_label(lead.group(1)), lead.group(2)
    said = {"否"} if _NEGATIVE.search(rest) else {"是"} if _POSITIVE.search(rest) else set()
    return [word] if said == {word} else []


def label_correct(reference: Any, prediction: str) -> float:
    """1.0 when the label a reader takes from the response (:func:`label_candidates`) is the gold label; a hedge
    ("A或B") or a list ("A, B") is wrong."""
    gold = normalize_label(reference)
    return float(bool(gold) and gold in label_candidates(prediction))


def label_only(prediction: str, reference: Any = None) -> float:
    """Adherence to "output only the label", reported beside accuracy and never folded into it: once wrapping quotes,
    brackets, stars and a final full stop are removed, the response is one line without quotes, spaces or sentence
    punctuation, at most :data:`LABEL_ONLY_MAX` characters and (given the gold label) at most twice its length plus
    two: a label, right or wrong, and nothing else."""
    label = normalize_label(prediction)
    raw = unicodedata.normalize("NFKC", prediction or "").strip()
    limit = LABEL_ONLY_MAX if reference is None else min(LABEL_ONLY_MAX, 2 * len(normalize_label(reference)) + 2)
    return float(bool(label) and "\n" not in raw and len(label) <= limit and not _SENTENCE_MARKS.search(label)
                 and not _QUOTE_CHARS.search(label))


# ---------------------------------------------------------------------------------- extraction
_PAIR_SPLIT = re.compile(r"[,;]")
_SPACES = re.compile(r"\s+")
_ITEM_TRAIL = ",。.;、"
_LIST_MARK = re.compile(r"^(?:\d{1,2}[.、)]|[-*•·])(?!\d)")
_EMPHASIS = re.compile(r"\*\*|__|`")
NONE_VALUES = frozenset({"无", "未提及", "无结果", "无明确", "none", "null", "n/a", "na", "空", "—", "没有"})
"""A field stated as absent ("原因产品：无") is the same as one left blank: no item on either side (a lone "-" is
one too: :data:`_LIST_MARK` takes it as a list mark and leaves nothing)."""
_FENCE = re.compile(r"```(?:json)?\s*(.*?)```", re.S)


def _clean(text: Any) -> str:
    text = _SPACES.sub("", unicodedata.normalize("NFKC", str(text)))
    text = _LIST_MARK.sub("", _EMPHASIS.sub("", text))
    text = text.strip(_ITEM_TRAIL + "'\"“”‘’")
    return "" if text.lower() in NONE_VALUES else POLARITY.get(text.lower(), text)


def _key(key: Any) -> str:
    cleaned = _clean(key)
    return _clean(CAUSAL_KEYS.get(cleaned, cleaned))


def _from_mapping(obj: Mapping) -> set[tuple[str, str]]:
    if set(obj) == {"role", "argument"}:
        pairs = [(obj["role"], obj["argument"])]
    else:
        pairs = list(obj.items())
    return {(_key(k), _clean(v)) for k, v in pairs if not isinstance(v, (dict, list)) and _clean(v)}


def _from_json(value: Mapping | list) -> set[tuple[str, str]]:
    """An object's items, or a list's: each element's (a nested object or list) or, for a bare value, ("", value).
    Only ever given an object or a list (:func:`extraction_items` checks, or parses text that starts with { or [)."""
    if isinstance(value, Mapping):
        return _from_mapping(value)
    items: set[tuple[str, str]] = set()
    for element in value:
        items |= _from_json(element) if isinstance(element, (Mapping, list)) else {("", _clean(element))}
    return {i for i in items if i[1]}


_NOTHING = re.compile(r"(?:无|没有|未(?:提及|发现|找到|涉及|包含))(?:可抽取的?|相关的?|明确的?)?"
                      r"(?:实体|信息|内容|结果|抽取结果|事件|主体|因果关系)?[。.!]?")
"""A response saying there is nothing to extract (未提及相关实体。): no items, as an empty answer."""
_STATED_PAIR = re.compile(r"(?:该|此|本)?(?:事件的?)?([^\s:。“”\"'‘’]{1,8}?)(?:是|为)[“\"'‘]?"
                          r"([^“”\"'‘’。]{1,40}?)[”\"'’]?[。!]?")
"""A field stated in a sentence (股票简称为甲公司 / 事件主体是“乙科技公司”): the key and the value. A piece is
one line cut at , and ; so neither can fall inside; the key is one word (no space, colon, full stop or quote), the
value holds no quote or full stop (a quoted value loses its quotes; a final "." goes with the value, and
:func:`_clean` drops it)."""
_NOT_KEYS = frozenset({"以上", "以下", "如下", "结果", "答案", "这", "这些", "它", "其"})


def _from_lines(text: str) -> set[tuple[str, str]]:
    """``key: value`` lines (also several on one line, split at commas or semicolons); a piece without a
    colon is a field stated in a sentence ("减持方为张三") or a bare value (key ""). Once some line has a
    key, the bare lines are the answer's greeting and closing ("希望对您有帮助。"), not items."""
    if _NOTHING.fullmatch(_LABEL_PREFIX.sub("", text.strip())):
        return set()
    items: set[tuple[str, str]] = set()
    for line in text.splitlines():  # NFKC text (extraction_items): a full-width colon is already ":"
        pieces = _PAIR_SPLIT.split(line)
        if not all(":" in p for p in pieces if p.strip()):
            stated = [_STATED_PAIR.fullmatch(p.strip()) for p in pieces if p.strip()]
            pieces = [line] if not stated or not all(m and m.group(1) not in _NOT_KEYS for m in stated) else \
                [f"{m.group(1)}:{m.group(2)}" for m in stated]  # type: ignore[union-attr]
        for piece in pieces:
            key, sep, value = piece.partition(":")
            item = (_key(key), _clean(value)) if sep else ("", _clean(key))
            if item[1]:
                items.add(item)
    if any(k for k, _ in items):
        items = {i for i in items if i[0]}
    return items


def extraction_items(value: Any) -> set[tuple[str, str]]:
    """The (key, value) items of a gold output or a response.

    A list of ``{"role", "argument"}`` objects gives (role, argument); any other object gives each
    (key, value) with a non-empty value (causal keys mapped to their Chinese names); text is read as JSON
    when it is a JSON object or list, else as ``key: value`` lines; a bare value has the key "". Keys and
    values are NFKC-normalised, without spaces and trailing punctuation. Nothing is evaluated as code."""
    if isinstance(value, (Mapping, list)):
        return _from_json(value)
    text = unicodedata.normalize("NFKC", str(value or "")).strip()
    fenced = _FENCE.search(text)
    if fenced:
        text = fenced.group(1).strip()
    if text[:1] in "{[":
        try:
            return _from_json(json.loads(text))
        except (json.JSONDecodeError, RecursionError):
            pass
    return _from_lines(text)


def extraction_f1(reference: Any, prediction: str) -> float:
    """F1 of the predicted items against the gold items, in [0, 1]. When every gold item is a bare value
    (an entity such as "天津权健公司"), only the values of the prediction count. Both empty: 1.0."""
    gold, pred = extraction_items(reference), extraction_items(prediction)
    if gold and all(k == "" for k, _ in gold):
        pred = {("", v) for _, v in pred}
    if not gold and not pred:
        return 1.0
    hits = len(gold & pred)
    if not hits:
        return 0.0
    precision, recall = hits / len(pred), hits / len(gold)
    return 2 * precision * recall / (precision + recall)


# ---------------------------------------------------------------------------------- text metrics
_EN_TOKEN = re.compile(r"\d+(?:[.,]\d+)*%?|\w+(?:[-'’]\w+)*|\S", re.UNICODE)
"""A number, a word, or else one mark: a word character never reaches the last branch (the word branch takes it)."""


def tokenize_en(text: str) -> list[str]:
    """English words: word runs (with inner hyphens and apostrophes), numbers (with separators), and each
    punctuation mark on its own: the tokens of nltk's ``word_tokenize`` for ordinary text, without its data."""
    return _EN_TOKEN.findall(unicodedata.normalize("NFKC", text or ""))


def target_tokens(text: str, direction: str) -> list[str]:
    """Tokens of a translation in its target language: jieba for Chinese, words for English."""
    return jieba_tokenize(text or "") if direction == EN2ZH else tokenize_en(text)


def corpus_bleu(references: Sequence[str], hypotheses: Sequence[str], direction: str) -> float:
    """sacrebleu corpus BLEU-4 (0–100) of tokenised, space-joined text, as the official script computes it."""
    from sacrebleu.metrics import BLEU

    if len(references) != len(hypotheses):
        raise ValueError(f"{len(references)} references but {len(hypotheses)} translations")
    refs = [" ".join(target_tokens(r, direction)) for r in references]
    hyps = [" ".join(target_tokens(h, direction)) for h in hypotheses]
    return float(BLEU().corpus_score(hyps, [refs]).score)


def sentence_bleu(reference: str, hypothesis: str, direction: str) -> float:
    """sacrebleu sentence BLEU in [0, 1]: a per-record view only; the task metric is the corpus BLEU."""
    from sacrebleu.metrics import BLEU

    ref, hyp = " ".join(target_tokens(reference, direction)), " ".join(target_tokens(hypothesis, direction))
    return float(BLEU(effective_order=True).sentence_score(hyp, [ref]).score) / SCALE


def rouge_l_zh(reference: str, prediction: str) -> float:
    """ROUGE-L F1 in [0, 1] of jieba tokens; an empty response counts as "None" (the official script)."""
    return rouge_l(jieba_tokenize(prediction if prediction and prediction.strip() else "None"),
                   jieba_tokenize(str(reference)))


# ---------------------------------------------------------------------------------- per record
def record_scores(task: str, sub_task: str, reference: Any, prediction: str | None,
                  profile: str = "default") -> dict[str, float]:
    """The per-record values (0–1) of a task under a profile (``default``: read as a reader would;
    ``reference``: the CFLUE authors' rules, :mod:`scorers.cflue.reference`): what a host shows for one sample.
    Classification also gives ``label_only`` (adherence to "output only the label"), the same in both profiles.
    Translation's value is a sentence BLEU for inspection; the task's BLEU is always the corpus one."""
    from scorers.cflue import reference as ref

    prediction = prediction or ""
    official = ref.check_profile(profile) == "reference"
    if task == CLASSIFICATION:
        correct = ref.classification_correct(sub_task, reference, prediction) if official \
            else label_correct(reference, prediction)
        return {"accuracy": correct, "label_only": label_only(prediction, reference)}
    if task == EXTRACTION:
        if official:
            from scorers.cflue.reference_extraction import extraction_f1 as official_f1

            return {"f1": official_f1(sub_task, reference, prediction)}
        return {"f1": extraction_f1(reference, prediction)}
    if task in (READING, GENERATION):
        return {"rouge_l": ref.rouge_l_record(reference, prediction) if official else rouge_l_zh(reference, prediction)}
    if task == TRANSLATION:
        return {"sentence_bleu": sentence_bleu(str(reference), prediction, direction_of(sub_task))}
    raise ValueError(f"unknown CFLUE application task {task!r} (known: {', '.join(TASKS.values())})")


def direction_of(sub_task: str) -> str:
    if sub_task not in DIRECTIONS:
        raise ValueError(f"unknown translation sub-task {sub_task!r} (known: {', '.join(DIRECTIONS)})")
    return DIRECTIONS[sub_task]


# ---------------------------------------------------------------------------------- summaries
def _mean(values: Iterable[float]) -> float:
    """0–100 mean of per-record values; only :func:`_record_means` calls it, on a group's (never empty) rows."""
    values = list(values)
    return SCALE * math.fsum(values) / len(values)


def _translation(rows: Sequence[AppOutcome], comet: CometScorer | None) -> dict[str, Any]:
    """BLEU-4 and COMET of rows of one direction."""
    direction = direction_of(rows[0].sub_task)
    out: dict[str, Any] = {"bleu": corpus_bleu([str(r.reference) for r in rows], [r.prediction for r in rows],
                                               direction)}
    if comet is None:
        out["comet"] = NOT_COMPUTED
    else:
        data = [{"src": r.source, "mt": r.prediction, "ref": str(r.reference)} for r in rows]
        out["comet"] = SCALE * float(comet(data))
    return out


def _metrics(task: str, rows: Sequence[AppOutcome], comet: CometScorer | None,
             bertscore: BertScorer | None, profile: str) -> dict[str, Any]:
    """The metrics of one sub-task's rows: ``bleu`` and ``comet`` of its direction for translation, else
    :func:`_record_means`. (A whole translation task is split by direction in :func:`_task_metrics`.)"""
    return _translation(rows, comet) if task == TRANSLATION else _record_means(task, rows, bertscore, profile)


def _record_means(task: str, rows: Sequence[AppOutcome], bertscore: BertScorer | None,
                  profile: str) -> dict[str, Any]:
    """A non-translation task's metrics on some of its rows (never none): the mean of each per-record value, and
    BERTScore for generation."""
    scores = [record_scores(task, r.sub_task, r.reference, r.prediction, profile) for r in rows]
    out: dict[str, Any] = {key: _mean(s[key] for s in scores) for key in scores[0]}
    if task == GENERATION:
        if bertscore is None:
            out["bertscore"] = NOT_COMPUTED
        else:
            preds = [r.prediction if r.prediction.strip() else "None" for r in rows]
            out["bertscore"] = SCALE * float(bertscore(preds, [str(r.reference) for r in rows]))
    return out


def _task_metrics(task: str, rows: Sequence[AppOutcome], comet: CometScorer | None,
                  bertscore: BertScorer | None, profile: str) -> dict[str, Any]:
    """A task's metrics over all its rows; translation always per direction (a direction without rows is
    absent), so a task row reads the same whichever sub-tasks were run."""
    if task != TRANSLATION:
        return _record_means(task, rows, bertscore, profile)
    out: dict[str, Any] = {}
    for direction in (EN2ZH, ZH2EN):
        group = [r for r in rows if direction_of(r.sub_task) == direction]
        if group:
            out.update({f"{k}_{direction}": v for k, v in _translation(group, comet).items()})
    return out


def _groups(rows: Iterable[AppOutcome], key: Callable[[AppOutcome], str]) -> dict[str, list[AppOutcome]]:
    groups: dict[str, list[AppOutcome]] = {}
    for row in rows:
        groups.setdefault(key(row), []).append(row)
    return groups


def table(by_task: Mapping[str, Mapping[str, Any]], by_sub_task: Mapping[str, Mapping[str, Any]]) -> dict[str, Any]:
    """The eight columns of the published application table (absent task: not computed)."""
    directions = {DIRECTIONS[s]: m for s, m in by_sub_task.items() if s in DIRECTIONS}
    out: dict[str, Any] = {}
    for column, task, direction, metric in TABLE_COLUMNS:
        source = directions.get(direction, {}) if direction else by_task.get(task, {})
        out[column] = source.get(metric, NOT_COMPUTED)
    return out


def average(columns: Mapping[str, Any]) -> tuple[Any, dict[str, Any]]:
    """``(Avg. of all eight columns or NOT_COMPUTED, {"value", "columns"} over the computed ones)``."""
    computed = {k: v for k, v in columns.items() if isinstance(v, (int, float)) and not math.isnan(v)}
    partial = {"value": math.fsum(computed.values()) / len(computed) if computed else NOT_COMPUTED,
               "columns": list(computed)}
    full = partial["value"] if len(computed) == len(columns) else NOT_COMPUTED
    return full, partial


def summarize(rows: Iterable[AppOutcome], *, comet: CometScorer | None = None,
              bertscore: BertScorer | None = None, profile: str = "default") -> dict[str, Any]:
    """Metrics per sub-task, per task, the CFLUE table's columns and its average (0–100, JSON-ready), under a
    profile (``default`` or ``reference``, named in the result)."""
    from scorers.cflue.reference import check_profile

    profile = check_profile(profile)
    rows = [AppOutcome(*r) for r in rows]
    unknown = sorted({r.task for r in rows} - set(TASKS.values()))
    if unknown:
        raise ValueError(f"unknown CFLUE application task(s) {unknown} (known: {', '.join(TASKS.values())})")
    by_sub_task = {}
    for sub_task, group in _groups(rows, lambda r: r.sub_task).items():
        task = group[0].task
        by_sub_task[sub_task] = {"task": task, "n": len(group), **_metrics(task, group, comet, bertscore, profile)}
    by_task = {task: {"n": len(group), **_task_metrics(task, group, comet, bertscore, profile)}
               for task, group in _groups(rows, lambda r: r.task).items()}
    columns = table(by_task, by_sub_task)
    full, partial = average(columns)
    return {"profile": profile, "scale": SCALE, "n": len(rows), "by_task": by_task, "by_sub_task": by_sub_task,
            "table": columns,
            "average": full, "average_of_computed": partial}


# ---------------------------------------------------------------------------------- optional models
def comet_scorer(checkpoint: str, *, batch_size: int = 32, gpus: int | None = None) -> CometScorer:
    """A COMET scorer from the user's checkpoint (``unbabel-comet`` imported only here)."""
    try:
        from comet import load_from_checkpoint
    except ImportError:
        raise ImportError("COMET needs the unbabel-comet package: pip install unbabel-comet") from None
    model = load_from_checkpoint(checkpoint)

    def score(data: list[dict[str, str]]) -> float:
        n_gpus = gpus if gpus is not None else _gpu_count()
        return float(model.predict(data, batch_size=batch_size, gpus=n_gpus).system_score)

    return score


def bertscore_scorer(model: str = "bert-base-chinese", *, num_layers: int | None = None) -> BertScorer:
    """A BERTScore scorer (``bert-score`` imported only here); ``model`` is a name or a local path."""
    try:
        from bert_score import score as bert_score
    except ImportError:
        raise ImportError("BERTScore needs the bert-score package: pip install bert-score") from None

    def score(candidates: list[str], references: list[str]) -> float:
        layers = num_layers if num_layers is not None else (8 if "bert-base-chinese" in model else None)
        _, _, f1 = bert_score(candidates, references, model_type=model, num_layers=layers, lang="zh")
        return float(f1.mean())

    return score


def _gpu_count() -> int:
    try:
        import torch

        return 1 if torch.cuda.is_available() else 0
    except ImportError:
        return 0
