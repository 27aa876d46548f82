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


# == issue 39's mutmut pass: the rules its survivors showed unpinned ==================================

# -- the catalogue and problems ------------------------------------------------------------------------

def test_rule_the_catalogue_lists_every_template_once_under_its_domain_and_topic_with_its_level():
    listed = [(d, t, name, level) for d, topics in problems.catalogue().items() for t, items in topics.items()
              for name, level in items]
    assert sorted(listed) == sorted((t.domain, t.topic, t.name, t.level) for t in all_templates().values())
    assert len(listed) == len(all_templates())


@pytest.mark.parametrize("domain, topic, level", [
    ("", "", ""), ("crypto_finance", "", ""), ("", "global_events_impact", ""), ("", "", "advanced"),
    ("crypto_finance", "global_events_impact", ""), ("crypto_finance", "", "easy"),
    ("crypto_finance", "global_events_impact", "intermediate"), ("no_such_domain", "", ""),
])
def test_rule_template_ids_keep_the_chosen_domain_topic_and_level_and_any_when_empty(domain, topic, level):
    expected = [t.id for t in all_templates().values() if (not domain or t.domain == domain)
                and (not topic or t.topic == topic) and (not level or t.level == level)]
    assert problems.template_ids(domain, topic, level) == expected
    left_out = {k: v for k, v in (("domain", domain), ("topic", topic), ("level", level)) if v}
    assert problems.template_ids(**left_out) == expected  # a filter left out is any, as an empty one
    assert bool(expected) is (domain != "no_such_domain")
    assert all(tid.split("/")[0] == domain for tid in expected if domain)


def test_rule_a_problem_id_naming_no_template_says_so_in_one_line():
    with pytest.raises(ValueError, match=r"^no template 'a/b/c'; `finchain list` shows them$"):
        problems.parse_problem_id("finchain/a/b/c/1")
    with pytest.raises(ValueError, match=r"^no template 'a/b/c'; `finchain list` shows them$"):
        problems.load("a/b/c", 1)


@pytest.mark.parametrize("text, shown", [("finchain/x", "'finchain/x'"), ("y" * 200, repr("y" * 120))])
def test_rule_a_bad_problem_id_is_quoted_in_the_error_up_to_120_characters(text, shown):
    with pytest.raises(ValueError) as raised:
        problems.parse_problem_id(text)
    assert str(raised.value) == (f"not a FinChain problem id: {shown} "
                                 "(expected finchain/<domain>/<topic>/<template>/<seed>)")


@pytest.mark.parametrize("seed, expected", [(" 12 ", 12), ("0", 0), (7, 7), ("ten", "got 'ten'"),
                                            ("9" * 60, f"got {int('9' * 60)}"), ("x" * 60, f"got {'x' * 40!r}"),
                                            ("1.5", "got '1.5'")])
def test_rule_a_seed_is_read_as_a_whole_number_and_a_bad_one_is_quoted(seed, expected):
    if isinstance(expected, int):
        assert problems.check_seed(seed) == expected
    else:
        with pytest.raises(ValueError) as raised:
            problems.check_seed(seed)
        assert str(raised.value) == f"a seed is a whole number in [0, {MAX_SEED}], {expected}"


@pytest.mark.parametrize("drawn", [0, 1, MAX_SEED - 1_000_000])
def test_rule_a_fresh_seed_lies_from_the_fresh_floor_to_max_seed(monkeypatch, drawn):
    from finchain_tasks.finchain.generate import FRESH_SEED_FLOOR

    asked = []
    monkeypatch.setattr(problems.secrets, "randbelow", lambda n: asked.append(n) or drawn)
    assert problems.fresh_seed() == FRESH_SEED_FLOOR + drawn
    assert asked == [MAX_SEED - FRESH_SEED_FLOOR + 1]  # every seed from the floor to MAX_SEED, both included


def test_rule_a_problem_loads_by_template_and_seed_and_a_bad_seed_is_refused():
    problem = problems.load(TEXT_TEMPLATE, 3)
    assert problem.id == f"finchain/{TEXT_TEMPLATE}/3"
    with pytest.raises(ValueError, match="a seed is a whole number"):
        problems.load(TEXT_TEMPLATE, -1)


def test_rule_a_templates_source_is_its_python_function():
    source = problems.source_of(TEXT_TEMPLATE)
    assert source.lstrip().startswith(("def ", "@")) and all_templates()[TEXT_TEMPLATE].fn.__name__ in source


