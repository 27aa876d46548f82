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
    end = time.time() + timeout
    while time.time() < end:
        if path.is_file() and path.stat().st_size > 0:
            return path.read_text("utf-8")
        time.sleep(0.1)
    raise AssertionError(f"no download at {path}")


def test_the_csv_download_matches_the_table(chrome, lb_local_site):
    _open(chrome, lb_local_site, "index.html")
    chrome.find_element("css selector", "#board th[data-key=harness]").click()
    heads, rows = _table(chrome)
    chrome.find_element("id", "dl-csv").click()
    text = _wait_for(chrome.downloads / "paper26-leaderboard.csv")
    parsed = list(csv.reader(io.StringIO(text)))
    assert parsed[0] == heads and parsed[1:] == rows and len(rows) == 2
    chrome.find_element("id", "dl-json").click()
    assert f'"model": "{LOCAL}"' in _wait_for(chrome.downloads / "paper26-leaderboard.json")


def _wait_cards(chrome, timeout=30.0):
    end = time.time() + timeout
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
