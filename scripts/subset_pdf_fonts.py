"""Make the fonts the PDF booklets are written with (rules/fonts/, rules.booklet_pdf).

DejaVu Sans in four styles, cut down to the Latin scripts the content languages use
(English, German, Polish, Dutch, French, Spanish, Italian), general punctuation, arrows
and a few symbols: about 115 KB a style instead of 700 KB. The PDF embeds only the
glyphs it uses. Run by hand when the set of characters must grow; the input is Debian's
fonts-dejavu-core (`apt-get install fonts-dejavu-core`), its license is beside the fonts.

    python scripts/subset_pdf_fonts.py [/usr/share/fonts/truetype/dejavu]
"""

import sys
from pathlib import Path

from fontTools import subset

RANGES = (
    "U+0020-007E,U+00A0-024F,U+02B0-02FF,U+0300-036F,U+1E00-1EFF,U+2000-206F,"
    "U+2070-209F,U+20A0-20BF,U+2100-214F,U+2190-21FF,U+2212,U+25A0-25FF,U+FB00-FB06"
)
STYLES = ("DejaVuSans", "DejaVuSans-Bold", "DejaVuSans-Oblique", "DejaVuSans-BoldOblique")
OUT = Path(__file__).resolve().parent.parent / "rules" / "fonts"


def main(source: Path) -> None:
    for style in STYLES:
        options = subset.Options()
        options.layout_features = ["*"]
        options.name_IDs = ["*"]
        options.notdef_outline = True
        options.hinting = False
        font = subset.load_font(str(source / f"{style}.ttf"), options)
        subsetter = subset.Subsetter(options)
        subsetter.populate(unicodes=subset.parse_unicodes(RANGES))
        subsetter.subset(font)
        subset.save_font(font, str(OUT / f"{style}.ttf"), options)
        print(f"{style}.ttf: {(OUT / f'{style}.ttf').stat().st_size} bytes")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "/usr/share/fonts/truetype/dejavu"))