@pytest.mark.parametrize("base, case, query", [
    ("http://h:1/", problems.Case(TEXT_TEMPLATE, 3), {"problem": f"finchain/{TEXT_TEMPLATE}/3", "profile": "paper"}),
    ("http://h:1//", problems.Case(TEXT_TEMPLATE, 3, model="m"),
     {"problem": f"finchain/{TEXT_TEMPLATE}/3", "profile": "paper", "model": "m"}),
    ("http://h:1", problems.Case(TEXT_TEMPLATE, 3, params="  tau=0.5 ", prm=" none "),
     {"problem": f"finchain/{TEXT_TEMPLATE}/3", "profile": "paper", "params": "tau=0.5", "prm": "none"}),
    ("http://h:1", problems.Case(TEXT_TEMPLATE, 3, params="   ", prm=" calc "),
     {"problem": f"finchain/{TEXT_TEMPLATE}/3", "profile": "paper"}),  # blank params, the default PRM: left out
    ("http://BOX/", problems.Case(TEXT_TEMPLATE, 3), {"problem": f"finchain/{TEXT_TEMPLATE}/3", "profile": "paper"}),
])
def test_rule_a_permalink_carries_each_setting_only_when_it_is_not_the_default(base, case, query):
    from urllib.parse import parse_qsl, urlsplit

    link = problems.permalink(base, case)
    assert link.startswith(base.rstrip("/") + "/?") and dict(parse_qsl(urlsplit(link).query)) == query


@pytest.mark.parametrize("query, expected", [
    ({}, None), ({"problem": ""}, None), ({"profile": "paper"}, None),
    ({"id": f"finchain/{TEXT_TEMPLATE}/4"}, problems.Case(TEXT_TEMPLATE, 4)),  # `id` names the problem too
    ({"problem": f"finchain/{TEXT_TEMPLATE}/4", "profile": ""}, problems.Case(TEXT_TEMPLATE, 4)),
    ({"problem": f"finchain/{TEXT_TEMPLATE}/4", "model": "m" * 300, "params": "p" * 600, "prm": "r" * 300},
     problems.Case(TEXT_TEMPLATE, 4, model="m" * 200, params="p" * 500, prm="r" * 200)),
])
def test_rule_a_query_names_a_case_by_problem_or_id_with_defaults_and_bounded_fields(query, expected):
    assert problems.case_from_query(query) == expected


# -- a run's samples, without a log ---------------------------------------------------------------------

def _rows_of(rows_by_source):
    def source_rows(path):
        found = rows_by_source[str(path)]
        if isinstance(found, Exception):
            raise found
        return found
    return source_rows


@pytest.mark.parametrize("error, line", [
    (ValueError("first line\nsecond line"), "first line"),
    (ValueError(""), "ValueError"),
    (OSError("gone"), "gone"),
])
def test_rule_an_unreadable_source_is_one_line_naming_it_and_the_others_still_load(monkeypatch, error, line):
    from finchain_tasks.leaderboard import ingest

    good = [{"sample_id": "finchain/d/t/x/1", "model": "m", "extra": 1}]
    monkeypatch.setattr(ingest, "source_rows", _rows_of({"bad": error, "good": good}))
    rows, bad = run_samples.load_samples(["bad", " good "])
    assert bad == [f"bad: {line}"]
    assert rows == [{**{k: None for k in run_samples.KEEP}, "sample_id": "finchain/d/t/x/1", "model": "m"}]


def test_rule_only_finchain_samples_load_and_a_source_path_may_start_with_home(monkeypatch):
    from pathlib import Path

    from finchain_tasks.leaderboard import ingest

    home = str(Path("~/runs").expanduser())
    rows = [{"sample_id": s} for s in ("finchain/d/t/x/1", "cflue/1", None, "", "authors/d/t/x/1", "finchain/2")]
    monkeypatch.setattr(ingest, "source_rows", _rows_of({home: rows}))
    loaded, bad = run_samples.load_samples(["~/runs"])
    assert bad == [] and [r["sample_id"] for r in loaded] == ["finchain/d/t/x/1", "finchain/2"]


SAMPLE_ROWS = [
    {"model": "a", "sample_id": "s1", "domain": "d1", "level": "easy", "chaineval": 0.5},
    {"model": "b", "sample_id": "s1", "domain": "d1", "level": "easy", "chaineval": 0.9},
    {"model": "a", "sample_id": "s2", "domain": "d2", "level": "advanced", "chaineval": 0.8},
    {"model": "b", "sample_id": "s2", "domain": "d2", "level": "advanced", "chaineval": 0.6},
    {"model": "a", "sample_id": "s3", "domain": "d1", "level": "advanced", "chaineval": 0.1},
]


@pytest.mark.parametrize("filters, kept", [
    (run_samples.Filters(), [0, 1, 2, 3, 4]),
    (run_samples.Filters(domain="d1"), [0, 1, 4]),
    (run_samples.Filters(level="advanced"), [2, 3, 4]),
    (run_samples.Filters(domain="d1", level="advanced"), [4]),
    (run_samples.Filters(model="b"), [1, 3]),
    (run_samples.Filters(model="b", domain="d2"), [3]),
    (run_samples.Filters(versus="b"), [0, 1, 2, 3, 4]),  # versus alone: no pairing, no model filter
    (run_samples.Filters(model="zz"), []),
])
def test_rule_each_filter_keeps_its_value_only_and_an_empty_one_keeps_all(filters, kept):
    assert run_samples.apply(SAMPLE_ROWS, filters) == [SAMPLE_ROWS[k] for k in kept]


