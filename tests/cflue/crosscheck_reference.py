"""Cross-check of the CFLUE ``reference`` profile against the authors' own code, on five prediction shapes.

    python tests/cflue/crosscheck_reference.py --dev $CFLUE_DEV_SPLIT --app $CFLUE_APPLICATION_SAMPLE \
        [--authors /path/to/aliyun-cflue] [--limit N]

Builds five prediction sets from the gold data (oracle, official-format oracle, empty, partial, chatty), scores them
with our ``reference`` and ``default`` profiles, and, with ``--authors`` (a checkout of aliyun/cflue, read-only,
plus the ``rouge`` package importable), runs the authors' scoring functions on the same predictions and prints
both. Their ``comet`` and ``bert_score`` imports are stubbed (no model is loaded; those columns are not compared)
and translation is skipped (their English tokenizer needs nltk data that is not here). Nothing is written.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
import types
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from finchain_tasks.cflue.application import load_application, reference_text  # noqa: E402
from finchain_tasks.cflue.loader import load_cflue  # noqa: E402
from scorers.cflue import application as app  # noqa: E402
from scorers.cflue import metrics, reference  # noqa: E402
from scorers.cflue.extract import extract_answer  # noqa: E402

SHAPES = ("oracle", "official", "empty", "partial", "chatty")


# ---------------------------------------------------------------------------------- knowledge shapes
def knowledge_reply(record, shape: str) -> str:
    letters, analysis = record.answer, record.analysis or ""
    wrong = next((x for x in record.valid_letters if x not in letters), "X")
    if shape == "oracle":
        return letters
    if shape == "official":
        return f"答案：{letters}\n解析：{analysis}"
    if shape == "empty":
        return ""
    if shape == "partial":  # every other question right, the rest a wrong option; analysis cut in half
        return f"答案：{letters if record.index % 2 == 0 else wrong}\n解析：{analysis[:len(analysis) // 2]}"
    return f"\n根据题目分析，本题的正确答案是 {letters}。\n\n解析：{analysis}\n\n希望对你有帮助！"


def knowledge_ours(records, replies, profile: str) -> dict:
    mode = "reference" if profile == "reference" else "robust"
    golds = [r.answer for r in records]
    preds = [extract_answer(text, mode, choices=r.choices) for r, text in zip(records, replies)]
    out = {"accuracy": 100 * metrics.accuracy(golds, preds), "weighted_f1": 100 * metrics.weighted_f1(golds, preds)}
    pairs = [(r.analysis, text) for r, text in zip(records, replies)]
    if profile == "reference":
        text = reference.knowledge_analysis(pairs)
        out.update(bleu_1=text["bleu_1"], bleu_4=text["bleu_4"],
                   **{k: 100 * text[k] for k in ("rouge_1", "rouge_2", "rouge_l")})
    else:
        text = metrics.analysis_metrics(pairs)
        out.update({k: 100 * text[k] for k in metrics.ANALYSIS_KEYS})
    return out


def knowledge_theirs(records, replies, cs, extract_multi_choice) -> dict:
    """Their knowledge loop (exec_knowledge_eval.py) restated around their own functions."""
    import jieba

    golds, preds, refs, cands = [], [], [], []
    for record, text in zip(records, replies):
        first = text.split("\n")
        preds.append(extract_multi_choice(first[0] if len(first) == 2 else text, list(record.choices)))
        golds.append(record.answer)
        if record.analysis is not None:
            refs.append(" ".join(jieba.lcut(record.analysis)))
            lines = text.strip().split("\n")
            cands.append(" ".join(jieba.lcut(lines[1].replace("解析：", "") if len(lines) == 2 else text)))
    out = {"accuracy": 100 * cs.acc_score(golds, preds), "weighted_f1": 100 * cs.f1_score(golds, preds)}
    out["bleu_1"], out["bleu_4"] = cs.bleu_score(refs, cands)
    try:
        r1, r2, rl = cs.rouge_score(refs, cands)
        out.update(rouge_1=100 * r1, rouge_2=100 * r2, rouge_l=100 * rl)
    except ValueError as exc:  # the rouge package refuses an empty hypothesis: their script stops here
        out.update(rouge_1=f"raises: {exc}", rouge_2="", rouge_l="")
    return out


# ---------------------------------------------------------------------------------- application shapes
def _official(record) -> str:
    out = record.output
    if record.sub_task == "金融事件因果关系抽取":
        first = out[0]
        return "\n".join(f"{name}: {first.get(key, '')}" for key, name in app.CAUSAL_KEYS.items())
    if record.sub_task == "行业情感信息抽取":
        return "\n".join(f"{k}:{v}" for k, v in json.loads(out).items())
    return reference_text(out)


def application_reply(record, shape: str) -> str:
    if shape == "oracle":
        return reference_text(record.output) if record.sub_task != "行业情感信息抽取" else record.output
    if shape == "official":
        return _official(record)
    if shape == "empty":
        return ""
    if shape == "partial":
        return _official(record) if record.index % 2 == 0 else ""
    slug, gold = record.task_slug, _official(record)
    if slug == app.CLASSIFICATION:
        return f"该文本属于“{gold}”类别。\n理由：文中内容与该类别最为相关。"
    if slug == app.EXTRACTION:
        lines = [f"{i}. **{line.split(':', 1)[0].strip()}**：{line.split(':', 1)[1].strip()}" if ":" in line
                 else f"{i}. {line}" for i, line in enumerate(gold.splitlines(), 1)]
        return "根据文本，抽取结果如下：\n" + "\n".join(lines)
    return f"好的，以下是我的回答：\n{gold}\n希望对您有帮助。"


TASKS_CHECKED = (app.CLASSIFICATION, app.EXTRACTION, app.READING, app.GENERATION)


def application_ours(records, replies, profile: str) -> dict:
    rows = [app.AppOutcome(r.task_slug, r.sub_task, r.output, text, r.source)
            for r, text in zip(records, replies) if r.task_slug in TASKS_CHECKED]
    summary = app.summarize(rows, profile=profile)
    by_task = summary["by_task"]
    tc = by_task[app.CLASSIFICATION]
    out = {"TC acc": tc["accuracy"], "TC label_only": tc["label_only"],
           "RE F1": by_task[app.EXTRACTION]["f1"], "RC ROUGE-L": by_task[app.READING]["rouge_l"],
           "TG ROUGE-L": by_task[app.GENERATION]["rouge_l"]}
    out.update({f"RE {k}": v["f1"] for k, v in summary["by_sub_task"].items() if v["task"] == app.EXTRACTION})
    return out


def application_theirs(records, replies, cs, tmp: Path) -> dict:
    outputs = [{"__raw": {"task": r.task, "sub_task": r.sub_task, "output": r.output}, "response": text}
               for r, text in zip(records, replies)]
    path = tmp / "outputs.json"
    path.write_text(json.dumps([{"outputs": outputs}], ensure_ascii=False), encoding="utf-8")
    out = {"TC acc": 100 * cs.compute_text_classification(str(path))}
    f1, by_sub = cs.compute_extraction(str(path))
    out["RE F1"] = 100 * f1
    out["RC ROUGE-L"] = 100 * cs.compute_finqa(str(path))[0]
    out["TG ROUGE-L"] = 100 * cs.compute_text_generation(str(path))[0]
    out.update({f"RE {k}": 100 * v for k, v in by_sub.items()})
    return out


# ---------------------------------------------------------------------------------- their code, read-only
def authors_modules(root: Path):
    """Their ``utils.compute_score`` and ``extract_multi_choice``, with comet and bert_score stubbed."""
    import contextlib
    import io

    comet = types.ModuleType("comet")
    comet.load_from_checkpoint = lambda *_a, **_k: None
    bert = types.ModuleType("bert_score")

    class _Zero:
        def mean(self):
            return 0.0

    bert.score = lambda *_a, **_k: (_Zero(), _Zero(), _Zero())
    sys.modules.setdefault("comet", comet)
    sys.modules.setdefault("bert_score", bert)
    sys.path.insert(0, str(root))
    with contextlib.redirect_stdout(io.StringIO()):
        from utils import compute_score
        from utils.extract_choice import extract_multi_choice
    return compute_score, extract_multi_choice


def _fmt(value) -> str:
    return f"{value:.2f}" if isinstance(value, float) and not math.isnan(value) else str(value)


def main() -> None:
    import contextlib
    import io
    import tempfile

    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dev", required=True)
    parser.add_argument("--app", required=True)
    parser.add_argument("--authors")
    parser.add_argument("--limit", type=int)
    args = parser.parse_args()
    dev = load_cflue(args.dev).records[: args.limit]
    sample = load_application(args.app).records
    theirs = authors_modules(Path(args.authors)) if args.authors else None
    for shape in SHAPES:
        k_replies = [knowledge_reply(r, shape) for r in dev]
        a_replies = [application_reply(r, shape) for r in sample]
        rows = {"reference": {**knowledge_ours(dev, k_replies, "reference"),
                              **application_ours(sample, a_replies, "reference")},
                "default": {**knowledge_ours(dev, k_replies, "default"),
                            **application_ours(sample, a_replies, "default")}}
        if theirs:
            with contextlib.redirect_stdout(io.StringIO()), tempfile.TemporaryDirectory() as tmp:
                rows["authors"] = {**knowledge_theirs(dev, k_replies, theirs[0], theirs[1]),
                                   **application_theirs(sample, a_replies, theirs[0], Path(tmp))}
        print(f"== {shape} ({len(dev)} questions, {len(sample)} application records)")
        for key in rows["reference"]:
            print(f"  {key:28s} " + "  ".join(f"{name}={_fmt(row.get(key, '-'))}" for name, row in rows.items()))


if __name__ == "__main__":
    main()
