"""Cross-reference lines ("See also: A, B and C") in every language we read.

A cross-reference line starts with one of the PHRASES of any language (documents mix
languages, so all of them are tried), usually followed by a colon. Where a line is found:
on a line of its own (indented or not, with or without its colon when a label follows:
"Siehe auch "X"", "Voir aussi X et Y."), at the end of a bullet, numbered step or
paragraph after its last sentence ("… at any time. See also: Deck."; see
``split_trailing_cross_reference``), and as the whole body of a redirect-only entry
("Tapped / See "Exhaust, Exhausted".", "Patrz „X”.", "voir X"; see
``match_redirect_line``), which becomes an alias of its target.

Splitting a line into labels (``parse_labels``) is decided per document and against the
titles it names:

* **Separators are per document.** A glossary that separates labels with semicolons
  keeps commas inside titles ("Lugar, cartas de; Combate"); one that separates them with
  commas may still have titles with commas or conjunctions in them ("Würfel, keine mehr
  übrig", "Règles, Exceptions et Priorités"). ``document_separator`` infers which.
* **Conjunctions are per language** (CONJUNCTIONS: "and" in English, "und" in German,
  "i"/"oraz" in Polish, "y"/"e" in Spanish, "et" in French …), so "En mano y fuera de la
  mano" keeps its first word in Spanish. A label's first word is never a separator.
* **The reading that names real entries wins.** A line is cut into atoms at every comma,
  semicolon and conjunction; runs of atoms that name a title or alias of the document (or
  of the game's entries already in the database) become labels, preferring the reading
  that covers the most atoms with real titles and then the one with fewest labels
  ("Exhaust, Exhausted" is one entry, not two). Only the atoms that no reading names
  are split the old way (by the document's separator, and at a conjunction before the
  last label only when a capital follows) and stay as written: wanted pages.
* **Page references are no part of a label** (`"Upkeep" on page 7`, "„Koszty” na
  stronie 9", "auf Seite 12", "(pág. 8)", ", voir page 4"): they are dropped from the
  label and the page is kept beside it (``ParsedItem.cross_reference_pages``; the
  CrossReference model has no page field, so only the import report shows it).
"""

import re
from functools import lru_cache

# The phrases that open a cross-reference line, per language. A colon may follow
# (French puts a space before it); the phrases in WITHOUT_COLON also count without one
# ("Zie ook Draken"), when a capitalised label follows.
# fmt: off
PHRASES = {
    "en": ["see also", "related topics", "related entries", "related terms", "related rules", "related", "see"],
    "de": ["siehe auch", "verwandte themen", "verwandte begriffe", "verwandte einträge", "siehe"],
    "pl": [
        "zobacz też",
        "zobacz także",
        "zobacz również",
        "patrz też",
        "patrz także",
        "patrz również",
        "zob. też",
        "zob. także",
        "zob. również",
        "powiązane tematy",
        "powiązane hasła",
        "zobacz",
        "patrz",
        "zob.",
    ],
    "nl": ["zie ook", "gerelateerde onderwerpen", "verwante onderwerpen", "gerelateerde begrippen", "zie"],
    "fr": ["voir aussi", "voir également", "sujets connexes", "thèmes associés", "articles connexes", "voir"],
    "es": ["véase también", "ver también", "temas relacionados", "términos relacionados", "véase"],
    "it": ["vedi anche", "argomenti correlati", "vedi"],
}
WITHOUT_COLON = {
    "see also", "siehe auch", "zobacz też", "zobacz także", "zobacz również", "patrz też", "patrz także",
    "patrz również", "zob. też", "zob. także", "zob. również", "zie ook", "voir aussi", "voir également",
    "véase también", "ver también", "vedi anche",
}
# The phrases that name a list of their own: on a line alone, with or without a colon
# ("Related topics", "Verwandte Themen:", "Zie ook"), they open the list of labels under
# them. The others ("See", "Siehe", "Voir") do so only with their colon.
LIST_PHRASES = WITHOUT_COLON | {
    "related", "related topics", "related entries", "related terms", "related rules",
    "verwandte themen", "verwandte begriffe", "verwandte einträge", "powiązane tematy", "powiązane hasła",
    "gerelateerde onderwerpen", "verwante onderwerpen", "gerelateerde begrippen", "sujets connexes",
    "thèmes associés", "articles connexes", "temas relacionados", "términos relacionados",
    "argomenti correlati",
}
# fmt: on
# "and" before the last label of a list, per language. "&" counts in every language.
CONJUNCTIONS = {
    "en": ["and"], "de": ["und"], "pl": ["i", "oraz"], "nl": ["en"], "fr": ["et"], "es": ["y", "e"],
    "it": ["e", "ed"],
}
FINAL_CONJUNCTIONS = sorted({c for cs in CONJUNCTIONS.values() for c in cs} | {"&"})
# A redirect-only entry's body: "See "X".", "Siehe „X“.", "Patrz X.", "voir X".
REDIRECT_PHRASES = ["see", "siehe", "patrz", "zobacz", "zob.", "zie", "voir", "véase", "ver", "vedi"]