def test_rule_a_comparison_lists_the_largest_difference_first_whatever_its_sign():
    pairs = run_samples.apply(SAMPLE_ROWS, run_samples.Filters(model="a", versus="b"))
    assert [(p["sample_id"], p["versus"], p["versus_chaineval"], round(p["difference"], 3)) for p in pairs] == [
        ("s1", "b", 0.9, -0.4), ("s2", "b", 0.6, 0.2)]  # s3: b never answered it
    assert run_samples.apply(SAMPLE_ROWS, run_samples.Filters(model="a", versus="b", domain="d2"))[0]["sample_id"] \
        == "s2"


@pytest.mark.parametrize("mine, theirs, paired", [
    (0.5, 0.25, True), (0, 0.25, True), (0.5, 0, True), (None, 0.25, False), (0.5, None, False),
    (float("nan"), 0.25, False), (0.5, float("nan"), False),
])
def test_rule_a_pair_needs_a_score_on_both_sides(mine, theirs, paired):
    rows = [{"model": "a", "sample_id": "s", "chaineval": mine}, {"model": "b", "sample_id": "s", "chaineval": theirs}]
    pairs = run_samples.disagreements(rows, "a", "b")
    assert bool(pairs) is paired
    if paired:
        assert pairs[0]["difference"] == float(mine) - float(theirs) and type(pairs[0]["versus_chaineval"]) is float


def test_rule_the_models_are_listed_once_each_in_order_without_blanks():
    rows = [{"model": "b"}, {"model": "a"}, {"model": "b"}, {"model": ""}, {"model": None}, {}]
    assert run_samples.models(rows) == ["a", "b"]


# -- views ---------------------------------------------------------------------------------------------

@pytest.mark.parametrize("kind, tone", [("error", "bad"), ("info", "none"), ("warning", "none")])
def test_rule_a_message_is_red_only_for_an_error(kind, tone):
    assert views.message("m", kind) == f'<div class="fx"><p class="{tone}" data-kind="{kind}">m</p></div>'


@pytest.mark.parametrize("value, shown", [(False, "0"), (True, "1"), (7, "7"), (0.5, "0.500"), ("x", "x"),
                                          (None, "—"), (float("nan"), "—"), (2.0, "2.000")])
def test_rule_a_metric_reads_as_the_run_report_writes_it(value, shown):
    assert views.score_text(value) == shown


@pytest.mark.parametrize("value, shown", [(None, "—"), (float("nan"), "—"), (0.25, "0.250"), (3, "3"),
                                          ("x", "x"), (0, "0"), (2.0, "2.000")])
def test_rule_a_samples_table_cell_is_a_dash_a_3_decimal_number_or_the_text(value, shown):
    html = views.samples_html([{"model": value}])
    assert html.split("<td>")[1].split("</td>")[0] == shown


@pytest.mark.parametrize("n, limit, shown, note", [(1, 200, 1, ""), (200, 200, 200, ""), (201, 200, 200, "200 of 201"),
                                                  (3, 2, 2, "2 of 3")])
def test_rule_the_samples_table_shows_up_to_its_limit_and_says_how_many_there_are(n, limit, shown, note):
    html = views.samples_html([{"model": "m"}] * n, limit) if limit != 200 else views.samples_html([{"model": "m"}] * n)
    assert html.count("<tr>") == shown + 1 and f"data-count='{n}'" in html
    assert (f"<p class='none'>showing {note}</p>" in html) is bool(note) and ("showing" in html) is bool(note)


def test_rule_no_sample_is_an_info_message():
    assert views.samples_html([]) == views.message("no sample matches these filters", "info")


@pytest.mark.parametrize("fac, strict, text", [
    (1.0, 1.0, "final answer <span class='ok'>right</span> (within rounding)"),
    (1.0, 0.0, "final answer <span class='ok'>right</span> (within 5% only)"),
    (0.0, 0.0, "final answer <span class='bad'>wrong</span> ·"),
])
def test_rule_the_headline_says_whether_the_final_answer_is_right_and_how(fac, strict, text):
    html = views.verdict_html(_verdict(result=_result(fac=fac, fac_strict=strict)))
    assert text in html and f"data-fac='{int(fac)}'" in html


@pytest.mark.parametrize("first, shown, attr", [(2, "gold step 2", "2"), (None, "none", ""), (0, "none", "")])
def test_rule_the_headline_names_the_first_error_step_or_none(first, shown, attr):
    html = views.verdict_html(_verdict(result=_result(first_error_step=first)))
    assert f"<b class='fx-first-error'>{shown}</b>" in html and f"data-first-error='{attr}'" in html


@pytest.mark.parametrize("prm, reward, shown", [("calc", 0.5, " · PRM <code>calc</code> reward 0.500</p>"),
                                                ("", 0.5, "</b></p>"), ("calc", None, "</b></p>"),
                                                ("calc", 0.0, " · PRM <code>calc</code> reward 0.000</p>")])
