"""The paper26 site built from the bundled local model's runs (Inspect and lm-eval) and the published FinChain
table, in real headless Chromium, opened from file://: the table renders every row, sorting and filtering
change it, the CSV download matches the table on screen, the sample page loads the chunk it shows, and every
page loads without a JavaScript error. A model output of ``<script>`` and ``<img onerror>`` must show as text
with nothing run: the local model writes no such thing, so that test opens the site of the fake models'
runs (``runs.py``), whose outputs are chosen."""

import csv
import io
import time

import pytest

from tests.leaderboard import browser, sitedata
from tests.leaderboard.local_runs import LOCAL
from tests.leaderboard.runs import HOSTILE
from tests.support.timeouts import limit

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not browser.available(), reason="chromium and chromium-driver are not installed")]
ROWS = [f"{LOCAL}/inspect", f"{LOCAL}/lm-eval"]


@pytest.fixture(scope="module")
def chrome(tmp_path_factory):
    downloads = tmp_path_factory.mktemp("downloads")
    driver = browser.start(downloads)
    driver.downloads = downloads
    yield driver
    driver.quit()


def _open(chrome, site, page):
    chrome.get((site / page).as_uri())
    return chrome


def _table(chrome, table_id="board"):
    """The table as shown: header labels and each row's cell texts (the full text, intervals included)."""
    heads = [th.text for th in chrome.find_elements("css selector", f"#{table_id} thead th")]
    rows = [[td.get_attribute("data-text") for td in tr.find_elements("css selector", "td")]
            for tr in chrome.find_elements("css selector", f"#{table_id} tbody tr")]
    return heads, rows


def _models(chrome):
    return [tr.get_attribute("data-model") + "/" + tr.get_attribute("data-harness")
            for tr in chrome.find_elements("css selector", "#board tbody tr")]


def _errors(chrome):
    return [e["message"] for e in chrome.get_log("browser") if e["level"] == "SEVERE"]


def _select(chrome, select_id, value):
    chrome.find_element("css selector", f"#{select_id} option[value='{value}']").click()


def test_the_table_renders_every_row_with_intervals_and_reported_rows_apart(chrome, lb_local_site):
    _open(chrome, lb_local_site, "index.html")
    heads, rows = _table(chrome)
    assert sorted(_models(chrome)) == ROWS
    assert heads[:3] == ["tie group", "model", "category"] and "chaineval" in heads and "cost (USD)" in heads
    chaineval = heads.index("chaineval")
    payload = {f"{r['model']}/{r['harness']}": r for r in sitedata.payload(lb_local_site)["rows"]}
    for shown, row in zip(_models(chrome), rows):
        m = payload[shown]["metrics"]["chaineval"]
        assert row[chaineval] == f"{m['mean']:.3f} [{m['low']:.3f}, {m['high']:.3f}]"  # mean [low, high]
    assert all(r[heads.index("cost (USD)")] == "unknown" for r in rows)  # a local model has no price
    reported = chrome.find_elements("css selector", "#reported table[data-source=finchain-leaderboard] tbody tr")
    assert len(reported) == 25 and reported[0].get_attribute("data-model") == "gemini-2.5-pro"  # sorted, 58.65
    assert "reported, not reproduced" in reported[0].text
    assert LOCAL not in {r.get_attribute("data-model") for r in reported}
    assert _errors(chrome) == []