_phrases = sorted({p for ps in PHRASES.values() for p in ps}, key=len, reverse=True)
_with_colon = "|".join(re.escape(p) for p in _phrases)
_without_colon = "|".join(re.escape(p) for p in _phrases if p in WITHOUT_COLON)
_EMPHASIS = r"[*_]{0,3}"  # Markdown: "**See also:** A, B" or "*Related*: A"
LINE = re.compile(
    rf"^\(?{_EMPHASIS}(?:(?:{_with_colon}){_EMPHASIS}\s*:{_EMPHASIS}"
    rf"|(?:{_without_colon}){_EMPHASIS}\s+(?=(?-i:[*_\[\"“„'‘«A-ZÀ-ÞĄĆĘŁŃÓŚŹŻ])))\s*(?P<labels>\S.*)$",
    re.IGNORECASE,
)
_WIKI_LINK = re.compile(r"\[\[([^\[\]|]+?)(?:\|[^\[\]]+?)?\]\]")
_MD_LINK = re.compile(r"\[([^\[\]]+)\]\([^()\s]*\)")
# A page reference after a label, or on its own after a comma: "Combat (page 12)",
# `"Upkeep" on page 7`, "Kampf (S. 12)", "„Niederlage“ auf Seite 12", "„Koszty” na stronie
# 9", "Walka (str. 12)", "Derrota, en la página 11", "Défausse, voir page 9".
_PAGE_WORD = (
    r"(?:pages?|pp?\.|p(?=\s*\d)|seiten?|s\.|str\.|stron(?:a|ie|ach|y)|s(?=\s*\d)|blz\.|bladzijde|pag\.|pág\.|páginas?|pagina)"
)
_PAGE_LEAD = (
    r"(?:(?:on|see|auf|siehe|na|patrz|zob\.|zobacz|en\s+la|en|à\s+la|à|voir|op|vedi|a|ver|véase|cf\.)\s+)"
)
_PAGE = rf"{_PAGE_LEAD}{{0,2}}{_PAGE_WORD}\s*(?P<page>\d+(?:\s*[-–]\s*\d+)?)"
_PAGE_REF = re.compile(rf"(?:\s*\(\s*|\s+){_PAGE}\s*\)?\s*$", re.IGNORECASE)
_PAGE_ONLY = re.compile(rf"^\(?\s*{_PAGE}\s*\)?$", re.IGNORECASE)
_DIGIT = re.compile(r"\d")
# A section after a label: "Noise in the Stealth section", "Guard (section Patrols)",
# "„Flanke“ im Bereich „Kampf“", "Ruch w rozdziale Teren", "Lading in het hoofdstuk
# Handel", "Rempart dans la section Siège", "Tripulación en la sección Combate", or on its
# own after a comma ("Tour, dans la section Siège"). It says where the entry is in the
# book, not what it is called: dropped from the label, like a page. A section word is
# lower case (German nouns aside) and follows a preposition, or stands in brackets, so
# "Section Control" and "Fight in the Chapter House" stay whole.
# fmt: off
SECTION_WORDS = {
    "en": ["section", "sections", "chapter", "chapters", "part", "§"],
    "de": ["Bereich", "Abschnitt", "Kapitel", "Teil", "Regelteil", "Regelabschnitt", "§"],
    "pl": ["rozdziale", "rozdział", "rozdziału", "sekcji", "sekcja", "części", "część", "dziale", "dział",
           "podrozdziale", "§"],
    "nl": ["hoofdstuk", "sectie", "paragraaf", "deel", "onderdeel", "rubriek", "§"],
    "fr": ["section", "chapitre", "partie", "rubrique", "§"],
    "es": ["sección", "capítulo", "apartado", "parte", "§"],
    "it": ["sezione", "capitolo", "parte", "§"],
}
# A preposition (and article) before a section word: "in the", "im", "w", "in het",
# "dans la", "au", "en la" …
SECTION_LEADS = {
    "en": r"(?:in|under)(?:\s+the)?", "de": r"(?:im|in\s+dem|in\s+der|unter(?:\s+dem)?)",
    "pl": r"(?:w|we)", "nl": r"(?:in|onder)(?:\s+(?:het|de))?", "fr": r"(?:dans|à|en)(?:\s+(?:la|le|l['’]))?|au",
    "es": r"(?:en|bajo)(?:\s+(?:la|el))?|del", "it": r"(?:nella|nel|in)",
}
# "in the Stealth section": the name before the section word (English only)
SECTION_AFTER_NAME = {"en": r"(?:in|under)\s+the"}
# fmt: on
_QUOTES = " \"'“”„‘’«»*_"


