"""ChainEval: step alignment of a model's reasoning against a verified gold trace.

``score_batch`` is the entry point every host calls: it parses all outputs, computes the gate of
every (gold step, predicted step) pair first, embeds only the steps in at least one pair the gate lets
through (a shut pair scores 0 whatever its similarity; texts seen before come from a cache), builds
the gated score matrices A = clip(cos) × gate, aligns the whole batch in one numba call and turns
paths into metrics. See ../shared/design/CHAINEVAL.md for the specification it implements.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass, field

import numpy as np

from scorers.embeddings import Embedder, shared_embedder
from scorers.final_answer import judge_answer
from scorers.gate import step_gate
from scorers.kernel import MAX_SUM, MIN_COST, align_batch
from scorers.params import ERROR_BUCKETS, METRIC_KEYS, ChainEvalParams, resolve
from scorers.records import GoldSolution, GoldStep
from scorers.steps import ParsedOutput, parse_output, valid_text

NUMERIC_FIELDS = METRIC_KEYS
"""Older name of :data:`METRIC_KEYS`."""
CHUNK = 512
DIGITS = 6
"""Per-sample numbers are written rounded to this many decimals: the similarity comes from float32
embeddings, so digits beyond this are noise (0.799999988 is 0.8), and rounding also turns -0.0 into
0.0. Alignment detail (similarity, score) keeps 4."""


@dataclass
class ChainEvalResult:
    chaineval: float
    fac: float
    step_precision: float
    step_recall: float
    step_f1: float
    first_error_step: int | None
    n_gold_steps: int
    n_pred_steps: int
    parse_ok: float
    final_answer: str = ""
    fac_strict: float = 0.0
    """The final answer within rounding of the gold (half a unit of its last stated digit, or 0.5%):
    ``fac`` keeps the seed's 5% tolerance, which also passes answers computed wrong but close."""
    alignment: list[dict] = field(default_factory=list)
    pred_steps: list[str] = field(default_factory=list)
    """The predicted steps' texts, so an explanation can show them without parsing the output again."""
    matrices: dict[str, list[list[float]]] | None = None
    """With ``keep_matrices``: the n × m similarity, gate and gated score matrices the alignment ran on
    (what a viewer draws as a heat map); None otherwise, so batch scoring keeps no per-pair data."""
    answer_value: float | None = None
    """The final answer's figure as read (signed by its direction word: "decreases by $7.88" is -7.88); None
    when it states none. Not a metric, so not in :meth:`scores`."""
    answer_key: str | None = None
    """The final answer as Best-of-N votes on it (:attr:`scorers.final_answer.AnswerVerdict.key`): its figure
    signed as the reader reads it, the verdict of a yes/no question; not a metric, so not in :meth:`scores`."""

    def scores(self) -> dict[str, float | int | None]:
        """The metric fields without the alignment detail."""
        out = asdict(self)
        out.pop("alignment")
        out.pop("pred_steps")
        out.pop("matrices")
        out.pop("answer_key")
        out.pop("answer_value")
        return out

    def metrics(self) -> dict[str, float]:
        """The numbers hosts aggregate, by :data:`METRIC_KEYS` (see there)."""
        bucket = min(self.first_error_step, ERROR_BUCKETS) if self.first_error_step else 0
        errors = {"no_error": float(bucket == 0), "err_1": float(bucket == 1), "err_2": float(bucket == 2),
                  "err_3": float(bucket == 3), "err_4plus": float(bucket == ERROR_BUCKETS)}
        return {"chaineval": self.chaineval, "fac": self.fac, "fac_strict": self.fac_strict, "step_f1": self.step_f1,
                "precision": self.step_precision, "recall": self.step_recall, "parse_ok": self.parse_ok, **errors}


def clean(value: float, digits: int = DIGITS) -> float:
    """A plain float64 for output: rounded to ``digits`` decimals, never -0.0."""
    return round(float(value), digits) + 0.0


