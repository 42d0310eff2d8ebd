"""Take the README's screenshots of the web page again, in headless Chromium.

    python docs/screenshots.py OUT_DIR [SCENE ...]

Starts `wordle-dp serve` on a free port (today's NYT lists, the default), plays
each scene in a fresh page at 1280 x 900 and at 390 x 844, and writes
OUT_DIR/SCENE-WIDTHxHEIGHT.png. The README uses web-play (1280), web-phone (390),
web-boards, web-absurdle, web-6-letters (1280) and web-wins (390); copy those into
docs/ after looking at every picture. Needs chromium, chromedriver and selenium
(the browser tests' set-up, tests/test_web_browser.py). The scenes wait for the
page's own markers (data-ready, data-position), as the browser tests do.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

from selenium import webdriver
from selenium.common.exceptions import StaleElementReferenceException
from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait

ROOT = Path(__file__).resolve().parents[1]
SIZES = ((1280, 900), (390, 844))


def serve() -> tuple[subprocess.Popen, str]:
    """`wordle-dp serve --port 0` and its address, once it answers."""
    import urllib.request

    proc = subprocess.Popen([sys.executable, "-m", "solver", "serve", "--port", "0"], cwd=ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=dict(os.environ, PYTHONPATH=str(ROOT)))
    assert proc.stdout is not None
    for line in proc.stdout:
        m = re.search(r"serving on (http://\S+?)/? ", line)
        if m:
            url = m.group(1)
            break
    else:
        raise SystemExit(f"the server did not start (status {proc.wait()})")
    for _ in range(600):
        try:
            with urllib.request.urlopen(url + "/api/info", timeout=5):
                return proc, url
        except OSError:
            time.sleep(0.5)
    raise SystemExit("the server does not answer")


def browser() -> webdriver.Chrome:
    from selenium.webdriver.chrome.options import Options
    from selenium.webdriver.chrome.service import Service

    opts = Options()
    for a in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
              "--hide-scrollbars"):
        opts.add_argument(a)
    opts.binary_location = shutil.which("chromium") or shutil.which("chromium-browser") or ""
    return webdriver.Chrome(options=opts, service=Service(shutil.which("chromedriver")))


def viewport(drv, width: int, height: int) -> None:
    """The page's own area (innerWidth x innerHeight) at width x height."""
    drv.set_window_size(width, height)
    iw, ih = drv.execute_script("return [window.innerWidth, window.innerHeight]")
    drv.set_window_size(2 * width - iw, 2 * height - ih)


def wait(drv, cond: Callable, timeout: float = 300):
    return WebDriverWait(drv, timeout, poll_frequency=0.1,
                         ignored_exceptions=(StaleElementReferenceException,)).until(cond)


def ready(drv) -> None:
    wait(drv, lambda d: d.find_element(By.TAG_NAME, "body").get_attribute("data-ready"))


def analysed(drv, position: str) -> None:
    """The Play panel shows the best guess and its alternatives for `position`."""
    wait(drv, lambda d: d.find_elements(
        By.CSS_SELECTOR, f'#analysis-body[data-position="{position}"] .best .word'))
    wait(drv, lambda d: not d.find_elements(By.CSS_SELECTOR, "#job-play:not([hidden])"))


def type_row(drv, word: str, colours: str = "") -> None:
    """Type `word` on the page's keyboard, set its colours in Assist (BYG), Enter."""
    body = drv.find_element(By.TAG_NAME, "body")
    body.send_keys(word)
    for i, c in enumerate(colours):
        body.send_keys(str((i + 1) % 10) * "BYG".index(c))
    body.send_keys("\n")


def fresh(drv, url: str, hash_: str) -> None:
    """The page at `hash_` with nothing remembered from an earlier scene."""
    drv.get(url + "/#results")
    drv.execute_script("localStorage.clear()")
    drv.get("about:blank")
    drv.get(url + "/" + hash_)
    ready(drv)


def scene_play(drv, url: str, width: int) -> None:
    """Assist after TARSE BYBBG on today's lists."""
    fresh(drv, url, "#play")
    analysed(drv, "-")
    type_row(drv, "tarse", "BYBBG")
    analysed(drv, "tarse:BYBBG")


