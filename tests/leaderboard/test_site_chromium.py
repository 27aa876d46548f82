"""The built site in real headless Chromium, opened from file://: the table renders every row, sorting and
filtering change it, the CSV download matches the table on screen, a model output of ``<script>`` and
``<img onerror>`` shows as text with no script run, and every page loads without a JavaScript error."""

import csv
import io
import time

import pytest

from tests.leaderboard import browser
from tests.leaderboard.runs import HOSTILE

pytestmark = [pytest.mark.slow,
              pytest.mark.skipif(not browser.available(), reason="chromium and chromium-driver are not installed")]


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


def test_the_table_renders_every_row_with_intervals_and_reported_rows_apart(chrome, lb_site):
    _open(chrome, lb_site, "index.html")
    heads, rows = _table(chrome)
    assert sorted(_models(chrome)) == ["fake-a/inspect", "fake-a/lm-eval", "fake-b/inspect"]
    assert heads[:3] == ["tie group", "model", "category"] and "chaineval" in heads and "cost (USD)" in heads
    chaineval = heads.index("chaineval")
    assert all(r[chaineval].count("[") == 1 for r in rows)  # mean [low, high]
    reported = chrome.find_elements("css selector", "#reported table[data-source=finchain-leaderboard] tbody tr")
    assert len(reported) == 25 and reported[0].get_attribute("data-model") == "gemini-2.5-pro"  # sorted, 58.65
    assert "reported, not reproduced" in reported[0].text
    assert not set(_models(chrome)) & {r.get_attribute("data-model") + "/inspect" for r in reported}
    assert _errors(chrome) == []


def test_sorting_and_filtering_change_the_table(chrome, lb_site):
    _open(chrome, lb_site, "index.html")
    chrome.find_element("css selector", "#board th[data-key=chaineval]").click()  # best first
    assert _models(chrome)[0] == "fake-b/inspect"
    chrome.find_element("css selector", "#board th[data-key=chaineval]").click()  # then worst first
    assert _models(chrome)[-1] == "fake-b/inspect"
    chrome.find_element("css selector", "#f-harness option[value=lm-eval]").click()
    assert _models(chrome) == ["fake-a/lm-eval"]
    chrome.find_element("css selector", "#f-harness option[value='']").click()
    chrome.find_element("css selector", "#f-open option[value=open]").click()
    assert _models(chrome) == ["fake-b/inspect"]
    chrome.find_element("css selector", "#f-open option[value='']").click()
    chrome.find_element("id", "f-search").send_keys("Fake A")
    assert sorted(_models(chrome)) == ["fake-a/inspect", "fake-a/lm-eval"]


def _wait_for(path, timeout=15.0):
    end = time.time() + timeout
    while time.time() < end:
        if path.is_file() and path.stat().st_size > 0:
            return path.read_text("utf-8")
        time.sleep(0.1)
    raise AssertionError(f"no download at {path}")


def test_the_csv_download_matches_the_table(chrome, lb_site):
    _open(chrome, lb_site, "index.html")
    chrome.find_element("css selector", "#board th[data-key=display_name]").click()
    chrome.find_element("css selector", "#f-harness option[value=inspect]").click()
    heads, rows = _table(chrome)
    chrome.find_element("id", "dl-csv").click()
    text = _wait_for(chrome.downloads / "paper26-leaderboard.csv")
    parsed = list(csv.reader(io.StringIO(text)))
    assert parsed[0] == heads and parsed[1:] == rows and len(rows) == 2
    chrome.find_element("id", "dl-json").click()
    assert '"model": "fake-a"' in _wait_for(chrome.downloads / "paper26-leaderboard.json")


def test_hostile_model_output_shows_as_text_and_runs_nothing(chrome, lb_site):
    import json

    samples = json.loads((lb_site / "samples.js").read_text("utf-8").removeprefix("window.LB_SAMPLES = ").rstrip(";\n"))
    hostile = [sid for sid, s in samples.items() if any(m["output"] == HOSTILE for m in s["models"])]
    assert hostile, "the run has no hostile output to show"
    chrome.get((lb_site / "sample.html").as_uri() + "#" + hostile[0])
    chrome.refresh()
    cards = chrome.find_elements("css selector", ".model-output")
    assert cards
    raw = [c.find_element("css selector", "pre.raw").get_attribute("textContent") for c in cards]
    assert HOSTILE in raw  # the markup is there, character for character, as text
    assert chrome.find_elements("css selector", "#sample img") == []
    assert chrome.find_elements("css selector", "#sample script") == []
    assert chrome.execute_script("return window.__xss === undefined")
    assert _errors(chrome) == []


@pytest.mark.parametrize("page", ["heatmap.html", "frontier.html", "methods.html"])
def test_the_other_pages_render(chrome, lb_site, page):
    _open(chrome, lb_site, page)
    if page == "heatmap.html":
        cells = chrome.find_elements("css selector", "#heatmap td.cell")
        assert cells
        cells[0].click()
        assert chrome.find_elements("css selector", "#drill table tbody tr")
        links = chrome.find_elements("css selector", "#drill a")
        assert links and "sample.html#finchain" in links[0].get_attribute("href")
    elif page == "frontier.html":
        assert len(chrome.find_elements("css selector", "#cost-chart circle")) == 2  # lm-eval's cost is unknown
        assert "fake-a (lm-eval)" in chrome.find_element("id", "cost-note").text
        assert len(chrome.find_elements("css selector", "#size-chart circle")) == 1  # the one open model
    else:
        assert "Holm" in chrome.find_element("tag name", "main").text
    assert _errors(chrome) == []