def test_rule_the_headline_shows_the_prms_reward_when_there_is_one(prm, reward, shown):
    html = views.verdict_html(_verdict(prm=prm, prm_reward=reward))
    assert shown in html and (" · PRM " in html) is (shown.startswith(" · PRM"))


def test_rule_the_headline_gives_chaineval_profile_and_step_f1_to_3_decimals():
    html = views.verdict_html(_verdict(result=_result(chaineval=0.12345, step_f1=0.6666)), "T")
    assert ("<h4>T</h4><p class='headline'><b>ChainEval 0.123</b> (profile <code>paper</code>) · " in html
            and "step F1 0.667 · first error" in html)
    assert "<h4>" not in views.verdict_html(_verdict())


ROWS_SHOWN = [
    (Row(1, "g", "1", 1, "p", "2", 0.9, 1.0, 0.9, True, False, True),
     "<tr data-gold='1' data-pred='1'><td class='gold'>1. g</td><td class='num'>1</td><td>1. p</td>"
     "<td class='num'>2</td><td class='num'>0.90</td><td class='num'>1.00</td><td class='num'>0.90</td>"
     "<td><span class='ok'>matched</span></td><td><span class='ok'>✓ sound</span></td></tr>",
     "<tr data-gold='1' data-pred='1'><td class='gold'>1. g<br><b class='val'>1</b></td><td>1. p<br>"
     "<b class='val'>2</b></td><td class='num'>0.90<br><span class='none'>0.90 × 1.00</span></td>"
     "<td><span class='ok'>matched</span><br><span class='ok'>✓ sound</span></td></tr>"),
    (Row(2, "g", "1", 3, "p", "2", 0.25, 0.0, 0.0, False, True, False),
     "<tr class='first-error' data-gold='2' data-pred='3'><td class='gold'>2. g</td><td class='num'>1</td>"
     "<td>3. p</td><td class='num'>2</td><td class='num'>0.25</td><td class='num'>0.00</td>"
     "<td class='num'>0.00</td><td><span class='bad'>unmatched</span></td><td><span class='bad'>✗ wrong</span></td>"
     "</tr>",
     "<tr class='first-error' data-gold='2' data-pred='3'><td class='gold'>2. g<br><b class='val'>1</b></td>"
     "<td>3. p<br><b class='val'>2</b></td><td class='num'>0.00<br><span class='none'>0.25 × 0.00</span></td>"
     "<td><span class='bad'>unmatched</span><br><span class='bad'>✗ wrong</span></td></tr>"),
    (Row(3, "g", "1", None, "", ""),
     "<tr data-gold='3' data-pred=''><td class='gold'>3. g</td><td class='num'>1</td>"
     "<td><span class='none'>(no model step)</span></td><td class='num'></td><td class='num'></td>"
     "<td class='num'></td><td class='num'></td><td><span class='bad'>unmatched</span></td><td></td></tr>",
     "<tr data-gold='3' data-pred=''><td class='gold'>3. g<br><b class='val'>1</b></td>"
     "<td><span class='none'>(no model step)</span></td><td class='num'></td>"
     "<td><span class='bad'>unmatched</span></td></tr>"),
    (Row(None, "", "", 4, "p", "2", calc=None),
     "<tr data-gold='' data-pred='4'><td class='gold'></td><td class='num'></td><td>4. p</td>"
     "<td class='num'>2</td><td class='num'></td><td class='num'></td><td class='num'></td>"
     "<td><span class='none'>extra step</span></td><td><span class='none'>—</span></td></tr>",
     "<tr data-gold='' data-pred='4'><td class='gold'></td><td>4. p<br><b class='val'>2</b></td>"
     "<td class='num'></td><td><span class='none'>extra step</span><br><span class='none'>—</span></td></tr>"),
]


@pytest.mark.parametrize("row, full, compact", ROWS_SHOWN)
def test_rule_each_alignment_row_shows_its_steps_values_scores_status_and_calc_verdict(row, full, compact):
    assert views._row(row) == full and views._compact_row(row) == compact
    assert full in views.verdict_html(_verdict(rows=[row])) and compact in views.verdict_html(_verdict(rows=[row]),
                                                                                              compact=True)


@pytest.mark.parametrize("compact, head", [(False, views.FULL_HEAD), (True, views.COMPACT_HEAD)])
def test_rule_each_layout_has_its_own_header(compact, head):
    assert f"<table><thead>{head}</thead>" in views.verdict_html(_verdict(), compact=compact)


@pytest.mark.parametrize("value, tone", [(0.0, 255), (1.0, 95), (0.5, 175), (1.5, 95), (-0.5, 255), (0.25, 215)])
def test_rule_a_heat_map_cell_is_shaded_by_its_score_clipped_to_0_1(value, tone):
    v = _verdict(matrices={"score": [[value]], "similarity": [[0.125]], "gate": [[1.0]]})
    html = views.heatmap_html(v)
    assert (f"<td style='background: rgb({tone},{tone},255);' title='similarity 0.12 × gate 1.00'>{value:.2f}</td>"
            in html)