def match_cross_reference_line(text: str) -> str | None:
    """The label part of a cross-reference line, or None if the line is not one."""
    text = text.strip()
    match = LINE.match(text)
    if not match:
        return None
    labels = match.group("labels").strip()
    if text.startswith("(") and labels.endswith(")"):
        labels = labels[:-1].rstrip()
    return labels or None


def normalise_title(text: str) -> str:
    """How titles are compared when deciding whether a label names a known entry."""
    return " ".join(text.split()).strip(_QUOTES + ".").casefold()


def title_aliases(title: str) -> list[str]:
    """ "Du, Dein" and "Exhaust, Exhausted" name two words of one entry: each part is an
    alias (short parts only: "Lugar, cartas de" is one inverted title)."""
    parts = [part.strip() for part in title.split(",")]
    if len(parts) >= 2 and all(part and len(part.split()) <= 2 for part in parts):
        return parts
    return []


def title_names(title: str) -> list[str]:
    """The names a heading gives its entry: the title and its ``title_aliases``."""
    return [title, *title_aliases(title)]


def match_redirect_line(text: str, language: str | None = None) -> str | None:
    """The target of a redirect-only body ("See "X".", "Siehe „X“.", "Patrz X.", "voir X"),
    or None. Only short labels that read as a title (quoted or capitalised, no sentence in
    them) count: "See the rules for combat." is text. A section after the label ("Siehe
    „X“ im Bereich „Y“") is kept in what is returned (``parse_labels`` drops it) but not
    judged as part of the title."""
    match = _REDIRECT.match(text.strip())
    if not match:
        return None
    label = match.group("label").strip()
    core = strip_section(label, language).strip(_QUOTES + ".")
    if not core or len(core.split()) > 8 or _PAGE_ONLY.match(core) or re.search(r"[.!?:]\s", core):
        return None
    if not (label[:1] in _QUOTES or core[:1].isupper()):
        return None
    return label


def match_list_opener(text: str) -> bool:
    """A line that opens a list of labels under it: "Related topics", "Verwandte Themen:",
    "Zie ook", "**Voir aussi**", "### See also", "See also:" with nothing after it."""
    core = text.strip().strip("#*_ ").rstrip()
    colon = core.endswith(":")
    core = normalise_title(core.rstrip(":").strip("*_ "))
    return core in LIST_PHRASES or (colon and core in _ALL_PHRASES)


