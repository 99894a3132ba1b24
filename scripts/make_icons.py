"""Make the web app's PNG icons from the one SVG, ``static/img/favicon.svg``.

    .venv/bin/python scripts/make_icons.py [--check]

Browsers ask an installable site for PNG icons of 192 and 512 pixels, and a "maskable"
one (Android crops it to a circle or a squircle, so its picture must sit inside the
middle 80 %: https://www.w3.org/TR/appmanifest/#icon-masks); iOS takes a 180-pixel
``apple-touch-icon``. They are all drawn here from the favicon's SVG, by Debian's
Chromium through Playwright (both are what the browser tests already need; no image
library or rasteriser is added to the project), and committed under ``static/img/icons/``
so the site serves plain static files and no server renders anything. Run this after
changing the SVG; ``--check`` (no writing) exits 1 when a committed icon is missing or
has the wrong size, as a test does (``tests/pages/test_offline.py``).

- ``icon-192.png``, ``icon-512.png`` (purpose ``any``): the SVG as it is, on a
  transparent background.
- ``maskable-192.png``, ``maskable-512.png``: the SVG at 60 % of the side on the light
  theme's page colour, full bleed.
- ``apple-touch-icon.png`` (180): the same as the maskable one (iOS rounds the corners
  itself and shows transparency as black).
"""

import argparse
import base64
import shutil
import struct
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
SVG = ROOT / "static" / "img" / "favicon.svg"
OUT = ROOT / "static" / "img" / "icons"
PAPER = "#fbfaf7"  # --paper of static/css/site.css, the light theme
# name → (side in pixels, maskable: on the page colour with a safe margin)
ICONS = {
    "icon-192.png": (192, False),
    "icon-512.png": (512, False),
    "maskable-192.png": (192, True),
    "maskable-512.png": (512, True),
    "apple-touch-icon.png": (180, True),
}


def png_size(path: Path) -> tuple[int, int]:
    """A PNG's width and height, from its IHDR chunk."""
    head = path.read_bytes()[:24]
    if head[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError(f"{path} is not a PNG")
    return struct.unpack(">II", head[16:24])


def check() -> list[str]:
    problems = []
    for name, (side, _maskable) in ICONS.items():
        path = OUT / name
        if not path.exists():
            problems.append(f"{name}: missing")
        elif png_size(path) != (side, side):
            problems.append(f"{name}: {png_size(path)}, not {side}×{side}")
    return problems


def page_html(svg: bytes, side: int, maskable: bool) -> str:
    source = "data:image/svg+xml;base64," + base64.b64encode(svg).decode()
    picture = round(side * 0.6) if maskable else side
    background = PAPER if maskable else "transparent"
    return (
        "<!DOCTYPE html><html><body style='margin:0'>"
        f"<div style='width:{side}px;height:{side}px;display:flex;align-items:center;justify-content:center;"
        f"background:{background}'><img src='{source}' width='{picture}' height='{picture}' alt=''></div>"
        "</body></html>"
    )


def make() -> None:
    from playwright.sync_api import sync_playwright

    executable = shutil.which("chromium") or shutil.which("chromium-browser")
    if executable is None:
        sys.exit("needs Debian's chromium (apt-get install -y chromium)")
    svg = SVG.read_bytes()
    OUT.mkdir(parents=True, exist_ok=True)
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=executable, args=["--no-sandbox", "--disable-gpu"])
        for name, (side, maskable) in ICONS.items():
            page = browser.new_page(viewport={"width": side, "height": side}, device_scale_factor=1)
            page.set_content(page_html(svg, side, maskable))
            page.locator("img").evaluate("img => img.decode()")
            page.screenshot(path=str(OUT / name), omit_background=not maskable)
            page.close()
            print(f"{name}: {side}×{side}, {(OUT / name).stat().st_size} bytes")
        browser.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--check", action="store_true", help="only check the committed icons")
    if parser.parse_args().check:
        problems = check()
        print("\n".join(problems) or "icons: all present, right sizes")
        return 1 if problems else 0
    make()
    return 1 if check() else 0


if __name__ == "__main__":
    sys.exit(main())
