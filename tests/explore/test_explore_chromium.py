"""``finchain explore`` as a user meets it: the command serving on 127.0.0.1, driven in real headless Chromium
(Debian's chromium and chromedriver, through selenium). One server and one browser for the module."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
from pathlib import Path

import pytest

from finchain_tasks.engine import all_templates
from scorers.chaineval import score
from tests.explore.conftest import problem_with_steps, wrong_at
from tests.leaderboard import browser
from tests.support.fake_openai import FakeOpenAI
from tests.support.timeouts import limit

pytestmark = pytest.mark.slow
HOSTILE = ('Step 1: <img src=x onerror="window.__xss = 1"> 1 + 1 = 2\n'
           'Step 2: <script>window.__xss = 2</script> 2 + 2 = 4\nFinal answer: 4')


def _lm_eval_output(folder: Path, model: str, problems: list, outputs: list[str]) -> None:
    """An lm-eval ``--log_samples`` output folder, as lm-eval writes it, for ``model``'s answers."""
    out = folder / model
    out.mkdir(parents=True)
    stamp = "2026-12-01T10-00-00.000000"
    (out / f"results_{stamp}.json").write_text(json.dumps(
        {"results": {}, "configs": {}, "config": {"model_args": f"model={model}"}, "date": 1764583200}))
    lines = []
    for k, (p, text) in enumerate(zip(problems, outputs)):
        r = score(p.gold(), text)
        buckets = {"no_error": float(r.first_error_step is None),
                   **{f"err_{n}": float(r.first_error_step == n) for n in (1, 2, 3)}, "err_4plus": 0.0}
        lines.append(json.dumps({"doc_id": k, "doc": {"id": p.id, **p.metadata()}, "resps": [[text]],
                                 "chaineval": r.chaineval, "fac": r.fac, **buckets}))
    (out / f"samples_finchain_x_{stamp}.jsonl").write_text("\n".join(lines) + "\n")


@pytest.fixture(scope="module")
def problem():
    return problem_with_steps()


@pytest.fixture(scope="module")
def model_server(problem):
    """The fake OpenAI server behind the local model name: it records every call the app makes."""
    fake = FakeOpenAI(reply=wrong_at(problem.solution, 3)).start()
    yield fake
    fake.stop()


@pytest.fixture(scope="module")
def site(tmp_path_factory, problem, model_server):
    """The command's URL, with the local model pointed at a fake OpenAI server and a runs folder to browse."""
    if not browser.available():
        pytest.fail("Chromium and chromedriver are needed: apt-get install chromium chromium-driver (.ci/run does)")
    root = tmp_path_factory.mktemp("explore")
    others = [t.generate(1) for t in list(all_templates().values())[:3]]
    probs = [problem, *others]
    _lm_eval_output(root / "runs", "model-a", probs, [p.solution for p in probs])
    wrong = wrong_at(problem.solution, 2).rsplit("Final answer:", 1)[0] + "Final answer: 1"
    _lm_eval_output(root / "runs", "model-b", probs, [wrong, HOSTILE, *[p.solution for p in others[1:]]])
    port = _free_port()
    env = {**os.environ, "FINCHAIN_LOCAL_API_BASE": model_server.base_url, "PYTHONPATH": str(Path.cwd())}
    proc = subprocess.Popen([sys.executable, "-m", "finchain_tasks.cli.main", "explore", "--port", str(port),
                             "--runs", str(root / "runs")], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            text=True, env=env)
    try:
        url = _wait_for_url(proc)
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=limit(30))


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_for_url(proc: subprocess.Popen, timeout: float = 120) -> str:
    deadline = time.monotonic() + limit(timeout)
    seen = []
    while time.monotonic() < deadline:
        line = proc.stdout.readline()
        if not line and proc.poll() is not None:
            break
        seen.append(line)
        m = re.search(r"(http://127\.0\.0\.1:\d+/?)", line)
        if m:
            return m.group(1)
    raise AssertionError(f"`finchain explore` printed no URL:\n{''.join(seen)[-2000:]}")


@pytest.fixture(scope="module")
def page(site, tmp_path_factory):
    # evil.example resolves to this machine, as a DNS-rebinding page's name does once it has rebound
    driver = browser.start(tmp_path_factory.mktemp("downloads"), ("--host-resolver-rules=MAP evil.example 127.0.0.1",))
    yield driver
    driver.quit()


def _by(driver, css: str, timeout: float = 30.0):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, limit(timeout)).until(ec.presence_of_element_located((By.CSS_SELECTOR, css)))