def test_sorting_and_filtering_change_the_table(chrome, lb_local_site):
    _open(chrome, lb_local_site, "index.html")
    chrome.find_element("css selector", "#board th[data-key=harness]").click()  # a text column: a to z
    assert _models(chrome) == ROWS
    chrome.find_element("css selector", "#board th[data-key=harness]").click()  # then z to a
    assert _models(chrome) == ROWS[::-1]
    chrome.find_element("css selector", "#board th[data-key=tokens]").click()  # unknown (lm-eval) always last
    assert _models(chrome) == ROWS
    _select(chrome, "f-harness", "lm-eval")
    assert _models(chrome) == [ROWS[1]]
    _select(chrome, "f-harness", "")
    _select(chrome, "f-open", "closed")
    assert _models(chrome) == []  # the local model has open weights
    _select(chrome, "f-open", "open")
    assert sorted(_models(chrome)) == ROWS
    _select(chrome, "f-category", "local")
    size = chrome.find_element("id", "f-size")
    size.send_keys("0.1")
    assert _models(chrome) == []  # 0.27 B
    size.clear()
    size.send_keys("1")
    assert sorted(_models(chrome)) == ROWS
    chrome.find_element("id", "f-search").send_keys("no such model")
    assert _models(chrome) == []


def _wait_for(path, timeout=30.0):
    end = time.time() + limit(timeout)
    while time.time() < end:
        if path.is_file() and path.stat().st_size > 0:
            return path.read_text("utf-8")
        time.sleep(0.1)
    raise AssertionError(f"no download at {path}")


def test_the_csv_download_is_the_table_in_numbers(chrome, lb_local_site):
    """Issue 31, item 10: a metric is three numeric columns (mean, low, high), not the display string."""
    _open(chrome, lb_local_site, "index.html")
    chrome.find_element("css selector", "#board th[data-key=harness]").click()
    shown = _models(chrome)
    chrome.find_element("id", "dl-csv").click()
    text = _wait_for(chrome.downloads / "paper26-leaderboard.csv")
    rows = list(csv.DictReader(io.StringIO(text)))
    assert [f"{r['display_name']}/{r['harness']}" for r in rows] == [s.replace(LOCAL, rows[0]["display_name"])
                                                                     for s in shown]
    payload = {r["harness"]: r for r in sitedata.payload(lb_local_site)["rows"]}
    for r in rows:
        for metric in ("chaineval", "fac"):
            m = payload[r["harness"]]["metrics"][metric]
            assert [float(r[metric]), float(r[f"{metric}_low"]), float(r[f"{metric}_high"])] == \
                [m["mean"], m["low"], m["high"]]  # full precision, parseable
        assert r["input_tokens"] == ("" if r["harness"] == "lm-eval" else str(payload["inspect"]["input_tokens"]))
    chrome.find_element("id", "dl-json").click()
    assert f'"model": "{LOCAL}"' in _wait_for(chrome.downloads / "paper26-leaderboard.json")


def _wait_cards(chrome, timeout=30.0):
    end = time.time() + limit(timeout)
    while time.time() < end:
        cards = chrome.find_elements("css selector", ".model-output")
        if cards:
            return cards
        time.sleep(0.1)
    raise AssertionError(f"no sample shown: {chrome.find_element('id', 'sample').text!r}")


def test_the_sample_page_loads_only_the_chunk_it_shows(chrome, lb_local_site):
    samples = sitedata.samples(lb_local_site)
    index = sitedata.sample_index(lb_local_site)
    assert len(index) == len(samples) == 2  # one chunk per template; two problems of two templates
    first, second = sorted(samples)
    chrome.get((lb_local_site / "sample.html").as_uri() + "#" + second)
    chrome.refresh()
    cards = _wait_cards(chrome)
    raw = {c.get_attribute("data-label"): c.find_element("css selector", "pre.raw").get_attribute("textContent")
           for c in cards}
    assert raw == {m["label"]: m["output"] for m in samples[second]["models"]}
    assert set(raw) == {f"{LOCAL} (inspect)", f"{LOCAL} (lm-eval)"}
    loaded = chrome.execute_script("return Object.keys(window.LB_SAMPLE_CHUNKS || {})")
    assert loaded == [c for c, ids in index.items() if second in ids]  # the other chunk was not loaded
    _select(chrome, "sample-select", first)
    _wait_cards(chrome)
    assert chrome.find_element("css selector", "#sample h2").text == first
    assert len(chrome.execute_script("return Object.keys(window.LB_SAMPLE_CHUNKS)")) == 2
    assert _errors(chrome) == []


