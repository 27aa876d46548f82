"""The explorer's user-visible rules, one table-driven test per rule (issue 39.3): problem ids and seeds at
their edges, what a run's sample carries into the explorer, the first-error and wrong-answer filters, the
pairing of two models' samples (by id and epoch), every piece of text each view escapes, the metrics a
verdict lists, the addresses the guard treats as this machine and the exact 403 it answers. Verdicts are
built by hand (no embedding model), logs written in milliseconds, the guard called without a server."""

from __future__ import annotations

import asyncio
import dataclasses

import pytest

from finchain_tasks.engine import all_templates
from finchain_tasks.engine.registry import MAX_SEED
from finchain_tasks.explore import guard, problems, run_samples, views
from finchain_tasks.explore.verdict import Row, Verdict
from scorers.chaineval import ChainEvalResult

EVIL = "<i>&'\""
"""Markup unless escaped: a tag, an entity start, both quotes."""
ESCAPED = "&lt;i&gt;&amp;&#x27;&quot;"
TEXT_TEMPLATE = "crypto_finance/global_events_impact/event_study_significance"
"""A template whose last step is text, computed by a formula holding ``>`` and quotes."""


# -- problem ids and seeds ---------------------------------------------------------------------------

@pytest.mark.parametrize("seed, ok", [(0, True), (1, True), (MAX_SEED, True), (-1, False), (MAX_SEED + 1, False)])
def test_rule_a_seed_is_a_whole_number_from_0_to_max_seed_inclusive(seed, ok):
    if ok:
        assert problems.check_seed(seed) == seed
    else:
        with pytest.raises(ValueError, match=rf"a seed is a whole number in \[0, {MAX_SEED}\], got {seed}$"):
            problems.check_seed(seed)


@pytest.mark.parametrize("text, ok", [
    (f"finchain/{TEXT_TEMPLATE}/7", True),
    (f"{TEXT_TEMPLATE}/7", True),  # the prefix may be left out
    (f"  finchain/{TEXT_TEMPLATE}/7 ", True),
    (f"finchain/{TEXT_TEMPLATE}/{MAX_SEED}", True),
    (f"finchain/{TEXT_TEMPLATE}", False),  # three parts: no seed
    (f"finchain/{TEXT_TEMPLATE}/7/8", False),  # five parts
    (f"finchain/{TEXT_TEMPLATE.rsplit('/', 1)[0]}/7", False),
    (f"finchain/{TEXT_TEMPLATE}/x", False),
    (f"finchain/{TEXT_TEMPLATE}/-7", False),
])
def test_rule_a_problem_id_is_prefix_domain_topic_template_and_seed(text, ok):
    if ok:
        assert problems.parse_problem_id(text) == (TEXT_TEMPLATE, int(text.strip().rsplit("/", 1)[1]))
    else:
        with pytest.raises(ValueError, match="not a FinChain problem id"):
            problems.parse_problem_id(text)


@pytest.mark.parametrize("case", [
    problems.Case(TEXT_TEMPLATE, 3),
    problems.Case(TEXT_TEMPLATE, 3, profile="reference"),
    problems.Case(TEXT_TEMPLATE, 3, model="m", params="tau=0.5", prm="none"),
])
def test_rule_a_permalink_names_its_problem_and_profile_and_reopens_the_same_case(case):
    from urllib.parse import parse_qsl, urlsplit

    query = dict(parse_qsl(urlsplit(problems.permalink("http://127.0.0.1:7860/", case)).query))
    assert (query["problem"], query["profile"]) == (case.problem_id, case.profile)
    assert problems.case_from_query(query) == case


# -- a run's samples ---------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def loaded(tmp_path_factory):
    """One Inspect sample, as ``load_samples`` keeps it."""
    pytest.importorskip("inspect_ai")
    from inspect_ai.log import write_eval_log
    from inspect_ai.model import ModelOutput

    from tests.support.inspect_logs import Log, Sample, _eval_log

    spec = Log(file="2026-12-01T10-00-00+00-00_finchain_t.eval", task="finchain_tasks/finchain", task_id="t",
               model="litellm/openai/m", created="2026-12-01T10:00:00+00:00", mtime=0.0,
               metadata={"finchain_model": "reg-m", "chaineval": {"profile": "reference"}},
               sample_ids=["finchain/d/t/x/5"], epochs=2,
               samples=(Sample("finchain/d/t/x/5", epoch=2, scores={"chaineval": {"chaineval": 0.5, "fac": 0.0}},
                               domain="banking", level="easy"),))
    log = _eval_log(spec)
    sample = log.samples[0]
    sample.metadata.update(template="x", seed=5)
    sample.scores["chaineval"].metadata = {"first_error_step": 2}
    sample.output = ModelOutput.from_content("m", "Step 1: wrong")
    folder = tmp_path_factory.mktemp("logs") / "run" / "logs"
    folder.mkdir(parents=True)
    write_eval_log(log, str(folder / spec.file))
    rows, bad = run_samples.load_samples([folder.parent])
    assert bad == [] and len(rows) == 1
    return rows[0]