def _choose(driver, elem_id: str, text: str, timeout: float = 30.0) -> None:
    """Pick the option whose label contains ``text``, as a user does: open, type to filter, Enter."""
    from selenium.common.exceptions import ElementClickInterceptedException
    from selenium.webdriver.common.keys import Keys

    deadline = time.monotonic() + limit(timeout)
    box = _by(driver, f"#{elem_id} input")
    while time.monotonic() < deadline:
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", box)
        try:
            box.click()
        except ElementClickInterceptedException:  # the page is still loading: its spinner covers the box
            time.sleep(0.5)
            continue
        box.send_keys(Keys.CONTROL, "a")
        box.send_keys(text)
        time.sleep(0.3)
        box.send_keys(Keys.ENTER)
        time.sleep(0.5)
        if text in (box.get_attribute("value") or ""):
            return
    raise AssertionError(f"could not choose {text!r} in #{elem_id}")


def _type(driver, elem_id: str, text: str) -> None:
    """Replace a box's text as typing would (characters a keyboard cannot type are set by script, with the
    input event the page listens to)."""
    from selenium.webdriver.common.keys import Keys

    box = _by(driver, f"#{elem_id} textarea, #{elem_id} input")
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'}); arguments[0].focus()", box)
    box.send_keys(Keys.CONTROL, "a")
    box.send_keys(Keys.DELETE)
    if all(ch.isprintable() or ch == "\n" for ch in text):
        box.send_keys(text)
    else:
        driver.execute_script("arguments[0].value = arguments[1];"
                              "arguments[0].dispatchEvent(new Event('input', {bubbles: true}))", box, text)
    time.sleep(0.3)


def _tab(driver, name: str, timeout: float = 30.0) -> None:
    from selenium.webdriver.common.by import By

    deadline = time.monotonic() + limit(timeout)
    while time.monotonic() < deadline:
        tabs = [b for b in driver.find_elements(By.CSS_SELECTOR, "button[role='tab']") if b.text.strip() == name]
        if tabs:
            tabs[0].click()
            return
        time.sleep(0.3)
    raise AssertionError(f"no tab {name!r}")


def _wait_text(driver, css: str, predicate, timeout: float = 60.0) -> str:
    deadline = time.monotonic() + limit(timeout)
    text = ""
    while time.monotonic() < deadline:
        text = _by(driver, css).get_attribute("innerHTML")
        if predicate(text):
            return text
        time.sleep(0.3)
    raise AssertionError(f"{css} never showed what was expected; last:\n{text[:1500]}")


def test_choose_a_template_and_seed_paste_a_wrong_output_see_the_first_error(page, site):
    first = problem_with_steps(domain="investment_analysis")  # not the page's first template
    problem = all_templates()[first.template_id].generate(4)
    page.get(site)
    _choose(page, "fx-domain", problem.domain)
    _choose(page, "fx-topic", problem.topic)
    time.sleep(1.0)  # the template list follows the topic
    _choose(page, "fx-template", problem.template)
    _type(page, "fx-seed", str(problem.seed))
    _by(page, "#fx-show").click()
    view = _wait_text(page, "#fx-problem-view", lambda t: "fx-question" in t)
    assert problem.id in view
    _tab(page, "Answer and verdict")
    _type(page, "fx-output", wrong_at(problem.solution, 2))
    _by(page, "#fx-score").click()
    verdict = _wait_text(page, "#fx-verdict", lambda t: "data-first-error" in t)
    assert "data-first-error=\"2\"" in verdict or "data-first-error='2'" in verdict
    assert "first error: <b class=\"fx-first-error\">gold step 2</b>" in verdict.replace("'", '"')
    link = _by(page, "#fx-permalink textarea, #fx-permalink input").get_attribute("value")
    assert f"problem={problem.id.replace('/', '%2F')}" in link and "answer=" in link
    page.get(link)  # the permalink reopens the answer and its verdict, not only the problem
    verdict = _wait_text(page, "#fx-verdict", lambda t: "data-first-error" in t).replace("'", '"')
    assert 'data-first-error="2"' in verdict
    assert _by(page, "#fx-output textarea").get_attribute("value") == wrong_at(problem.solution, 2)


def test_ask_the_local_model_and_see_a_verdict(page, site, problem):
    page.get(f"{site}?problem={problem.id}")  # a permalink: the pickers follow the problem it names
    _wait_text(page, "#fx-problem-view", lambda t: problem.id in t)
    assert _by(page, "#fx-topic input").get_attribute("value") == problem.topic
    _tab(page, "Answer and verdict")
    _by(page, "#fx-ask").click()
    verdict = _wait_text(page, "#fx-verdict", lambda t: "data-first-error" in t).replace("'", '"')
    assert 'data-first-error="3"' in verdict  # the fake server answers with step 3 wrong
    status = _by(page, "#fx-status textarea, #fx-status input").get_attribute("value")
    assert "done" in status and "tokens" in status