def test_rule_a_heat_map_outlines_the_aligned_pairs_and_names_rows_and_columns():
    result = dataclasses.replace(_result(), alignment=[{"gold": 1, "pred": 2}, {"gold": 2, "pred": 1}])
    v = _verdict(result=result, matrices={"score": [[0.1, 0.2], [0.3, 0.4]]})
    html = views.heatmap_html(v)
    cells = html.split("<td ")[1:]
    assert ["outline: 2px solid #1f2937;" in c for c in cells] == [False, True, True, False]
    assert "<tr><th></th><th>m1</th><th>m2</th></tr>" in html and "<th>g1</th>" in html and "<th>g2</th>" in html
    assert "title='similarity 0.20 × gate 0.20'" in html  # without those matrices: the score stands for both


@pytest.mark.parametrize("matrices", [{}, {"score": []}, {"score": [[]]}])
def test_rule_a_heat_map_without_scores_is_an_info_message(matrices):
    assert views.heatmap_html(_verdict(matrices=matrices)) == views.message(
        "no score matrix: the output has no steps", "info")


@pytest.mark.parametrize("first, shown", [(2, "2"), (None, "—")])
def test_rule_a_comparisons_summary_line_gives_each_answers_figures(first, shown):
    v = _verdict(result=_result(chaineval=0.12345, fac=1.0, step_f1=0.6666, first_error_step=first))
    html = views.compare_html([("a", v)])
    assert (f"<tr><td>a</td><td class='num'>0.123</td><td class='num'>1</td><td class='num'>0.667</td>"
            f"<td class='num'>{shown}</td></tr>") in html
    assert "<div class='fx-compare-col'><div class='fx fx-verdict'" in html and COMPACT_MARK in html


COMPACT_MARK = views.COMPACT_HEAD


# -- the guard -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("headers, method, path, why", [
    ({}, "GET", "/", "no Host header"),
    ({"host": "  "}, "GET", "/", "no Host header"),
    ({"host": "evil.example"}, "GET", "/", "Host 'evil.example' is not this explorer's address"),
    ({"host": "e" * 100}, "GET", "/", f"Host {'e' * 80!r} is not this explorer's address"),
    ({**HOST, "origin": "http://evil.example"}, "POST", "/x", "cross-origin request from 'http://evil.example'"),
    ({**HOST, "origin": "o" * 100}, "POST", "/x", f"cross-origin request from {'o' * 80!r}"),
    ({**HOST, "sec-fetch-site": "cross-site"}, "POST", "/x", "cross-site request (Sec-Fetch-Site: cross-site)"),
    ({**HOST, "sec-fetch-site": "S" * 60}, "POST", "/x", f"cross-site request (Sec-Fetch-Site: {'s' * 40})"),
])
def test_rule_a_refusal_names_its_reason_in_one_bounded_line(headers, method, path, why):
    assert guard.refusal(guard.local_policy("127.0.0.1", P), method, path, headers) == why


@pytest.mark.parametrize("headers, allowed", [
    ({"host": f" 127.0.0.1:{P} "}, True), ({"host": f"LOCALHOST:{P}"}, True),
    ({**HOST, "origin": f" HTTP://127.0.0.1:{P} "}, True),
    ({"host": f"127.0.0.1:{P}", "sec-fetch-site": "cross-site", "sec-fetch-mode": "navigate"}, True),  # dest: page
    ({"host": f"127.0.0.1:{P}", "sec-fetch-site": "cross-site", "sec-fetch-dest": "document"}, False),  # no mode
])
def test_rule_host_and_origin_are_compared_trimmed_and_in_any_case_and_a_navigation_defaults_to_the_page(headers,
                                                                                                   allowed):
    assert (guard.refusal(guard.local_policy("127.0.0.1", P), "GET", "/", headers) is None) is allowed


@pytest.mark.parametrize("query, cookie, allowed", [
    ("tok", "", True), ("", "tok", True), ("bad", "tok", True), ("", "", False), ("bad", "", False),
    ("", "bad", False), ("tokk", "", False), ("to", "", False),
])
def test_rule_a_shared_explorer_takes_its_token_from_the_query_or_the_cookie(query, cookie, allowed):
    why = guard.refusal(SHARED, "GET", "/", {"host": "192.168.1.5:1"}, query, cookie, peer="10.0.0.9")
    assert (why is None) is allowed
    assert allowed or why == "this explorer is shared on the network: open the address with ?token=... that it printed"


def test_rule_a_network_explorers_token_is_128_random_bits_urlsafe():
    import re

    tokens = {guard.network_policy(P).token for _ in range(5)}
    assert len(tokens) == 5 and all(re.fullmatch(r"[A-Za-z0-9_-]{22}", t) for t in tokens)