def test_hostile_model_output_shows_as_text_and_runs_nothing(chrome, lb_site):
    samples = sitedata.samples(lb_site)
    hostile = [sid for sid, s in samples.items() if any(m["output"] == HOSTILE for m in s["models"])]
    assert hostile, "the run has no hostile output to show"
    chrome.get((lb_site / "sample.html").as_uri() + "#" + hostile[0])
    chrome.refresh()
    cards = _wait_cards(chrome)
    raw = [c.find_element("css selector", "pre.raw").get_attribute("textContent") for c in cards]
    assert HOSTILE in raw  # the markup is there, character for character, as text
    assert chrome.find_elements("css selector", "#sample img") == []
    assert chrome.find_elements("css selector", "#sample script") == []
    assert chrome.execute_script("return window.__xss === undefined")
    assert _errors(chrome) == []


@pytest.mark.parametrize("page", ["heatmap.html", "frontier.html", "methods.html"])
def test_the_other_pages_render(chrome, lb_local_site, page):
    _open(chrome, lb_local_site, page)
    if page == "heatmap.html":
        cells = chrome.find_elements("css selector", "#heatmap td.cell")
        shown = {(s["domain"], s["level"]) for s in sitedata.samples(lb_local_site).values()}
        assert len(cells) == len(shown) == 2  # two problems, of two domains
        for grid in ("all", f"{LOCAL} (lm-eval)"):  # a model's grid links its samples through the "all" grid
            _select(chrome, "hm-model", grid)
            chrome.find_elements("css selector", "#heatmap td.cell")[0].click()
            assert chrome.find_elements("css selector", "#drill table tbody tr")
            links = chrome.find_elements("css selector", "#drill a")
            assert len(links) == 1 and "sample.html#finchain" in links[0].get_attribute("href")  # one seed each
    elif page == "frontier.html":
        assert chrome.find_elements("css selector", "#cost-chart circle") == []  # no price: cost unknown
        assert f"{LOCAL} (inspect)" in chrome.find_element("id", "cost-note").text
        assert len(chrome.find_elements("css selector", "#size-chart circle")) == 2  # open weights, 0.27 B
    else:
        assert "Holm" in chrome.find_element("tag name", "main").text
    assert _errors(chrome) == []


# ---------------------------------------------------------------------------------------- issue 31, items 11-13
def _shown(chrome, element):
    return chrome.execute_script("var r = arguments[0].getBoundingClientRect(); return r.width > 0 && "
                                 "r.right <= window.innerWidth + 0.5 && getComputedStyle(arguments[0]).display "
                                 "!== 'none';", element)


def test_at_400_px_a_score_is_visible_and_headers_sort_from_the_keyboard(chrome, lb_site):
    from selenium.webdriver.common.keys import Keys

    chrome.set_window_size(400, 900)
    try:
        _open(chrome, lb_site, "index.html")
        assert chrome.execute_script("return window.innerWidth") <= 400
        keys = [th.get_attribute("data-key") for th in chrome.find_elements("css selector", "#board thead th")]
        column = keys.index("chaineval") + 1  # the primary metric
        scores = chrome.find_elements("css selector", f"#board tbody td:nth-child({column})")
        assert len(scores) == 3 and all(_shown(chrome, td) for td in scores)  # on screen, not scrolled away
        assert all("[" in td.text for td in scores)
        tags = [t.text for t in chrome.find_elements("css selector", "#board tbody .harness-tag")]
        assert sorted(tags) == ["inspect", "inspect", "lm-eval"]  # the harness column is hidden: said under the name
    finally:
        chrome.set_window_size(1300, 1000)
    heads = chrome.find_elements("css selector", "#board thead th")
    assert all(th.get_attribute("aria-sort") in ("none", "ascending", "descending") for th in heads)
    assert all(th.find_element("tag name", "button").get_property("tabIndex") == 0 for th in heads)
    chrome.find_element("css selector", "#board th[data-key=harness] button").send_keys(Keys.ENTER)
    assert chrome.find_element("css selector", "#board th[data-key=harness]").get_attribute("aria-sort") == "ascending"
    assert [m.split("/")[1] for m in _models(chrome)] == ["inspect", "inspect", "lm-eval"]
    focused = chrome.switch_to.active_element  # the rebuilt header keeps the keyboard's place
    focused.send_keys(Keys.SPACE)
    assert chrome.find_element("css selector", "#board th[data-key=harness]").get_attribute("aria-sort") == "descending"
    assert [m.split("/")[1] for m in _models(chrome)] == ["lm-eval", "inspect", "inspect"]
    assert chrome.find_element("css selector", "#board th[data-key=tie_group]").get_attribute("aria-sort") == "none"