def test_open_a_run_directory_filter_to_wrong_answers_and_open_one(page, site, problem):
    page.get(site)
    _tab(page, "Runs")  # --runs was read as the app started: no button to press
    status = _by(page, "#fx-runs-status textarea, #fx-runs-status input")
    deadline = time.monotonic() + 60
    while "samples" not in (status.get_attribute("value") or "") and time.monotonic() < deadline:
        time.sleep(0.3)
    assert status.get_attribute("value").startswith("8 FinChain samples")
    page.find_element("css selector", "#fx-f-wrong input").click()
    _by(page, "#fx-filter").click()
    table = _wait_text(page, "#fx-samples-view", lambda t: "data-count" in t)
    assert "data-count=\"2\"" in table.replace("'", '"')  # model-b's two wrong answers, nothing else
    assert "model-a" not in table
    _choose(page, "fx-sample-pick", problem.id)
    verdict = _wait_text(page, "#fx-verdict", lambda t: "data-first-error" in t).replace("'", '"')
    assert 'data-first-error="2"' in verdict


def test_an_html_payload_shows_as_text_and_runs_nothing(page, site, problem):
    page.get(f"{site}?problem={problem.id}")
    _wait_text(page, "#fx-problem-view", lambda t: problem.id in t)
    _tab(page, "Answer and verdict")
    _type(page, "fx-output", HOSTILE)
    _by(page, "#fx-score").click()
    verdict = _wait_text(page, "#fx-verdict", lambda t: "data-first-error" in t)
    assert "&lt;img src=x onerror=" in verdict and "<img" not in verdict
    assert page.execute_script("return window.__xss === undefined")
    _type(page, "fx-output", "\x00\x01\x02\x03\x04 binary")
    _by(page, "#fx-score").click()
    assert "does not look like text" in _wait_text(page, "#fx-verdict", lambda t: "data-kind" in t)


# -- only its user reaches it (issue 40): raw HTTP on every kind of route, then Chromium ----------------------
ALLOWED_KINDS = {
    "same origin, 127.0.0.1:port": lambda p: {"Host": f"127.0.0.1:{p}", "Origin": f"http://127.0.0.1:{p}",
                                              "Sec-Fetch-Site": "same-origin"},
    "same origin, localhost:port": lambda p: {"Host": f"localhost:{p}", "Origin": f"http://localhost:{p}"},
    "no Origin (curl, a typed address)": lambda p: {"Host": f"127.0.0.1:{p}"},
}
REFUSED_KINDS = {
    "foreign Host": lambda p: {"Host": "evil.example"},
    "foreign Host at the port (DNS rebinding)": lambda p: {"Host": f"evil.example:{p}",
                                                           "Origin": f"http://evil.example:{p}"},
    "foreign Origin": lambda p: {"Host": f"127.0.0.1:{p}", "Origin": "http://evil.example"},
    "Origin null": lambda p: {"Host": f"127.0.0.1:{p}", "Origin": "null"},
    "another local origin": lambda p: {"Host": f"127.0.0.1:{p}", "Origin": "http://127.0.0.1:3000"},
    "cross-site, no Origin": lambda p: {"Host": f"127.0.0.1:{p}", "Sec-Fetch-Site": "cross-site",
                                        "Sec-Fetch-Mode": "no-cors"},
    "Host without the port": lambda p: {"Host": "127.0.0.1"},
}
ROUTES = (("GET", "/"), ("GET", "/config"), ("GET", "/gradio_api/info"), ("GET", "/theme.css"),
          ("POST", "/gradio_api/queue/join"), ("GET", "/gradio_api/queue/data?session_hash=fx"),
          ("POST", "/gradio_api/call/{api}"), ("OPTIONS", "/gradio_api/queue/join"))


def _raw(port: int, method: str, path: str, headers: dict, body: dict | None = None) -> int:
    """The status of one hand-made request (Host exactly as given; the body is not waited for)."""
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    try:
        conn.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
        for k, v in headers.items():
            conn.putheader(k, v)
        data = json.dumps(body).encode() if body is not None else b""
        if method == "OPTIONS":
            conn.putheader("Access-Control-Request-Method", "POST")
        conn.putheader("Content-Type", "application/json")
        conn.putheader("Content-Length", str(len(data)))
        conn.endheaders(data)
        return conn.getresponse().status
    finally:
        conn.close()