def _through(policy, scope_over, start_headers=None):
    """What the app saw and what the client got for one request through the guard."""
    seen, sent = [], []

    async def app(scope, receive, send):
        seen.append(scope)
        await send({"type": "http.response.start", "status": 200,
                    **({"headers": list(start_headers)} if start_headers is not None else {})})
        await send({"type": "http.response.body", "body": b"ok"})

    async def send(message):
        sent.append(message)

    scope = {"type": "http", "method": "GET", "path": "/", "query_string": b"", "client": ("10.0.0.9", 1),
             "headers": [(b"host", b"192.168.1.5:1")], **scope_over}
    asyncio.run(guard.Guard(app, policy)(scope, None, send))
    return seen, sent


@pytest.mark.parametrize("scope_over, cookie", [
    ({"query_string": b"token=tok"}, "finchain_explore_token=tok; Path=/; HttpOnly; SameSite=Strict"),
    ({"query_string": b"a=1&token=tok&token=x"}, "finchain_explore_token=tok; Path=/; HttpOnly; SameSite=Strict"),
    ({"query_string": b"token=tok", "headers": [(b"host", b"192.168.1.5:1"),
                                                (b"cookie", b"finchain_explore_token=tok")]}, None),
    ({"headers": [(b"host", b"192.168.1.5:1"), (b"Cookie", b"finchain_explore_token=tok")]}, None),
    ({"client": ("127.0.0.1", 1), "headers": [(b"host", f"localhost:{P}".encode())]}, None),  # no token: no cookie
    ({"query_string": b"token=tok", "headers": [(b"host", b"192.168.1.5:1"),
                                                (b"cookie", b"finchain_explore_token=old")]},
     "finchain_explore_token=tok; Path=/; HttpOnly; SameSite=Strict"),
])
def test_rule_a_token_given_in_the_query_is_kept_in_a_strict_http_only_cookie_once(scope_over, cookie):
    seen, sent = _through(SHARED, scope_over, [(b"x-a", b"1")])
    assert len(seen) == 1 and sent[1] == {"type": "http.response.body", "body": b"ok"}
    expected = [(b"x-a", b"1")] + ([(b"set-cookie", cookie.encode())] if cookie else [])
    assert sent[0] == {"type": "http.response.start", "status": 200, "headers": expected}
    if cookie:  # an app's start without headers gets the cookie alone
        assert _through(SHARED, scope_over)[1][0]["headers"] == [(b"set-cookie", cookie.encode())]


def test_rule_a_websocket_with_the_token_passes_without_a_cookie_and_the_peer_is_the_client():
    seen = []

    async def app(scope, receive, send):
        seen.append(scope["type"])
        await send({"type": "websocket.accept"})

    sent = []

    async def send(message):
        sent.append(message)

    for scope in ({"type": "websocket", "path": "/ws", "query_string": b"token=tok", "client": ("10.0.0.9", 1),
                   "headers": [(b"host", b"192.168.1.5:1")]},
                  {"type": "websocket", "path": "/ws", "client": ("127.0.0.1", 1),
                   "headers": [(b"host", f"localhost:{P}".encode())]},
                  {"type": "http", "method": "POST", "path": "/", "client": ("::1", 1),
                   "headers": [(b"host", f"[::1]:{P}".encode())]}):
        asyncio.run(guard.Guard(app, SHARED)(scope, None, send))
    assert seen == ["websocket", "websocket", "http"] and sent == [{"type": "websocket.accept"}] * 3


@pytest.mark.parametrize("method, allowed", [("GET", True), ("HEAD", True), ("POST", False), (None, True)])
def test_rule_the_guard_reads_the_requests_method_and_a_missing_one_is_a_get(method, allowed):
    over = {"headers": [(b"host", f"127.0.0.1:{P}".encode()), (b"sec-fetch-site", b"cross-site"),
                        (b"sec-fetch-mode", b"navigate")]}
    if method:
        over["method"] = method
    scope = {"type": "http", "path": "/", "client": ("127.0.0.1", 1), **over}
    seen, sent = [], []

    async def app(scope, receive, send):
        seen.append(1)

    async def send(message):
        sent.append(message)

    asyncio.run(guard.Guard(app, guard.local_policy("127.0.0.1", P))(scope, None, send))
    assert bool(seen) is allowed and (sent == []) is allowed


@pytest.mark.parametrize("compact, columns", [
    (False, ["gold step", "gold value", "model step", "model value", "similarity", "gate", "score", "alignment",
             "calc"]),
    (True, ["gold step", "model step", "score", "alignment"]),
])
def test_rule_each_alignment_layout_has_these_columns_in_this_order(compact, columns):
    html = views.verdict_html(_verdict(), compact=compact)
    head = html.split("<thead>")[1].split("</thead>")[0]
    assert head == "<tr>" + "".join(f"<th>{c}</th>" for c in columns) + "</tr>"


def test_rule_every_style_rule_is_scoped_to_the_explorers_own_classes():
    import re

    selectors = re.findall(r"(?m)^([^{}\n]+)\{", views.CSS)
    assert selectors and all(s.startswith((".fx", "@media")) for s in selectors), selectors
    assert views.CSS.strip().endswith("}") and views.CSS.count("{") == views.CSS.count("}")


# == issue 39's second look: the explorer's mutmut survivors ==========================================