def test_the_tables_view_and_the_open_model_are_in_the_url(chrome, lb_site):
    _open(chrome, lb_site, "index.html")
    _select(chrome, "f-harness", "inspect")
    chrome.find_element("css selector", "#board th[data-key=chaineval]").click()  # best first
    chrome.find_element("css selector", "#board button.model-link[data-model=fake-b]").click()
    details = chrome.find_element("id", "details")
    assert details.is_displayed() and chrome.find_element("id", "details-title").text == "Fake B"
    facts = {dd.get_attribute("data-fact"): dd.text for dd in details.find_elements("css selector", "dd")}
    assert facts["Hugging Face id"] == "test/fake-b" and facts["litellm id"] == "openai/fake-b"
    assert facts["size (B)"] == "1" and "temperature = 0" in facts["generation settings (registry)"]
    runs = details.find_elements("css selector", "table.runs tbody tr")
    assert [r.get_attribute("data-harness") for r in runs] == ["inspect"] and "paper" in runs[0].text
    url = chrome.current_url
    assert "harness=inspect" in url and "sort=chaineval" in url and "dir=desc" in url and "model=fake-b" in url
    shown = _models(chrome)
    chrome.get("about:blank")
    chrome.get(url)  # the permalink, opened afresh
    assert _models(chrome) == shown == ["fake-b/inspect", "fake-a/inspect"]
    assert chrome.find_element("id", "f-harness").get_attribute("value") == "inspect"
    assert chrome.find_element("css selector", "#board th[data-key=chaineval]").get_attribute("aria-sort") == \
        "descending"
    assert chrome.find_element("id", "details").is_displayed()
    chrome.find_element("id", "details-close").click()
    assert "model=" not in chrome.current_url and not chrome.find_element("id", "details").is_displayed()
    assert _errors(chrome) == []


def test_lm_eval_rows_show_the_answer_and_the_alignment(chrome, lb_site):
    samples = sitedata.samples(lb_site)
    sid = next(k for k, s in samples.items() if all(m["output"] != HOSTILE for m in s["models"]))
    chrome.get((lb_site / "sample.html").as_uri() + "#" + sid)
    chrome.refresh()
    cards = {c.get_attribute("data-label"): c for c in _wait_cards(chrome)}
    lm, inspect = cards["fake-a (lm-eval)"], cards["fake-a (inspect)"]

    def answer(card):
        return next(p.text for p in card.find_elements("css selector", "p") if p.text.startswith("Final answer:"))

    def pairs(card):
        return [tr.text for tr in card.find_elements("css selector", "table tbody tr")]

    assert answer(lm) == answer(inspect) != "Final answer: —"
    assert pairs(lm) == pairs(inspect) and len(pairs(lm)) >= 1
    assert "recomputed by the build" in lm.text and "recomputed" not in inspect.text


