"""Make the fonts the PDF booklets are written with (rules/builds/fonts/, rules.builds.pdf_fonts).

DejaVu Sans (the text) and DejaVu Sans Mono (code spans and blocks), four styles each,
cut down to RANGES: the Latin scripts of the content languages (English, German,
Polish, Dutch, French, Spanish, Italian) with their combining marks, Greek, general and
typographic punctuation, super- and subscripts, currency, letterlike symbols, arrows,
mathematical operators, circled numbers, geometric shapes, the symbols and dingbats a
game text uses (card suits, dice, stars, check marks), the Latin ligatures and U+FFFD,
the replacement character. Each family is cut to the characters all four of its styles
have, so a character is in every style or in none; Mono has fewer symbols than Sans
(rules.builds.booklet_pdf_html writes those in Sans). The PDF embeds only the glyphs it uses.
Run by hand when the set of characters must grow; the input is Debian's
fonts-dejavu-core and fonts-dejavu-extra (the oblique styles), their license is beside
the fonts (rules/builds/fonts/LICENSE.txt: update its list of files and sizes).

    python scripts/subset_pdf_fonts.py [/usr/share/fonts/truetype/dejavu]
"""

import sys
from pathlib import Path

from fontTools import subset
from fontTools.ttLib import TTFont

RANGES = (
    "U+0020-007E,U+00A0-024F,U+02B0-02FF,U+0300-036F,U+0370-03FF,U+1E00-1EFF,U+2000-206F,"
    "U+2070-209F,U+20A0-20BF,U+2100-214F,U+2190-21FF,U+2200-22FF,U+2460-2473,U+25A0-25FF,U+2605-2606,"
    "U+2610-2612,U+2660-2667,U+2680-2685,U+2713-2718,U+2776-277F,U+FB00-FB06,U+FFFD"
)
FAMILIES = (
    ("DejaVuSans", "DejaVuSans-Bold", "DejaVuSans-Oblique", "DejaVuSans-BoldOblique"),
    ("DejaVuSansMono", "DejaVuSansMono-Bold", "DejaVuSansMono-Oblique", "DejaVuSansMono-BoldOblique"),
)
OUT = Path(__file__).resolve().parent.parent / "rules" / "builds" / "fonts"


def main(source: Path) -> None:
    wanted = set(subset.parse_unicodes(RANGES))
    for styles in FAMILIES:
        # The characters every style of the family has.
        shared = set.intersection(*(set(TTFont(source / f"{style}.ttf").getBestCmap()) for style in styles))
        unicodes = sorted(wanted & shared)
        for style in styles:
            options = subset.Options()
            options.layout_features = ["*"]
            options.name_IDs = ["*"]
            options.notdef_outline = True
            options.hinting = False
            font = subset.load_font(str(source / f"{style}.ttf"), options)
            subsetter = subset.Subsetter(options)
            subsetter.populate(unicodes=unicodes)
            subsetter.subset(font)
            subset.save_font(font, str(OUT / f"{style}.ttf"), options)
            print(f"{style}.ttf: {len(unicodes)} characters, {(OUT / f'{style}.ttf').stat().st_size} bytes")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "/usr/share/fonts/truetype/dejavu"))