_ALL_PHRASES = frozenset(_phrases)
_REDIRECT = re.compile(
    rf"^{_EMPHASIS}(?:{'|'.join(map(re.escape, REDIRECT_PHRASES))}){_EMPHASIS}\s*:?{_EMPHASIS}\s+(?P<label>\S.*?)\s*$",
    re.IGNORECASE,
)
_SENTENCE_END = re.compile(r"[.!?][\"'”’»)]*\s+")
# A sentence's end followed by a cross-reference phrase: where a trailing line may start.
_TAIL_START = re.compile(rf"[.!?][\"'”’»)]*\s+(?=\(?{_EMPHASIS}(?:{_with_colon}))", re.IGNORECASE)


def split_trailing_cross_reference(text: str) -> tuple[str, str] | None:
    """ "Discard one card. See also: Discard Pile." → ("Discard one card.", "Discard Pile.").

    A cross-reference line after the last sentence of a bullet, numbered step or
    paragraph; None when there is none. The labels may hold no sentence of their own."""
    for match in _TAIL_START.finditer(text):
        tail = text[match.end() :]
        labels = match_cross_reference_line(tail)
        if labels is not None and not _SENTENCE_END.search(labels.rstrip(".")):
            return text[: match.end()].rstrip(), labels
    return None


def document_separator(lines: list[str]) -> str:
    """ ";" when the document separates labels with semicolons (and so may put commas
    inside titles: "Lugar, cartas de; Combate"), else ",".

    Semicolons decide when at least half of the lines that hold a separator have one."""
    with_separator = semicolons = 0
    for line in lines:
        outside = _outside_brackets(line)
        if ";" in outside:
            semicolons += 1
            with_separator += 1
        elif "," in outside:
            with_separator += 1
    return ";" if semicolons >= 1 and 2 * semicolons >= with_separator else ","


def split_labels(
    text: str,
    known: set[str] | frozenset[str] = frozenset(),
    language: str | None = None,
    separator: str = ",",
) -> list[str]:
    """ "A, B; C and D" → [A, B, C, D]: the labels of ``parse_labels`` without their pages."""
    return [label for label, _ in parse_labels(text, known, language, separator)]


def parse_labels(
    text: str,
    known: set[str] | frozenset[str] = frozenset(),
    language: str | None = None,
    separator: str = ",",
    heads: frozenset[str] | set[str] | None = None,
) -> list[tuple[str, str]]:
    """The labels of a cross-reference line, each with the page it names ("" if none).

    ``known`` holds the normalised titles and aliases the labels may name (the document's
    own and the game's), ``language`` chooses the conjunctions (None: every language's),
    ``separator`` is the document's (``document_separator``); ``heads`` the first atoms of
    the known names made of several (``name_heads``; None: try every run). See the module
    docstring.
    """
    text = _WIKI_LINK.sub(lambda m: m.group(1), text)
    text = _MD_LINK.sub(lambda m: m.group(1), text)
    text = text.strip().rstrip(".").strip()
    atoms = _atoms(text, language)
    # Page references: dropped from their label, kept beside it; a page on its own after
    # a comma ("Derrota, en la página 11") belongs to the label before it.
    pages: list[str] = []
    kept: list[tuple[str, str]] = []
    for atom, glue in atoms:
        page = ""
        if _DIGIT.search(atom):  # every page reference has a number
            only = _PAGE_ONLY.match(atom.strip(_QUOTES + " "))
            if only and kept:
                pages[-1] = pages[-1] or _page(only)
                continue
            found = _PAGE_REF.search(atom)
            if found and found.start() > 0:
                page, atom = _page(found), atom[: found.start()]
        # a section is no part of a label: "Noise in the Stealth section", or on its own
        # after a comma ("Tour, dans la section Siège")
        if kept and is_section_only(atom.strip(_QUOTES + " "), language):
            pages[-1] = pages[-1] or page
            continue
        atom = strip_section(atom, language)
        if atom.strip(_QUOTES):
            kept.append((atom.strip(), glue))
            pages.append(page)
    labels: list[tuple[str, str]] = []
    for start, end, named in _segments([atom for atom, _ in kept], [glue for _, glue in kept], known, heads):
        if named:
            labels.append((_joined(kept, start, end), next((p for p in pages[start:end] if p), "")))
        else:
            labels.extend(_unnamed(kept, pages, start, end, separator, last=end == len(kept)))
    out: list[tuple[str, str]] = []
    seen: set[str] = set()
    for label, page in labels:
        label = label.strip(_QUOTES).rstrip(".").strip(_QUOTES)
        if label and label not in seen:
            seen.add(label)
            out.append((label, page))
    return out