def test_the_models_by_domains_matrix(chrome, lb_site):
    _open(chrome, lb_site, "heatmap.html")
    matrix = sitedata.payload(lb_site)["matrix"]
    heads = [th.text for th in chrome.find_elements("css selector", "#matrix thead th")]
    assert heads == ["model", "investment_analysis", "personal_finance"] == ["model", *matrix["columns"]]
    rows = chrome.find_elements("css selector", "#matrix tbody tr")
    assert [r.get_attribute("data-label") for r in rows] == ["fake-a (inspect)", "fake-a (lm-eval)", "fake-b (inspect)"]
    for tr, row in zip(rows, matrix["rows"]):
        for td in tr.find_elements("css selector", "td.cell"):
            cell = row["cells"][td.get_attribute("data-column")]
            assert td.find_element("tag name", "strong").text == f"{cell['mean']:.3f}"
    assert _errors(chrome) == []


@pytest.fixture(scope="module")
def handmade_site(tmp_path_factory):
    """A board built from lm-eval folders written by hand (no model run): a model the FinChain authors published
    (gpt-4.1) and one whose name is a spreadsheet formula."""
    from typer.testing import CliRunner

    from finchain_tasks.cli.main import app
    from tests.leaderboard.handmade import board_file, finchain_sample, write_lm_eval

    root = tmp_path_factory.mktemp("handmade-site")
    write_lm_eval(root / "runs" / "a", "gpt-4.1", "finchain_all", [finchain_sample(k, k / 8) for k in range(8)])
    write_lm_eval(root / "runs" / "b", FORMULA, "finchain_all", [finchain_sample(k, 0.5) for k in range(8)])
    board = board_file(root, "handmade", reported=("finchain-leaderboard",))
    result = CliRunner().invoke(app, ["leaderboard", "build", str(board), "-s", str(root / "runs"), "-o",
                                      str(root / "site")])
    assert result.exit_code == 0, result.output
    return root / "site"


FORMULA = '=HYPERLINK("http://evil.example")'


def test_reproduced_beside_published_with_the_difference(chrome, handmade_site):
    _open(chrome, handmade_site, "index.html")
    (entry,) = sitedata.payload(handmade_site)["versus_published"]
    (tr,) = chrome.find_elements("css selector", "#versus-table tbody tr")
    cells = [td.text.replace("\n", " ") for td in tr.find_elements("tag name", "td")]
    assert cells[0] == "GPT-4.1" and cells[2] == "chaineval" and cells[4] == "56.92 ±6.12"  # the authors' figure
    assert entry["reproduced"] == pytest.approx(100 * 3.5 / 8)  # the mean of k/8, k < 8, on their scale
    assert cells[3] == f"{entry['reproduced']:.2f} [{entry['low']:.2f}, {entry['high']:.2f}]"
    assert entry["difference"] == pytest.approx(entry["reproduced"] - 56.92)
    assert entry["diff_low"] == pytest.approx(entry["low"] - 56.92)
    assert cells[5] == f"{entry['difference']:.2f} [{entry['diff_low']:.2f}, {entry['diff_high']:.2f}]"
    names = [r["display_name"] for r in csv.DictReader(io.StringIO(chrome.execute_script("return LBView.csv()")))]
    assert sorted(names) == sorted(["GPT-4.1", "'" + FORMULA])  # issue 33: a name that is a formula stays text


def test_the_pages_load_only_their_own_files(chrome, handmade_site):
    """Issue 33, item 8: the Content-Security-Policy lets every page work from file:// and runs no inline script."""
    for page in ("index.html", "heatmap.html", "frontier.html", "sample.html", "methods.html"):
        _open(chrome, handmade_site, page)
        assert _errors(chrome) == [], page
    chrome.execute_script("var s = document.createElement('script'); s.textContent = 'window.__inline = 1';"
                          "document.body.appendChild(s);")
    assert chrome.execute_script("return window.__inline === undefined")
    assert any("Content Security Policy" in e for e in _errors(chrome))