# -- the guard -----------------------------------------------------------------------------------------

def test_rule_a_loopback_only_explorer_asked_for_another_address_says_how_to_share_it():
    with pytest.raises(ValueError) as err:
        guard.local_policy("0.0.0.0", P)
    assert str(err.value) == ("--host 0.0.0.0 serves the explorer beyond this machine: add --share-on-network "
                              "(the page then needs a random token from its URL), or keep --host 127.0.0.1")


def test_rule_a_network_explorer_accepts_any_host_name_as_an_empty_set():
    shared = guard.network_policy(P)
    assert shared.hosts == frozenset() and isinstance(shared.hosts, frozenset)
    assert guard.refusal(shared, "GET", "/", {"host": "any.name:1"}, query_token=shared.token, peer="10.0.0.9") is None


SOME_TOKENS = ["tok", "XXXX", "x" * 22, "Zm9vYmFyYmF6cXV4cXV1eA"]
"""Tokens of any shape a Policy may hold: short, placeholder-like, the network policy's 22 characters."""


@pytest.mark.parametrize("token", SOME_TOKENS)
def test_rule_a_request_carrying_no_token_is_refused_whatever_the_token_is(token):
    policy = guard.Policy(frozenset(), token)
    assert guard.refusal(policy, "GET", "/", {"host": "192.168.1.5:1"}, peer="10.0.0.9") is not None
    assert guard.refusal(policy, "GET", "/", {"host": "192.168.1.5:1"}, token, peer="10.0.0.9") is None
    assert guard.refusal(policy, "GET", "/", {"host": "192.168.1.5:1"}, "", token, peer="10.0.0.9") is None
    seen, sent = _through(policy, {})  # no query, no cookie header
    assert seen == [] and sent[0]["status"] == 403
    seen, sent = _through(policy, {"query_string": f"token={token}".encode()})
    assert len(seen) == 1 and dict(sent[0]["headers"])[b"set-cookie"].startswith(f"{guard.COOKIE}={token};".encode())


@pytest.mark.parametrize("kind", ["lifespan", "http", "websocket"])
def test_rule_the_guard_hands_the_app_the_very_receive_and_send_it_was_given(kind):
    """The app reads the request body (a POST's JSON) through ``receive`` and answers through ``send``."""
    got = []

    async def app(scope, receive, send):
        got.append((receive, send))

    async def receive():
        return {"type": "http.request", "body": b"{}"}

    async def send(message):
        raise AssertionError("the guard answered itself")

    scope = {"type": kind, "method": "POST", "path": "/gradio_api/queue/join", "client": ("127.0.0.1", 1),
             "headers": [(b"host", f"127.0.0.1:{P}".encode()), (b"origin", f"http://127.0.0.1:{P}".encode())]}
    asyncio.run(guard.Guard(app, guard.local_policy("127.0.0.1", P))(scope, receive, send))
    assert got == [(receive, send)]


# -- views: the markup and the cells shown -------------------------------------------------------------

class _Markup:
    """Every text node of a view with the tags open around it, and any tag closed out of order."""

    def __init__(self, html: str) -> None:
        from html.parser import HTMLParser

        self.texts: list[tuple[tuple[str, ...], str]] = []
        self.errors: list[str] = []
        stack: list[str] = []
        void = {"br"}
        outer = self

        class Parser(HTMLParser):
            def handle_starttag(self, tag, attrs):
                if tag not in void:
                    stack.append(tag)

            def handle_endtag(self, tag):
                if not stack or stack[-1] != tag:
                    outer.errors.append(f"</{tag}> closes {stack[-1:]}")
                else:
                    stack.pop()

            def handle_data(self, data):
                if data.strip():
                    outer.texts.append((tuple(stack), data))

        Parser(convert_charrefs=True).feed(html)
        if stack:
            self.errors.append(f"left open: {stack}")


STRUCTURE_ONLY = {"div", "table", "thead", "tbody", "tr", "details"}
"""Elements whose children are elements only: text there lands outside the table or the grid (a browser
moves stray text in a table above it, and a grid makes it a column of its own)."""


def _views_shown():
    problem = all_templates()[TEXT_TEMPLATE].generate(0)
    result = dataclasses.replace(_result(), alignment=[{"gold": 1, "pred": 2}, {"gold": 2, "pred": 1}])
    rows = [r[0] for r in ROWS_SHOWN]
    with_matrix = _verdict(result=result, rows=rows, matrices={"score": [[0.1, 0.2], [0.3, 0.4]]})
    sample = {"model": "a", "sample_id": "s", "level": "easy", "chaineval": 0.5, "fac": 1.0, "first_error_step": 1}
    paired = {**sample, "versus": "b", "versus_chaineval": 0.25, "difference": 0.25}
    return {
        "problem": views.problem_html(problem, "3.1.0"),
        "verdict": views.verdict_html(with_matrix, "T"),
        "verdict untitled without PRM": views.verdict_html(_verdict(rows=rows, prm="", prm_reward=None)),
        "verdict compact": views.verdict_html(with_matrix, compact=True),
        "heat map": views.heatmap_html(with_matrix),
        "comparison": views.compare_html([("a", with_matrix), ("b", _verdict(rows=rows))]),
        "samples over the limit": views.samples_html([sample, sample, sample], limit=2),
        "samples": views.samples_html([sample, sample]),
        "pairs": views.samples_html([paired, paired]),
        "message": views.message("m"),
    }