def name_heads(names, language: str | None) -> frozenset[str]:
    """The first atoms of the names that have more than one ("würfel" of "würfel, keine
    mehr übrig", "in play" of "in play and out of play"): only runs that start with one
    of them can name an entry as a whole, so no other run is tried."""
    conjunction, _ = _conjunction_patterns(language)
    splitter = re.compile(rf"[,;]|{conjunction.pattern}", re.IGNORECASE)
    heads = set()
    for name in names:
        first = splitter.split(name, maxsplit=1)
        if len(first) == 2:
            heads.add(normalise_title(first[0]))
    return frozenset(heads)


def _page(match: re.Match) -> str:
    return re.sub(r"\s+", "", match.group("page")).replace("-", "–")


def _section_words(language: str | None) -> list[str]:
    if language in SECTION_WORDS:
        return SECTION_WORDS[language]
    return sorted({word for words in SECTION_WORDS.values() for word in words}, key=len, reverse=True)


@lru_cache(maxsize=16)
def _section_patterns(language: str | None) -> tuple[re.Pattern, re.Pattern]:
    """A section after a label (to its end), and an atom that is only a section."""
    languages = [language] if language in SECTION_WORDS else list(SECTION_WORDS)
    words, leads, after = set(), [], []
    for lang in languages:
        for word in SECTION_WORDS[lang]:
            # lower case outside German; German nouns have their capital
            words.add(re.escape(word) if lang == "de" else f"(?-i:{re.escape(word)})")
        leads.append(SECTION_LEADS[lang])
        if lang in SECTION_AFTER_NAME:
            after.append(SECTION_AFTER_NAME[lang])
    word = "(?:" + "|".join(sorted(words, key=len, reverse=True)) + ")"
    lead = "(?:" + "|".join(f"(?:{lead})" for lead in leads) + ")"
    name = r"(?:[\"“„«‘'].+|[^\s(),;]\S*(?:\s+\S+)*)"
    forms = [
        rf"\s+{lead}\s+{word}\s*{name}",  # "in section Y", "im Bereich „Y“", "au chapitre Y"
        rf"\s*\(\s*(?:(?:see|siehe|zob\.|patrz|zie|voir|véase|ver|vedi|cf\.)\s+)?(?:{lead}\s+)?{word}\s*[^()]+\)",
    ]
    if after:
        named = r"(?:[\"“„«‘'][^\"”“«»‘’]+[\"”“»’']|[^\s(),;\"]+(?:\s+[^\s(),;\"]+){0,3})"
        forms.append(rf"\s+(?:{'|'.join(after)})\s+{named}\s+(?-i:(?:section|chapter|part|rules))")
        forms.append(rf"\s*\(\s*(?:{'|'.join(after)})\s+{named}\s+(?-i:(?:section|chapter|part|rules))\s*\)")
    tail = re.compile(rf"(?:{'|'.join(forms)})\s*$", re.IGNORECASE)
    only = re.compile(
        rf"^\(?\s*(?:(?:see|siehe|zob\.|patrz|zie|voir|véase|ver|vedi|cf\.)\s+)?"
        rf"(?:{lead}\s+{word}\s*{name}|{word}\s*\d[\d.]*"
        + (rf"|(?:{'|'.join(after)})\s+{named}\s+(?-i:(?:section|chapter|part|rules))" if after else "")
        + r")\s*\)?$",
        re.IGNORECASE,
    )
    return tail, only


