"""Link-preview cards: the image a shared link of a game's pages shows.

Chat apps and social sites show a large image with a shared link (``og:image``,
``twitter:card`` "summary_large_image"). Each game has one card per UI language: its
name as every page shows it to that reader (``Game.name_in``), what the site offers, and
the site's name, a 1200 × 630 PNG on the header's blue. It is a built file
(``rules.builds``, kind ``card``): drawn by the background worker the first time it is
asked for, and again only when what it shows changed (the fingerprint of its texts), so
no reader's request and no write waits for the drawing (about 20 ms). Until it is drawn
the address sends the reader to the site's own card (``static/img/card.png``, drawn by
``render`` too: ``python -m rules.builds.card`` writes it).

The fonts are the booklets' DejaVu Sans (``fonts/``).
"""

from functools import cache
from io import BytesIO
from pathlib import Path

from django.utils.translation import gettext

WIDTH, HEIGHT = 1200, 630
BACKGROUND, INK, ACCENT = (31, 78, 121), (255, 255, 255), (240, 165, 0)  # site.css: --header-bg, --button-bg
FONTS = Path(__file__).resolve().parent / "fonts"
MARGIN = 80
TITLE_SIZES = (88, 76, 66, 58, 50, 44)  # the largest at which the name fits three lines
TITLE_HEIGHT = 290  # what the name may take, above the rule, the subtitle and the site's name


@cache
def _font(size: int, bold: bool = False):
    from PIL import ImageFont

    return ImageFont.truetype(str(FONTS / ("DejaVuSans-Bold.ttf" if bold else "DejaVuSans.ttf")), size)


def _wrap(draw, text: str, font, width: int) -> list[str]:
    lines: list[str] = []
    for word in text.split():
        trial = f"{lines[-1]} {word}" if lines else word
        if lines and draw.textlength(trial, font=font) <= width:
            lines[-1] = trial
        else:
            lines.append(word)
    return lines


def subtitle() -> str:
    """What the site offers, in the active language."""
    return gettext("Rules, errata and FAQ")


def render(title: str, sub: str) -> bytes:
    """The card as PNG bytes: ``title`` as large as three lines allow, ``sub`` under it,
    "rulesite" at the foot. A palette of 32 colours, compressed quickly: 20 ms and
    about 20 KB, where full colour with the best compression took 110 ms and 40 KB."""
    from PIL import Image, ImageDraw

    image = Image.new("RGB", (WIDTH, HEIGHT), BACKGROUND)
    draw = ImageDraw.Draw(image)
    width = WIDTH - 2 * MARGIN
    for size in TITLE_SIZES:
        font = _font(size, bold=True)
        lines = _wrap(draw, title, font, width)
        fits = all(draw.textlength(line, font=font) <= width for line in lines)
        if len(lines) <= 3 and fits and len(lines) * int(size * 1.2) <= TITLE_HEIGHT:
            break
    y = MARGIN + 20
    for line in lines[:3]:
        draw.text((MARGIN, y), line, font=font, fill=INK)
        y += int(size * 1.2)
    draw.rectangle((MARGIN, y + 18, MARGIN + 120, y + 26), fill=ACCENT)
    draw.text((MARGIN, y + 50), sub, font=_font(38), fill=INK)
    draw.text((MARGIN, HEIGHT - MARGIN - 40), "rulesite", font=_font(40, bold=True), fill=ACCENT)
    out = BytesIO()
    image.quantize(colors=32, method=Image.Quantize.FASTOCTREE).save(out, "PNG", compress_level=1)
    return out.getvalue()


if __name__ == "__main__":  # python -m rules.builds.card: the site's own card
    path = Path(__file__).resolve().parents[2] / "static" / "img" / "card.png"
    path.write_bytes(render("rulesite", "Rules, errata and FAQ for card and board games"))
    print(f"wrote {path}")  # noqa: T201 - a script's one line of output
