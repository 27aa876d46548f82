"""The README's screenshots: ``python -m tests.leaderboard.screenshots SITE leaderboards/screenshots`` takes one PNG
of each page of a built site in headless Chromium (the leaderboard with its first model's details open, the heat
map with a cell opened, the sample page on the sample with the hostile output), and the leaderboard in a
400-px-wide window (``index-400px.png``)."""

from __future__ import annotations

import sys
import tempfile
import time
from pathlib import Path

from tests.leaderboard import browser


def take(site: Path, out: Path, sample: str = "") -> list[Path]:
    out.mkdir(parents=True, exist_ok=True)
    driver = browser.start(Path(tempfile.mkdtemp()))
    shots = []
    try:
        for page in ("index", "heatmap", "frontier", "sample", "methods"):
            url = (site / f"{page}.html").as_uri() + (f"#{sample}" if page == "sample" and sample else "")
            driver.get(url)
            if page == "heatmap":
                cells = driver.find_elements("css selector", "#heatmap td.cell")
                if cells:
                    cells[-1].click()
            if page == "index":
                models = driver.find_elements("css selector", "#board button.model-link")
                if models:
                    models[-1].click()
            end = time.time() + 10  # the sample page shows its sample once the chunk's script has loaded
            while page == "sample" and not driver.find_elements("css selector", ".model-output") and time.time() < end:
                time.sleep(0.1)
            time.sleep(0.3)
            height = driver.execute_script("return Math.min(document.body.scrollHeight, 2400)")
            driver.set_window_size(1300, max(700, height + 40))
            path = out / f"{page}.png"
            driver.save_screenshot(str(path))
            shots.append(path)
        driver.set_window_size(400, 900)
        driver.get((site / "index.html").as_uri())
        time.sleep(0.3)
        driver.save_screenshot(str(out / "index-400px.png"))
        shots.append(out / "index-400px.png")
    finally:
        driver.quit()
    return shots


if __name__ == "__main__":
    print(*take(Path(sys.argv[1]).resolve(), Path(sys.argv[2]), sys.argv[3] if len(sys.argv) > 3 else ""), sep="\n")