_NUMBER = re.compile(r"\d[\d,]*(?:\.\d+)?(?:[eE][-+]?\d+)?")


def embed_text(text: str, mask_numbers: bool, strip_punctuation: bool = True) -> str:
    """The form of a step's text that is embedded: trimmed, without closing punctuation when the
    profile asks (paper; the reference script embeds it as is), and with digits masked as '#' when
    the profile asks for it."""
    text = valid_text(text).strip()
    if strip_punctuation:
        text = text.rstrip(".;,").strip() or text
    return _NUMBER.sub("#", text) if mask_numbers else text


def score(gold: GoldSolution, output: str | None, profile: str | ChainEvalParams = "paper",
          embedder: Embedder | None = None, **overrides) -> ChainEvalResult:
    """Score one output (convenience over :func:`score_batch`)."""
    return score_batch([gold], [output], profile, embedder, **overrides)[0]


def score_batch(golds: Sequence[GoldSolution], outputs: Sequence[str | None],
                profile: str | ChainEvalParams = "paper", embedder: Embedder | None = None,
                progress: Callable[[int], None] | None = None, keep_matrices: bool = False,
                embed_all: bool = False, **overrides) -> list[ChainEvalResult]:
    """Score ``outputs[k]`` against ``golds[k]`` for every k; ``progress(n)`` after each chunk.
    ``keep_matrices`` fills each result's :attr:`ChainEvalResult.matrices` (every similarity computed, so it
    embeds every step). ``embed_all`` embeds every step even where the gate makes its vector useless: the
    same results, the baseline the tests and the benchmark compare the gated embedding against."""
    if len(golds) != len(outputs):
        raise ValueError(f"{len(golds)} gold solutions but {len(outputs)} outputs")
    params = resolve(profile, **overrides)
    embedder = embedder or shared_embedder(params.embedding_model)
    results: list[ChainEvalResult] = []
    for start in range(0, len(golds), CHUNK):
        chunk_golds = golds[start:start + CHUNK]
        parsed = [parse_output(valid_text(o)) for o in outputs[start:start + CHUNK]]
        results.extend(_score_chunk(chunk_golds, parsed, params, embedder, keep_matrices, embed_all))
        if progress:
            progress(len(chunk_golds))
    return results


def _score_chunk(golds, parsed: list[ParsedOutput], params: ChainEvalParams, embedder: Embedder,
                 keep_matrices: bool = False, embed_all: bool = False):
    mask, strip = params.mask_numbers, params.strip_punctuation
    n = np.array([len(g.steps) for g in golds], dtype=np.int64)
    m = np.array([len(p.steps) for p in parsed], dtype=np.int64)
    A = np.zeros((len(golds), max(int(n.max(initial=0)), 1), max(int(m.max(initial=0)), 1)))
    S = np.zeros_like(A)
    gates = np.zeros_like(A)
    for k, (gold, out) in enumerate(zip(golds, parsed)):
        if n[k] and m[k]:
            gates[k, :n[k], :m[k]] = [[step_gate(g.value, g.unit, p.value, p.text, params) for p in out.steps]
                                      for g in gold.steps]
    texts = [([embed_text(s.compare_text, mask, strip) for s in g.steps],
              [embed_text(s.text, mask, strip) for s in p.steps]) for g, p in zip(golds, parsed)]
    wanted = [_wanted(gates[k, :n[k], :m[k]], embed_all or keep_matrices) for k in range(len(golds))]
    vectors = _embed_wanted(embedder, texts, wanted)
    for k in range(len(golds)):
        if n[k] and m[k]:
            S[k, :n[k], :m[k]] = _similarity(vectors, *texts[k], *wanted[k])
            A[k, :n[k], :m[k]] = S[k, :n[k], :m[k]] * gates[k, :n[k], :m[k]]
    objective = MAX_SUM if params.objective == "max_sum" else MIN_COST
    total, moves, pair_i, pair_j, n_pairs = align_batch(A, n, m, objective, params.gap_penalty,
                                                        pair_ties=params.tie_rule == "pair")
    paths = [list(zip(pair_i[k, :n_pairs[k]].tolist(), pair_j[k, :n_pairs[k]].tolist())) for k in range(len(golds))]
    _fill_path_similarities(embedder, vectors, texts, wanted, paths, S)
    results = [_metrics(golds[k], parsed[k], params, A[k], S[k], gates[k], total[k], moves[k], paths[k])
               for k in range(len(golds))]
    if keep_matrices:
        for k, result in enumerate(results):
            cut = (slice(0, int(n[k])), slice(0, int(m[k])))
            result.matrices = {name: np.round(M[k][cut], 4).tolist() for name, M in
                               (("similarity", S), ("gate", gates), ("score", A))}
    return results


