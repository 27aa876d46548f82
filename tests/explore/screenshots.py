"""The explorer README's screenshots, from the running app in headless Chromium (not a test):

    python -m tests.explore.screenshots OUT_DIR

It serves the app with a fake OpenAI server behind the local model name and a small lm-eval output folder
in the Runs tab, as tests/explore/test_explore_chromium.py does, and saves one PNG per view."""

from __future__ import annotations

import os
import sys
import tempfile
import time
from pathlib import Path

from finchain_tasks.engine import all_templates
from tests.explore import test_explore_chromium as ui
from tests.explore.conftest import problem_with_steps, wrong_at
from tests.leaderboard import browser
from tests.support.fake_openai import FakeOpenAI


def main(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    root = Path(tempfile.mkdtemp(prefix="fx-shots-"))
    first = problem_with_steps(domain="investment_analysis")
    problem = all_templates()[first.template_id].generate(4)
    others = [t.generate(1) for t in list(all_templates().values())[:3]]
    probs = [problem, *others]
    wrong = wrong_at(problem.solution, 2).rsplit("Final answer:", 1)[0] + "Final answer: 1"
    ui._lm_eval_output(root / "runs", "model-a", probs, [p.solution for p in probs])
    ui._lm_eval_output(root / "runs", "model-b", probs, [wrong, ui.HOSTILE, *[p.solution for p in others[1:]]])
    with FakeOpenAI(reply=wrong_at(problem.solution, 3)) as fake:
        os.environ["FINCHAIN_LOCAL_API_BASE"] = fake.base_url
        from finchain_tasks.explore.app import build_app, launch_guarded
        from finchain_tasks.explore.guard import local_policy
        from finchain_tasks.explore.views import CSS

        demo = build_app([str(root / "runs")])
        port = ui._free_port()
        demo.queue()
        launch_guarded(demo, local_policy("127.0.0.1", port), server_name="127.0.0.1", server_port=port,
                       prevent_thread_lock=True, quiet=True, css=CSS)
        driver = browser.start(root / "dl")
        driver.set_window_size(1300, 1900)
        try:
            _shoot(driver, demo.local_url, problem, wrong, out)
        finally:
            driver.quit()
            demo.close()


def _shoot(driver, url: str, problem, wrong: str, out: Path) -> None:
    driver.get(f"{url}?problem={problem.id}")
    ui._wait_text(driver, "#fx-problem-view", lambda t: problem.id in t)
    driver.save_screenshot(str(out / "explore-problem.png"))
    ui._tab(driver, "Answer and verdict")
    ui._type(driver, "fx-output", wrong_at(problem.solution, 2))
    ui._by(driver, "#fx-score").click()
    ui._wait_text(driver, "#fx-verdict", lambda t: "data-first-error" in t)
    next(b for b in driver.find_elements("css selector", "button") if "Score matrix" in b.text).click()
    time.sleep(1)
    driver.save_screenshot(str(out / "explore-verdict.png"))
    ui._tab(driver, "Compare")
    ui._type(driver, "fx-out-a", problem.solution)
    ui._type(driver, "fx-out-b", wrong)
    ui._by(driver, "#fx-compare").click()
    ui._wait_text(driver, "#fx-compare-view", lambda t: "fx-verdict" in t)
    driver.save_screenshot(str(out / "explore-compare.png"))
    ui._tab(driver, "Runs")
    ui._by(driver, "#fx-load-runs").click()
    time.sleep(3)
    ui._choose(driver, "fx-f-model", "model-a")
    ui._choose(driver, "fx-f-versus", "model-b")
    ui._by(driver, "#fx-filter").click()
    ui._wait_text(driver, "#fx-samples-view", lambda t: "data-count" in t)
    driver.save_screenshot(str(out / "explore-runs.png"))


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "docs/screenshots"))