@pytest.mark.parametrize("key, value", [
    ("model", "reg-m"), ("harness", "inspect"), ("sample_id", "finchain/d/t/x/5"), ("epoch", 2),
    ("domain", "banking"), ("level", "easy"), ("template", "x"), ("seed", 5), ("chaineval", 0.5), ("fac", 0.0),
    ("first_error_step", 2), ("output", "Step 1: wrong"), ("source", "run/2026-12-01T10-00-00+00-00_finchain_t.eval"),
    ("profile", "reference"),
])
def test_rule_each_field_the_explorer_shows_of_a_run_sample_is_kept(loaded, key, value):
    assert loaded[key] == value


def test_rule_a_run_sample_keeps_only_what_the_explorer_shows(loaded):
    assert set(loaded) == set(run_samples.KEEP)


@pytest.mark.parametrize("wanted, step, kept", [
    (None, 3, True), (0, None, True), (0, 0, True), (0, 1, False),
    (1, 1, True), (1, 2, False), (3, 3, True), (3, 4, False),
    (4, 3, False), (4, 4, True), (4, 5, True), (4, 9, True),  # 4: the fourth or a later step
    (5, 5, True), (5, 6, False),  # any other: exactly that step
])
def test_rule_the_first_error_filter_is_that_step_exactly_and_4_means_4_or_later(wanted, step, kept):
    row = {"model": "a", "sample_id": "finchain/d/t/x/0", "first_error_step": step}
    assert (run_samples.apply([row], run_samples.Filters(first_error=wanted)) != []) is kept


@pytest.mark.parametrize("fac, kept", [(0.0, True), (0, True), (1.0, False), (0.5, False), (float("nan"), False),
                                       (None, False)])
def test_rule_the_wrong_answer_filter_keeps_a_final_answer_scored_0_only(fac, kept):
    row = {"model": "a", "sample_id": "finchain/d/t/x/0", "fac": fac}
    assert (run_samples.apply([row], run_samples.Filters(wrong_answer=True)) != []) is kept


def test_rule_two_models_samples_pair_by_sample_id_and_epoch():
    def r(model, epoch, score, sid="finchain/d/t/x/0"):
        return {"model": model, "sample_id": sid, "epoch": epoch, "chaineval": score}

    rows = [r("a", 1, 0.9), r("a", 2, 0.5), r("b", 2, 0.4), r("b", 1, 0.1), r("b", 3, 0.0),
            r("a", 1, 0.7, "finchain/d/t/x/1")]
    pairs = run_samples.disagreements(rows, "a", "b")
    assert [(p["epoch"], p["versus_chaineval"], round(p["difference"], 2)) for p in pairs] == [(1, 0.1, 0.8),
                                                                                              (2, 0.4, 0.1)]


# -- views: every text escaped ------------------------------------------------------------------------

def _result(**over) -> ChainEvalResult:
    fields = {"chaineval": 0.5, "fac": 0.0, "step_precision": 0.5, "step_recall": 0.25, "step_f1": 0.333,
              "first_error_step": 2, "n_gold_steps": 4, "n_pred_steps": 3, "parse_ok": 1.0, "fac_strict": 0.0}
    return ChainEvalResult(**{**fields, **over})


def _verdict(text: str = "t", **over) -> Verdict:
    rows = [Row(1, text, text, 1, text, text, 0.9, 1.0, 0.9, True), Row(2, text, text, None, "", "")]
    fields = {"problem_id": "finchain/d/t/x/0", "profile": "paper", "result": _result(), "rows": rows,
              "gold_answer": "$5.00", "model_answer": "$4.00", "prm": "calc", "prm_reward": 0.5}
    return Verdict(**{**fields, **over})


@pytest.fixture(scope="module")
def text_problem():
    problem = all_templates()[TEXT_TEMPLATE].generate(0)
    steps = tuple(dataclasses.replace(s, value=EVIL) if isinstance(s.value, str) else s for s in problem.steps)
    return problem, steps