@pytest.mark.parametrize("name, html", list(_views_shown().items()), ids=list(_views_shown()))
def test_rule_each_view_nests_its_tags_and_holds_text_only_in_cells_and_paragraphs(name, html):
    markup = _Markup(html)
    assert markup.errors == [], name
    stray = [(tags, text) for tags, text in markup.texts if not tags or tags[-1] in STRUCTURE_ONLY]
    assert stray == [], name


def test_rule_a_problem_view_numbers_its_gold_steps_from_1_with_their_text_formula_value_and_unit():
    problem = all_templates()[TEXT_TEMPLATE].generate(0)
    from html import escape

    from finchain_tasks.explore.verdict import shown_value

    html = views.problem_html(problem, "3.1.0")
    assert ("<table><thead><tr><th>#</th><th>gold step</th><th>formula</th><th>value</th><th>unit</th></tr></thead>"
            "<tbody><tr><td class='num'>1</td>") in html
    gold = problem.gold_steps()
    assert len(gold) >= 2 and all(g.text and g.text != g.description for g in gold)
    for k, (s, g) in enumerate(zip(problem.steps, gold), 1):
        assert (f"<tr><td class='num'>{k}</td><td>{escape(g.text)}</td><td><code>{escape(s.formula)}</code></td>"
                f"<td class='num'>{escape(shown_value(s.value))}</td><td>{escape(s.unit)}</td></tr>") in html
    assert html.count("<tr>") == len(gold) + 1


@pytest.mark.parametrize("metric, value, shown", [
    ("chaineval", 0.12345, "0.123"), ("fac", 1.0, "1.000"), ("step_f1", 0.6666, "0.667"), ("first_error_step", 3, "3"),
    ("n_gold_steps", 4, "4"), ("parse_ok", 0.0, "0.000"),
])
def test_rule_every_metric_of_a_verdict_shows_its_value_as_the_run_report_does(metric, value, shown):
    html = views.verdict_html(_verdict(result=_result(**{metric: value})))
    assert f"<tr><th>{metric}</th><td class='num'>{shown}</td></tr>" in html


@pytest.mark.parametrize("prm, reward, title, start", [
    ("", None, "", "<div class='fx fx-verdict' data-first-error='2' data-fac='0'><p class='headline'>"),
    ("calc", None, "T", "<div class='fx fx-verdict' data-first-error='2' data-fac='0'><h4>T</h4><p class='headline'>"),
])
def test_rule_a_headline_without_a_prm_reward_ends_at_the_first_error_and_no_title_adds_nothing(prm, reward, title,
                                                                                                 start):
    html = views.verdict_html(_verdict(prm=prm, prm_reward=reward), title)
    assert html.startswith(start) and "first error: <b class='fx-first-error'>gold step 2</b></p><table>" in html


def test_rule_an_aligned_pair_of_the_heat_map_is_outlined_by_a_valid_style():
    result = dataclasses.replace(_result(), alignment=[{"gold": 1, "pred": 1}])
    html = views.heatmap_html(_verdict(result=result, matrices={"score": [[0.5]]}))
    assert "<td style='background: rgb(175,175,255);outline: 2px solid #1f2937;' title=" in html


def test_rule_a_comparisons_summary_table_has_these_headers():
    html = views.compare_html([("a", _verdict())])
    assert html.startswith("<div class='fx'><table><tr><th>answer</th><th>ChainEval</th><th>final answer</th>"
                           "<th>step F1</th><th>first error</th></tr><tr><td>a</td>")


@pytest.mark.parametrize("query, cookie, kept", [
    (b"token=tok", b"", "tok"),  # the right token: kept
    (b"token=tok", b"finchain_explore_token=old", "tok"),  # replaces a stale cookie
    (b"token=old", b"finchain_explore_token=tok", None),  # a stale link never overwrites the good cookie
    (b"token=", b"finchain_explore_token=tok", None),
    (b"token=tok", b"finchain_explore_token=tok", None),  # already kept
])
def test_rule_only_the_explorers_own_token_is_ever_kept_in_the_cookie(query, cookie, kept):
    headers = [(b"host", b"192.168.1.5:1")] + ([(b"cookie", cookie)] if cookie else [])
    seen, sent = _through(SHARED, {"query_string": query, "headers": headers}, [])
    assert len(seen) == 1 and sent[0]["status"] == 200
    expected = f"{guard.COOKIE}={kept}; Path=/; HttpOnly; SameSite=Strict" if kept else None
    assert dict(sent[0]["headers"]).get(b"set-cookie") == (expected.encode() if expected else None)