def _fn_ids(port: int) -> dict[str, int]:
    """The app's event handlers by API name (fn index), read from its config."""
    import http.client

    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=20)
    conn.request("GET", "/config")
    deps = json.loads(conn.getresponse().read())["dependencies"]
    conn.close()
    return {d.get("api_name"): d["id"] for d in deps}


def test_only_its_user_reaches_it_raw_http_matrix(site, model_server, problem):
    """Every refused kind gets 403 on every route, and its POSTs ask a model (so a leak would show as a
    call at the fake server); the allowed kinds get Gradio's own answer, and only harmless calls."""
    port = int(site.rstrip("/").rsplit(":", 1)[1])
    fns, ask_api = _fn_ids(port), "on_ask"
    ask_fn = fns[ask_api]
    calls = len(model_server.requests)
    join_ask = {"fn_index": ask_fn, "data": ["", problem.id, "paper", "", "calc"], "session_hash": "fx",
                "event_data": None, "trigger_id": None}
    join_harmless = {**join_ask, "fn_index": fns["fresh_seed"], "data": []}
    matrix: dict[str, list[int]] = {}
    for kind, headers in REFUSED_KINDS.items():
        matrix[kind] = [_raw(port, m, r.format(api=ask_api), headers(port), join_ask if m == "POST" else None)
                        for m, r in ROUTES]
    for kind, headers in ALLOWED_KINDS.items():
        matrix[kind] = [_raw(port, m, r.format(api="fresh_seed"), headers(port),
                             (join_harmless if "join" in r else {"data": []}) if m == "POST" else None)
                        for m, r in ROUTES]
    print("\n".join(f"{k}: {v}" for k, v in matrix.items()))
    for kind in REFUSED_KINDS:
        assert matrix[kind] == [403] * len(ROUTES), kind
    for kind in ALLOWED_KINDS:
        assert 403 not in matrix[kind] and matrix[kind][:5] == [200] * 5, (kind, matrix[kind])
    # a GET never starts a model call, whatever it names
    for path in (f"/gradio_api/queue/join?fn_index={ask_fn}&session_hash=fx&data=[]",
                 f"/gradio_api/call/{ask_api}", f"/gradio_api/run/{ask_api}"):
        assert _raw(port, "GET", path, ALLOWED_KINDS["no Origin (curl, a typed address)"](port)) in (404, 405)
    time.sleep(1.0)
    assert len(model_server.requests) == calls


def test_in_chromium_localhost_works_and_a_rebound_name_gets_403(page, site, problem):
    port = int(site.rstrip("/").rsplit(":", 1)[1])
    page.get(f"http://evil.example:{port}/?problem={problem.id}")
    assert "403 forbidden" in page.find_element("tag name", "body").text
    page.get(f"http://localhost:{port}/?problem={problem.id}")
    _wait_text(page, "#fx-problem-view", lambda t: problem.id in t)
    _tab(page, "Answer and verdict")
    _type(page, "fx-output", problem.solution)
    _by(page, "#fx-score").click()
    assert "data-fac='1'" in _wait_text(page, "#fx-verdict", lambda t: "data-first-error" in t).replace('"', "'")


def test_compare_lays_the_verdicts_side_by_side_down_to_1024px_and_stacks_them_below(page, site, problem):
    page.get(f"{site}?problem={problem.id}")
    _wait_text(page, "#fx-problem-view", lambda t: problem.id in t)
    _tab(page, "Compare")
    _type(page, "fx-out-a", problem.solution)
    _type(page, "fx-out-b", wrong_at(problem.solution, 2))
    _by(page, "#fx-compare").click()
    _wait_text(page, "#fx-compare-view", lambda t: "fx-verdict" in t)
    boxes = ("return [...document.querySelectorAll('.fx-compare-col')].map(e => {const r = e.getBoundingClientRect();"
             " return {left: r.left, right: r.right, top: r.top, bottom: r.bottom,"
             " spill: e.scrollWidth - e.clientWidth}})")
    try:
        for width, side_by_side in ((1400, True), (1024, True), (800, False)):
            page.set_window_size(width, 1200)
            time.sleep(0.8)
            a, b = page.execute_script(boxes)
            if side_by_side:
                assert a["right"] <= b["left"] and abs(a["top"] - b["top"]) < 1, (width, a, b)
            else:
                assert b["top"] >= a["bottom"] and abs(a["left"] - b["left"]) < 1, (width, a, b)
            assert a["spill"] <= 1 and b["spill"] <= 1, (width, a, b)  # readable without scrolling sideways
    finally:
        page.set_window_size(1300, 1000)