@pytest.mark.parametrize("field", ["question", "level", "template", "description", "unit", "value", "formula",
                                   "task_version"])
def test_rule_every_text_of_a_problem_view_is_escaped(text_problem, field):
    problem, steps = text_problem
    if field in ("question", "level", "template"):
        problem = dataclasses.replace(problem, **{field: EVIL})
    elif field in ("description", "unit"):
        problem = dataclasses.replace(problem, steps=tuple(dataclasses.replace(s, **{field: EVIL})
                                                           for s in problem.steps))
    elif field == "value":
        problem = dataclasses.replace(problem, steps=steps)
    html = views.problem_html(problem, EVIL if field == "task_version" else "1")
    assert "<i>" not in html
    assert (ESCAPED if field != "formula" else "&gt; 1.96 else &#x27;not significant&#x27;") in html


@pytest.mark.parametrize("field", ["template", "question"])
def test_rule_the_problem_id_and_question_appear_once_each_escaped(text_problem, field):
    problem = dataclasses.replace(text_problem[0], **{field: EVIL})
    html = views.problem_html(problem, "1")
    assert html.count(ESCAPED) == (2 if field == "template" else 1)  # the id: in an attribute and the heading


@pytest.mark.parametrize("compact", [False, True])
@pytest.mark.parametrize("where", ["row", "title", "profile", "prm", "model_answer", "gold_answer"])
def test_rule_every_text_of_a_verdict_is_escaped(where, compact):
    v = _verdict(EVIL if where == "row" else "t", **({where: EVIL} if where not in ("row", "title") else {}))
    html = views.verdict_html(v, EVIL if where == "title" else "", compact=compact)
    assert "<i>" not in html and ESCAPED in html


@pytest.mark.parametrize("compact", [False, True])
def test_rule_each_step_text_and_value_of_a_verdict_row_is_escaped(compact):
    rows = [Row(1, "<g1>", "<g2>", 1, "<p1>", "<p2>", 0.9, 1.0, 0.9, True)]
    html = views.verdict_html(_verdict(rows=rows), compact=compact)
    for tag in ("g1", "g2", "p1", "p2"):
        assert f"&lt;{tag}&gt;" in html and f"<{tag}>" not in html


def test_rule_each_answer_label_of_a_comparison_is_escaped():
    html = views.compare_html([(EVIL, _verdict()), ("b", _verdict())])
    assert "<i>" not in html and html.count(ESCAPED) == 2  # the summary line and the verdict's heading


def test_rule_a_message_is_escaped():
    assert views.message(EVIL) == f'<div class="fx"><p class="bad" data-kind="error">{ESCAPED}</p></div>'


@pytest.mark.parametrize("key", ["model", "sample_id", "level", "versus"])
def test_rule_every_text_of_a_samples_table_is_escaped(key):
    row = {"model": "a", "sample_id": "s", "level": "easy", "chaineval": 0.5, "fac": 1.0, "first_error_step": 1,
           "versus": "b", "versus_chaineval": 0.25, "difference": 0.25, key: EVIL}
    html = views.samples_html([row])
    assert "<i>" not in html and ESCAPED in html


@pytest.mark.parametrize("pairs, columns", [
    (False, ["model", "sample_id", "level", "chaineval", "fac", "first_error_step"]),
    (True, ["model", "sample_id", "level", "chaineval", "versus", "versus_chaineval", "difference", "fac",
            "first_error_step"]),
])
def test_rule_the_samples_table_shows_these_columns_in_this_order(pairs, columns):
    row = {"model": "a", "sample_id": "s", "level": "easy", "chaineval": 0.5, "fac": 1.0, "first_error_step": 1,
           **({"versus": "b", "versus_chaineval": 0.25, "difference": 0.25} if pairs else {})}
    html = views.samples_html([row])
    assert html.split("<tr>")[1].split("</tr>")[0] == "".join(f"<th>{c}</th>" for c in columns)


@pytest.mark.parametrize("metric", ["chaineval", "fac", "fac_strict", "step_f1", "step_precision", "step_recall",
                                    "first_error_step", "n_gold_steps", "n_pred_steps", "parse_ok"])
def test_rule_every_metric_of_a_verdict_is_listed(metric):
    html = views.verdict_html(_verdict())
    assert f"<tr><th>{metric}</th><td class='num'>" in html


# -- the guard --------------------------------------------------------------------------------------