def strip_section(label: str, language: str | None = None) -> str:
    """ "Noise in the Stealth section" → "Noise", "„Vorrat“ im Bereich „Gebäude“." →
    "„Vorrat“"; a label without a section is returned as it is."""
    tail, _ = _section_patterns(language)
    text = label.rstrip().rstrip(".").rstrip()
    found = tail.search(text)
    if found and found.start() > 0 and text[: found.start()].strip(_QUOTES + " ,"):
        return text[: found.start()].rstrip(" ,")
    return label


def is_section_only(text: str, language: str | None = None) -> bool:
    """ "in the Setup section", "dans la section Siège", "section 4": a section on its own."""
    _, only = _section_patterns(language)
    return only.match(text.strip().rstrip(".").strip()) is not None


def _conjunctions(language: str | None) -> list[str]:
    if language in CONJUNCTIONS:
        return [*CONJUNCTIONS[language], "&"]
    return FINAL_CONJUNCTIONS


@lru_cache(maxsize=16)
def _conjunction_patterns(language: str | None) -> tuple[re.Pattern, re.Pattern]:
    """A conjunction between two words, and one that opens a part."""
    words = "|".join(re.escape(c) for c in _conjunctions(language))
    return re.compile(rf"\s+(?:{words})\s+", re.IGNORECASE), re.compile(rf"^(?:{words})\s+", re.IGNORECASE)


def _atoms(text: str, language: str | None) -> list[tuple[str, str]]:
    """The line cut at every comma, semicolon (outside brackets and quotes) and conjunction,
    each atom with the glue before it (", ", "; ", " and ", ", and "). A part's first word
    is never a conjunction: "En mano y fuera de la mano" starts with a word."""
    conjunction, leading = _conjunction_patterns(language)
    atoms: list[tuple[str, str]] = []
    for index, (part, glue) in enumerate(_split_outside_brackets(text)):
        part = part.strip()
        if index:
            lead = leading.match(part)
            if lead and part[lead.end() :].strip():  # "A, B, and C": the Oxford comma
                glue = glue + " " + lead.group(0).strip() + " "
                part = part[lead.end() :]
        position = 0
        pieces = []
        for match in conjunction.finditer(part):
            if _inside_brackets(part, match.start()):
                continue
            pieces.append((part[position : match.start()], glue))
            glue, position = match.group(0), match.end()
        pieces.append((part[position:], glue))
        atoms.extend((piece.strip(), glue) for piece, glue in pieces if piece.strip())
    return atoms


def _joined(atoms: list[tuple[str, str]], start: int, end: int) -> str:
    """The atoms start..end as written, glue and all ("Exhaust, Exhausted")."""
    text = atoms[start][0]
    for atom, glue in atoms[start + 1 : end]:
        text += _glue_text(glue) + atom
    return text


def _segments(atoms: list[str], glues: list[str], known, heads=None) -> list[tuple[int, int, bool]]:
    """Runs of atoms: (start, end, names a known title). Most atoms named, then fewest labels;
    a run never crosses a semicolon."""
    count = len(atoms)
    if not known or count < 2:  # one atom is one label, named or not
        return [(0, count, False)] if count else []
    # best[i]: (atoms named, -labels) for atoms[i:], and the run chosen there
    best: list[tuple[tuple[int, int], tuple[int, int, bool]] | None] = [None] * (count + 1)
    best[count] = ((0, 0), (count, count, False))
    for start in range(count - 1, -1, -1):
        options = [((best[start + 1][0][0], best[start + 1][0][1]), (start, start + 1, False))]
        text = ""
        single = normalise_title(atoms[start])
        if single in known:
            rest = best[start + 1][0]
            options.append(((rest[0] + 1, rest[1] - 1), (start, start + 1, True)))
        if heads is not None and single not in heads:
            best[start] = max(options, key=lambda option: option[0])
            continue
        for end in range(start + 2, min(count, start + 12) + 1):
            if ";" in glues[end - 1]:
                break
            text = (text or atoms[start]) + _glue_text(glues[end - 1]) + atoms[end - 1]
            if normalise_title(text) in known:
                rest = best[end][0]
                options.append(((rest[0] + end - start, rest[1] - 1), (start, end, True)))
        best[start] = max(options, key=lambda option: option[0])
    runs: list[tuple[int, int, bool]] = []
    position = 0
    while position < count:
        _, (start, end, named) = best[position]
        if not named and runs and not runs[-1][2]:
            runs[-1] = (runs[-1][0], end, False)  # unnamed atoms in a row: one stretch
        else:
            runs.append((start, end, named))
        position = end
    return runs