def _wanted(gate: np.ndarray, everything: bool) -> tuple[np.ndarray, np.ndarray]:
    """Which gold steps (rows) and predicted steps (columns) need a vector: those in at least one pair the
    gate lets through. A pair the gate shuts scores 0 whatever its similarity, so a step whose every pair is
    shut never needs its vector for any metric (its similarity is only shown, and :func:`_fill_path_similarities`
    computes it when an alignment path shows it)."""
    if everything:
        return np.ones(gate.shape[0], bool), np.ones(gate.shape[1], bool)
    passes = gate != 0
    return passes.any(axis=1), passes.any(axis=0)


def _embed_wanted(embedder: Embedder, texts, wanted) -> dict[str, np.ndarray]:
    """The vectors of the wanted texts of a chunk, by text: its gold steps in one ``encode_cached`` call, then its
    predicted steps in another (the calls embedding everything makes, less the unwanted texts)."""
    vectors: dict[str, np.ndarray] = {}
    for side in (0, 1):
        chosen = [t for k, pair in enumerate(texts) for t, w in zip(pair[side], wanted[k][side]) if w]
        if chosen:
            vectors.update(zip(chosen, embedder.encode_cached(chosen)))
    return vectors


def _similarity(vectors: dict[str, np.ndarray], gold: list[str], pred: list[str], rows, cols) -> np.ndarray:
    """clip(cos) of one output's n x m pairs, as one matrix product of the same shape whatever was embedded (so a
    computed cell is bit for bit what embedding everything gives); a step without a vector has a zero row, and
    each of its pairs is one the gate shuts."""
    dim = len(next(iter(vectors.values()))) if vectors else 1
    zero = np.zeros(dim, np.float32)
    gold_vecs = np.stack([vectors[t] if w else zero for t, w in zip(gold, rows)])
    pred_vecs = np.stack([vectors[t] if w else zero for t, w in zip(pred, cols)])
    return np.clip(gold_vecs @ pred_vecs.T, 0.0, 1.0)


def _fill_path_similarities(embedder: Embedder, vectors, texts, wanted, paths, S) -> None:
    """Similarities of aligned pairs the gate shut (a path takes one only on a tie or with a gap penalty of 0.5 or
    more), which the alignment detail shows: their outputs' unembedded steps are embedded now and their matrices
    recomputed whole, as embedding everything would have computed them."""
    late = [k for k, path in enumerate(paths) if any(not (wanted[k][0][i] and wanted[k][1][j]) for i, j in path)]
    if not late:
        return
    full = [(np.ones(len(texts[k][0]), bool), np.ones(len(texts[k][1]), bool)) for k in late]
    vectors.update(_embed_wanted(embedder, [texts[k] for k in late], full))
    for k, (rows, cols) in zip(late, full):
        S[k, :len(rows), :len(cols)] = _similarity(vectors, *texts[k], rows, cols)


