"""Phone and desktop sizes, and screenshots saved where a person can open them, for the
player-page browser tests (errata applied, side by side, translation status).

Screenshots go to PLAYER_SCREENSHOTS (default /tmp/rulesite-player-screenshots).
"""

import os
from pathlib import Path

SCREENSHOTS = Path(os.environ.get("PLAYER_SCREENSHOTS", "/tmp/rulesite-player-screenshots"))
PHONE = {"viewport": {"width": 360, "height": 740}, "device_scale_factor": 2, "has_touch": True, "is_mobile": True}
DESKTOP = {"viewport": {"width": 1280, "height": 900}}
SIZES = {"phone": PHONE, "desktop": DESKTOP}


def shot(page, name: str, **kwargs) -> Path:
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    page.screenshot(path=str(path), animations="disabled", **kwargs)
    return path


def no_horizontal_scroll(page) -> None:
    """Nothing is wider than the screen (a phone must not scroll sideways)."""
    width = page.evaluate("document.documentElement.scrollWidth")
    assert width <= page.viewport_size["width"], width


def no_axe_violations(page) -> None:
    """axe-core (shipped inside axe-playwright-python, no network) finds nothing."""
    from axe_playwright_python.sync_playwright import Axe

    results = Axe().run(page)
    assert results.violations_count == 0, results.generate_report()