@pytest.mark.parametrize("host, names", [
    ("127.0.0.1", {"127.0.0.1:7", "localhost:7"}),
    ("localhost", {"127.0.0.1:7", "localhost:7"}),
    ("::1", {"[::1]:7", "localhost:7"}),
    ("[::1]", {"[::1]:7", "localhost:7"}),
])
def test_rule_each_loopback_address_serves_under_its_own_names_and_localhost(host, names):
    assert guard.local_policy(host, 7).hosts == frozenset(names)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.5", "example.com", "127.0.0.2"])
def test_rule_any_other_address_needs_the_network_flag(host):
    with pytest.raises(ValueError, match="--share-on-network"):
        guard.local_policy(host, 7)


def test_rule_a_network_explorer_lets_this_machine_in_by_its_ipv4_loopback_names():
    assert guard.network_policy(7).local == frozenset({"127.0.0.1:7", "localhost:7"})


P = 7860
HOST = {"host": f"127.0.0.1:{P}"}
NAVIGATE = {**HOST, "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate", "sec-fetch-dest": "document"}


@pytest.mark.parametrize("method, path, headers, allowed", [
    ("POST", "/x", {**HOST, "sec-fetch-site": "same-origin"}, True),
    ("POST", "/x", {**HOST, "sec-fetch-site": "none"}, True),
    ("POST", "/x", {**HOST, "sec-fetch-site": "NONE "}, True),
    ("POST", "/x", HOST, True),  # no header: an older browser or a script of the user's own
    ("POST", "/x", {**HOST, "sec-fetch-site": "same-site"}, False),
    ("GET", "/", NAVIGATE, True),  # a permalink clicked in another page
    ("HEAD", "/", NAVIGATE, True),
    ("POST", "/", NAVIGATE, False),
    ("GET", "/config", NAVIGATE, False),
])
def test_rule_the_users_own_requests_and_a_top_level_visit_of_the_page_get_through(method, path, headers, allowed):
    assert (guard.refusal(guard.local_policy("127.0.0.1", P), method, path, headers) is None) is allowed


SHARED = guard.Policy(frozenset(), "tok", frozenset({f"localhost:{P}", f"[::1]:{P}"}))


@pytest.mark.parametrize("peer, host, allowed", [
    ("127.0.0.1", f"localhost:{P}", True), ("::1", f"[::1]:{P}", True), ("::1", f"localhost:{P}", True),
    ("10.0.0.9", f"localhost:{P}", False), ("127.0.0.2", f"localhost:{P}", False), ("", f"localhost:{P}", False),
    ("127.0.0.1", f"192.168.1.5:{P}", False),
])
def test_rule_only_a_loopback_peer_at_a_local_name_needs_no_token(peer, host, allowed):
    assert (guard.refusal(SHARED, "GET", "/", {"host": host}, peer=peer) is None) is allowed


def _sent(kind: str) -> list[dict]:
    sent: list[dict] = []

    async def send(message: dict) -> None:
        sent.append(message)

    async def app(scope, receive, send_) -> None:
        raise AssertionError("the app was reached")

    scope = {"type": kind, "method": "GET", "path": "/", "headers": [(b"host", b"evil.example")]}
    asyncio.run(guard.Guard(app, guard.local_policy("127.0.0.1", P))(scope, None, send))
    return sent


def test_rule_a_refused_http_request_gets_a_plain_text_403_naming_why():
    body = b"403 forbidden: Host 'evil.example' is not this explorer's address\n"
    assert _sent("http") == [
        {"type": "http.response.start", "status": 403,
         "headers": [(b"content-type", b"text/plain; charset=utf-8"), (b"content-length", str(len(body)).encode())]},
        {"type": "http.response.body", "body": body}]


def test_rule_a_refused_websocket_is_closed_with_policy_violation():
    assert _sent("websocket") == [{"type": "websocket.close", "code": 1008}]


def test_rule_lifespan_messages_pass_the_guard_untouched():
    seen = []

    async def app(scope, receive, send) -> None:
        seen.append(scope["type"])

    asyncio.run(guard.Guard(app, guard.local_policy("127.0.0.1", P))({"type": "lifespan"}, None, None))
    assert seen == ["lifespan"]


def test_the_text_template_still_has_a_text_step_computed_by_a_comparison():
    """The escape tests above rely on it (a formula with ``>`` and quotes, a text value)."""
    problem = all_templates()[TEXT_TEMPLATE].generate(0)
    assert any(isinstance(s.value, str) and ">" in s.formula and "'" in s.formula for s in problem.steps)


def test_rule_the_problem_id_of_every_template_parses():
    for template_id in all_templates():
        assert problems.parse_problem_id(f"finchain/{template_id}/0") == (template_id, 0)