def _glue_text(glue: str) -> str:
    core = glue.strip()
    if not core:
        return " "
    if core in ",;":
        return core + " "
    if core[0] in ",;":  # ", and "
        return core[0] + " " + core[1:].strip() + " "
    return " " + core + " "


def _unnamed(atoms, pages, start: int, end: int, separator: str, last: bool) -> list[tuple[str, str]]:
    """Atoms no reading names: split at the document's separator (and always at a
    semicolon), and at a conjunction only before the last label of a list, when a capital
    or digit follows ("…, Piloci i Ekwipunek" but not "…, Im Spiel und nicht im Spiel")."""
    parts: list[list[int]] = [[start]]
    for index in range(start + 1, end):
        glue = atoms[index][1].strip()
        # a semicolon always separates, a comma where the document separates with commas,
        # and ", and" (the Oxford comma) in any document
        if glue[:1] == ";" or (glue[:1] == "," and (separator == "," or len(glue) > 1)):
            parts.append([index])
        else:
            parts[-1].append(index)
    list_length = len(parts) + (1 if start > 0 else 0)
    out: list[tuple[str, str]] = []
    for number, part in enumerate(parts):
        groups = [part]
        final = last and number == len(parts) - 1 and list_length >= 2
        conjunctions = [i for i in part[1:] if atoms[i][1].strip()[:1] not in (",", ";")]
        if final and conjunctions:
            cut = conjunctions[-1]
            first = atoms[cut][0].lstrip(_QUOTES + "([")[:1]
            if first.isupper() or first.isdigit():
                groups = [[i for i in part if i < cut], [i for i in part if i >= cut]]
        for group in groups:
            text = atoms[group[0]][0]
            for index in group[1:]:
                text += _glue_text(atoms[index][1]) + atoms[index][0]
            out.append((text, next((pages[i] for i in group if pages[i]), "")))
    return out


def _inside_brackets(text: str, position: int) -> bool:
    return (
        text[:position].count("(") > text[:position].count(")")
        or text[:position].count("[") > text[:position].count("]")
    )


_SEPARATOR = re.compile(r"([,;])")
_OPENING_QUOTES = {"„": "“”", "“": "”", "«": "»", "‚": "‘’"}


def _split_outside_brackets(text: str) -> list[tuple[str, str]]:
    """Parts between commas and semicolons outside brackets and typographic quotes, each
    with the separator before it ("" for the first)."""
    if "," not in text and ";" not in text:
        return [(text, "")]
    if not any(char in text for char in "([„“«‚"):
        pieces = _SEPARATOR.split(text)
        return [(pieces[0], "")] + [(pieces[i + 1], pieces[i] + " ") for i in range(1, len(pieces), 2)]
    parts, depth, start, glue, closing = [], 0, 0, "", ""
    for position, char in enumerate(text):
        if closing:
            if char in closing:
                closing = ""
            continue
        if char in _OPENING_QUOTES and text.find(_OPENING_QUOTES[char][0], position + 1) != -1 or (
            char in _OPENING_QUOTES
            and len(_OPENING_QUOTES[char]) > 1
            and text.find(_OPENING_QUOTES[char][1], position + 1) != -1
        ):
            closing = _OPENING_QUOTES[char]
        elif char in "([":
            depth += 1
        elif char in ")]" and depth:
            depth -= 1
        elif char in ",;" and depth == 0:
            parts.append((text[start:position], glue))
            glue, start = char + " ", position + 1
    parts.append((text[start:], glue))
    return parts


def _outside_brackets(text: str) -> str:
    """The text without what stands in brackets."""
    return re.sub(r"\([^()]*\)|\[[^\[\]]*\]", "", text)