def _metrics(gold: GoldSolution, out: ParsedOutput, params: ChainEvalParams, A, S, gates,
             total: float, moves: int, pairs: list[tuple[int, int]]) -> ChainEvalResult:
    n, m = len(gold.steps), len(out.steps)
    if m == 0 or n == 0:
        chain = 0.0
    elif params.objective == "max_sum":
        chain = 2.0 * total / (n + m)
    else:
        chain = 1.0 - total / moves if moves else 0.0
    matched = [(i, j) for i, j in pairs if A[i, j] >= params.match_threshold]
    recall = len({i for i, _ in matched}) / n if n else 0.0
    precision = len({j for _, j in matched}) / m if m else 0.0
    f1 = 2 * precision * recall / (precision + recall) if precision + recall else 0.0
    ok_gold = {i for i, _ in matched}
    first_error = next((i + 1 for i in range(n) if i not in ok_gold), None)
    answer = judge_answer(gold, out, params)  # the one reading every grader of a final answer shares
    alignment = [
        {"gold": i + 1, "pred": j + 1, "similarity": clean(S[i, j], 4), "gate": clean(gates[i, j]),
         "score": clean(A[i, j], 4), "matched": bool(A[i, j] >= params.match_threshold)}
        for i, j in pairs
    ]
    return ChainEvalResult(
        chaineval=clean(min(max(chain, 0.0), 1.0)), fac=float(answer.fac), step_precision=clean(precision),
        step_recall=clean(recall), step_f1=clean(f1), first_error_step=first_error, n_gold_steps=n, n_pred_steps=m,
        parse_ok=float(m > 0 and (out.final_answer is not None or bool(out.final_answer_text))),
        final_answer=out.final_answer_text, fac_strict=float(answer.fac_strict), alignment=alignment,
        pred_steps=[s.text for s in out.steps], answer_key=answer.key,
        answer_value=answer.answer.value if answer.answer is not None else None,
    )


_CATEGORICAL_MAX_WORDS = 6
_BOOLEAN_WORDS = {"yes": True, "true": True, "no": False, "false": False}


def categorical_value(text: str) -> str | bool | None:
    """The categorical value a gold step's text concludes with (``Project to accept: Project A`` ->
    ``"Project A"``, ``Compliant? = Yes`` -> True), or None when the step states no short conclusion.

    Gold parsed back from text must keep these: without them a wrong categorical step is never
    caught and a step with no value passes the gate on similarity alone."""
    cut = max(text.rfind("="), text.rfind(":"))
    if cut < 0:
        return None
    clause = text[cut + 1:].strip().strip("*_`").strip().rstrip(".;,!").strip()
    words = clause.split()
    if not words or len(words) > _CATEGORICAL_MAX_WORDS or not any(ch.isalpha() for ch in clause):
        return None
    return _BOOLEAN_WORDS.get(clause.casefold(), clause)


def _text_gold_step(text: str, number) -> GoldStep:
    cut = max(text.rfind("="), text.rfind(":"))
    category = categorical_value(text)
    clause = text[cut + 1:].strip().strip("*_`").strip()
    if category is not None and (clause[:1].isalpha() or not any(ch.isdigit() for ch in clause)):
        return GoldStep(text, category, "", text)
    if number:
        return GoldStep(text, number.value, number.unit, text)
    return GoldStep(text, category, "", text)


def gold_from_text(solution: str, problem_id: str = "", question: str | None = None) -> GoldSolution:
    """Gold steps recovered from a solution's text (rows that carry only ``solution``): each step's
    categorical conclusion when its last clause is words ("Directions above $10,000: cash out only"
    concludes with words, not with the threshold its description names; "…: Tier 1" too), else its
    number. The final answer is read by :func:`scorers.text_gold.text_gold_answer` (a verdict, a
    concluding sentence's quantity in the unit ``question`` asks for, or text)."""
    from scorers.text_gold import text_gold

    parsed = parse_output(solution)
    steps = tuple(_text_gold_step(s.text, s.value) for s in parsed.steps)
    answer, unit, kind = text_gold(parsed, question)
    return GoldSolution(steps, answer, unit, problem_id, answer_kind=kind)