def scene_phone(drv, url: str, width: int) -> None:
    """Play a hidden answer, two rows in: the next guess above the keyboard."""
    fresh(drv, url, "#play?answer=plank")
    analysed(drv, "-")
    type_row(drv, "salet")
    wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, '#next-bar[data-position^="salet:"]'))
    drv.execute_script("document.getElementById('bar-take')?.click()")
    drv.find_element(By.TAG_NAME, "body").send_keys("\n")
    wait(drv, lambda d: len(d.find_elements(By.CSS_SELECTOR, "#board .row.done")) >= 2
         or d.find_elements(By.CSS_SELECTOR, '#next-bar[data-position*=","]'))
    wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, '#next-bar[data-position*=","]'))


def scene_boards(drv, url: str, width: int) -> None:
    """A Quordle, three of the suggested guesses in (Play: hidden answers)."""
    fresh(drv, url, "#boards?k=4")
    drv.find_element(By.CSS_SELECTOR, '#boards-kind button[data-kind="play"]').click()
    for turn in range(3):
        wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, "#boards-take"))
        drv.find_element(By.ID, "boards-take").click()
        drv.find_element(By.ID, "boards-enter").click()
        wait(drv, lambda d, n=turn + 1: d.execute_script(
            "return wordleDP.bPosition().split(',').filter(Boolean).length") == n)
    wait(drv, lambda d: d.find_elements(By.CSS_SELECTOR, "#boards-take"))


def scene_absurdle(drv, url: str, width: int) -> None:
    """Absurdle after RAISE and ACOLD, with the exact fewest guesses left."""
    fresh(drv, url, "#play?game=absurdle")
    for word in ("raise", "acold"):
        drv.find_element(By.TAG_NAME, "body").send_keys(word + "\n")
        wait(drv, lambda d, w=word: w in (d.find_element(By.ID, "analysis-body")
                                          .get_attribute("data-position") or ""))
    wait(drv, lambda d: "acold" in (d.find_element(By.ID, "analysis-body")
                                    .get_attribute("data-analysed") or ""))


def scene_6_letters(drv, url: str, width: int) -> None:
    """The 6-letter lists, after SATIRE BYBBYG."""
    fresh(drv, url, "#play")
    wait(drv, lambda d: any("6 letters" in o.text for o in
                            d.find_elements(By.CSS_SELECTOR, "#lists option")))
    drv.execute_script("""
        const s = document.getElementById('lists');
        s.value = [...s.options].find((o) => o.text.startsWith('6 letters')).value;
        s.dispatchEvent(new Event('change'));""")
    wait(drv, lambda d: d.execute_script(
        "return getComputedStyle(document.documentElement).getPropertyValue('--len')").strip()
         == "6")
    analysed(drv, "-")
    type_row(drv, "satire", "BYBBYG")
    analysed(drv, "satire:BYBBYG")


def scene_wins(drv, url: str, width: int) -> None:
    """Hard mode after MATCH BGGGG: no strategy wins every answer (the panel)."""
    fresh(drv, url, "#play")
    drv.find_element(By.CSS_SELECTOR, '#mode button[data-mode="hard"]').click()
    analysed(drv, "-")
    type_row(drv, "match", "BGGGG")
    wait(drv, lambda d: d.find_elements(
        By.CSS_SELECTOR, '#analysis-body[data-alternatives="match:BGGGG"] #wins-msg'))
    if width < 600:  # the panel is below the board on a phone
        drv.execute_script("document.getElementById('analysis-title').scrollIntoView()")


SCENES = {"web-play": scene_play, "web-phone": scene_phone, "web-boards": scene_boards,
          "web-absurdle": scene_absurdle, "web-6-letters": scene_6_letters,
          "web-wins": scene_wins}


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    names = argv[1:] or list(SCENES)
    proc, url = serve()
    drv = browser()
    try:
        for name in names:
            for w, h in SIZES:
                viewport(drv, w, h)
                SCENES[name](drv, url, w)
                time.sleep(0.5)  # the last drawing's transitions
                path = out / f"{name}-{w}x{h}.png"
                drv.save_screenshot(str(path))
                print(path, flush=True)
    finally:
        drv.quit()
        proc.terminate()
        proc.wait(30)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