# ------------------------------------------------------------------------------------------ issue 45, item 2
def test_the_pages_csv_is_the_releases_writer_and_tie_group_is_the_group(chrome, lb_site):
    """One writer: the page's "Download CSV" holds the release writer's lines of the rows shown, in their order
    (the page wrote the row's position as tie_group; the release the group)."""
    from finchain_tasks.leaderboard.table_csv import board_csv, csv_text

    payload = sitedata.payload(lb_site)
    _open(chrome, lb_site, "index.html")
    header, lines = board_csv(payload, tuple(payload["board"]["metrics"]))
    page = chrome.execute_script("return LBView.csv()")
    assert page == csv_text(header, lines)  # the board's own order: every row, as the release writes it
    groups = [r["tie_group"] for r in csv.DictReader(io.StringIO(page))]
    assert groups == ["" if r["tie_group"] is None else str(r["tie_group"]) for r in payload["rows"]]
    assert groups != [str(i) for i in range(len(groups))]  # not positions: the fake runs tie their leaders
    _select(chrome, "f-harness", "inspect")
    shown = [r["model"] + "/" + r["harness"] for r in csv.DictReader(io.StringIO(chrome.execute_script(
        "return LBView.csv()")))]
    assert shown == _models(chrome) and len(shown) < len(lines)


def test_columns_can_be_hidden_and_shown_and_the_choice_is_in_the_url(chrome, lb_site):
    _open(chrome, lb_site, "index.html")
    chrome.find_element("css selector", "#columns summary").click()
    boxes = {b.get_attribute("data-column"): b for b in chrome.find_elements("css selector", "#columns input")}
    assert "category" in boxes and "tie_group" not in boxes and "display_name" not in boxes  # never hidden
    heads = lambda: [th.get_attribute("data-key") for th in chrome.find_elements("css selector", "#board thead th")]  # noqa: E731
    assert "category" in heads()
    boxes["category"].click()
    boxes["cost_usd"].click()
    assert "category" not in heads() and "cost_usd" not in heads() and "hide=category%2Ccost_usd" in chrome.current_url
    assert all(len(tr.find_elements("tag name", "td")) == len(heads())
               for tr in chrome.find_elements("css selector", "#board tbody tr"))
    assert "category" in chrome.execute_script("return LBView.csv()").splitlines()[0]  # the CSV keeps every column
    url = chrome.current_url
    chrome.get("about:blank")
    chrome.get(url)
    assert "category" not in heads()
    chrome.find_element("css selector", "#columns summary").click()
    chrome.find_element("css selector", "#columns input[data-column=category]").click()
    assert "category" in heads() and "category" not in chrome.current_url.split("hide=")[-1]
    assert _errors(chrome) == []


def test_the_sample_page_shows_golds_in_their_units_display_and_the_prompt_each_model_saw(chrome, lb_local_site):
    from finchain_tasks.engine import all_templates

    samples = sitedata.samples(lb_local_site)
    sid = sorted(samples)[0]
    s = samples[sid]
    problem = all_templates()[f"{s['domain']}/{s['topic']}/{s['template']}"].generate(int(sid.rsplit("/", 1)[1]))
    assert s["gold_answer"] == problem.answer_text  # the templates' own display, e.g. $19,570.50, 7 years
    chrome.get((lb_local_site / "sample.html").as_uri() + "#" + sid)
    chrome.refresh()
    cards = _wait_cards(chrome)
    gold = chrome.find_element("css selector", ".sample-grid .card").text
    assert f"Final answer: {problem.answer_text}" in gold
    prompts = {}
    for card in cards:
        card.find_element("css selector", "details.prompt summary").click()
        prompts[card.get_attribute("data-label")] = card.find_element("css selector", "pre.prompt").text
    assert set(prompts) == {f"{LOCAL} (inspect)", f"{LOCAL} (lm-eval)"}
    assert all(problem.question.split("\n")[0][:60] in text for text in prompts.values()), prompts
    assert prompts[f"{LOCAL} (inspect)"].startswith("[")  # the messages under their roles
    assert _errors(chrome) == []
