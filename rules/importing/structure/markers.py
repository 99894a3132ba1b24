"""What the lines of a rules text look like, per language: the marker words and patterns.

Every word the structure stage looks for, and every pattern of a line (bullets, rule
numbers, Markdown, "Q:"/"A:" prefixes, section headings, index letters), in one
place, with the small tests on one string that go with them. All languages are tried
on every document (FAQs mix them). Cross-reference phrases ("See also", "Siehe auch"
…) are in ``rules.importing.crossrefs``. Nothing here reads more than one line.
"""

import re

from ..crossrefs import normalise_title

# The words the importer looks for, per language, in one place (cross-reference phrases
# are in crossrefs.PHRASES). All languages are tried on every document: FAQs mix them.
#   question / answer: prefixes of FAQ lines ("Q: …", "A: …"), before a colon;
#   errata / clarifications: headings of sections whose items are errata;
#   questions: headings of a plain FAQ section (they group questions, name no topic);
#   contents: a table of contents, dropped.
# fmt: off
MARKERS = {
    "en": {
        "question": ["q", "question"],
        "answer": ["a", "answer"],
        "errata": ["errata", "erratum", "corrections", "correction", "card errata",
                   "rulebook errata"],
        "clarifications": ["clarifications", "clarification", "rules clarifications"],
        "questions": ["faq", "faqs", "frequently asked questions", "questions",
                      "questions and answers", "q&a", "rules questions"],
        "contents": ["contents", "table of contents"],
    },
    "de": {
        "question": ["f", "frage"],
        "answer": ["a", "antwort"],
        "errata": ["errata", "erratum", "korrekturen", "korrektur", "berichtigungen"],
        "clarifications": ["klarstellungen", "klarstellung", "regelklarstellungen",
                           "präzisierungen"],
        "questions": ["faq", "fragen", "häufig gestellte fragen", "häufige fragen",
                      "fragen und antworten", "regelfragen"],
        "contents": ["inhalt", "inhaltsverzeichnis"],
    },
    "pl": {
        "question": ["p", "pytanie"],
        "answer": ["o", "odpowiedź"],
        "errata": ["errata", "erraty", "korekty", "errata i korekty", "poprawki", "sprostowania"],
        "clarifications": ["wyjaśnienia", "wyjaśnienia zasad", "doprecyzowania"],
        "questions": ["faq", "pytania", "pytania i odpowiedzi", "najczęściej zadawane pytania",
                      "często zadawane pytania"],
        "contents": ["spis treści"],
    },
    "nl": {
        "question": ["v", "vraag"],
        "answer": ["a", "antwoord"],
        "errata": ["errata", "erratum", "correcties", "verbeteringen"],
        "clarifications": ["verduidelijkingen", "verduidelijking", "toelichtingen"],
        "questions": ["faq", "vragen", "veelgestelde vragen", "vragen en antwoorden"],
        "contents": ["inhoud", "inhoudsopgave"],
    },
    "fr": {
        "question": ["q", "question"],
        "answer": ["r", "réponse"],
        "errata": ["errata", "erratum", "correctifs", "corrections"],
        "clarifications": ["clarifications", "précisions"],
        "questions": ["faq", "questions", "foire aux questions", "questions fréquentes"],
        "contents": ["sommaire", "table des matières"],
    },
    "es": {
        "question": ["p", "pregunta"],
        "answer": ["r", "respuesta"],
        "errata": ["erratas", "fe de erratas", "correcciones"],
        "clarifications": ["aclaraciones"],
        "questions": ["preguntas frecuentes", "preguntas"],
        "contents": ["índice", "contenido"],
    },
}
# fmt: on
SECTION_KINDS = ("errata", "clarifications", "questions", "contents")  # in order of precedence

TERMINAL = ".!?:;"
QUESTION_MAX = (
    1000  # a question heading is one sentence ending in "?"; the writer shortens long ones
)
CLOSERS = "\"'”’»)]*_"
ELLIPSIS = ("...", "…")
# fmt: off
CONNECTORS = {
    "and", "or", "of", "the", "a", "an", "from", "in", "on", "to", "for", "with", "by", "at",
    "und", "oder", "des", "der", "die", "das", "dem", "den", "im", "von", "zu", "zum", "zur",
    "mit", "auf",
    "i", "oraz", "lub", "w", "z", "na", "do", "od",
    "en", "van", "het", "de", "een", "op", "met", "voor",
    "et", "ou", "le", "la", "les", "du", "y", "o", "el", "los", "las",
}
# fmt: on
# Words after "Spieler- " that show the hyphen is an elided compound
# ("Spieler- und Begegnungskarten").
# fmt: off
HYPHEN_CONJUNCTIONS = {
    "und", "oder", "bzw", "sowie", "and", "or", "en", "of", "i", "oraz", "lub", "albo", "et",
    "ou", "y", "o",
}
# fmt: on

_UPPER = "A-ZÀ-ÞĄĆĘŁŃÓŚŹŻ"
BULLET = re.compile(
    rf"^(?P<indent>\s*)(?:[•·▪◦‣∙●○■□➢►▸▹◆◇❖✓✔→–—*+\-\uf0b7\uf0a7\uf076\uf0d8\uf0fc]"
    rf"|x(?=\s+[\"“„'‘(\[{_UPPER}0-9])|(?<=\s)o(?=\s+[\"“„'‘(\[{_UPPER}0-9]))\s+(?P<text>\S.*)$"
)
NUMBERED = re.compile(
    r"^(?P<number>\d{1,3}(?:\.\d{1,3})+[a-z]?|\d{1,3}[a-z]?(?=[.)]))[.)]?\s+(?P<text>\S.*)$"
)
# Markdown
ATX = re.compile(r"^ {0,3}(?P<hashes>#{1,6})(?:\s+(?P<text>.*?))?\s*#*\s*$")
SETEXT = re.compile(r"^ {0,3}(?P<char>=+|-+)\s*$")
MD_LIST = re.compile(
    r"^(?P<indent>\s*)(?:(?P<mark>[-*+])|(?P<number>\d{1,3})[.)])\s+(?P<text>\S.*)$"
)
MD_FENCE = re.compile(r"^\s*(```|~~~)")
MD_RULE = re.compile(r"^ {0,3}(?:(?:\*\s*){3,}|(?:-\s*){3,}|(?:_\s*){3,})$")
MD_BOLD_LINE = re.compile(r"^(?:\*\*|__)(?P<text>[^*_].*?)(?:\*\*|__):?$")
MD_COMMENT = re.compile(r"^\s*<!--.*-->\s*$")
RULE_LINE = re.compile(r"^[-=_*~·•.\s]{3,}$")  # a separator line of dashes, rules or dots


def _alternation(key: str) -> str:
    words = sorted({w for words in MARKERS.values() for w in words[key]}, key=len, reverse=True)
    return "|".join(re.escape(w) for w in words)


_MD_WRAP = r"[*_]{0,2}"
QUESTION_PREFIX = re.compile(
    rf"^{_MD_WRAP}(?:{_alternation('question')})(?:(?:\s?\d{{1,3}})?{_MD_WRAP}\s?:|\s?\d{{1,3}}{_MD_WRAP}\s?[.)])"
    rf"{_MD_WRAP}\s+(?P<text>\S.*)$",
    re.IGNORECASE,
)
ANSWER_PREFIX = re.compile(
    rf"^{_MD_WRAP}(?:{_alternation('answer')}){_MD_WRAP}\s?:{_MD_WRAP}\s+(?P<text>\S.*)$",
    re.IGNORECASE,
)
INLINE_ANSWER = re.compile(
    rf"(?<=\?)\s+{_MD_WRAP}(?:{_alternation('answer')}){_MD_WRAP}\s?:{_MD_WRAP}\s+", re.IGNORECASE
)
_SINGLE_LETTER = re.compile(rf"^[{_UPPER}](?:\s*[-–]\s*[{_UPPER}])?$")
TWO_SENTENCES = re.compile(rf"[.!?]\s+[{_UPPER}]")


def ends_sentence(text: str) -> bool:
    stripped = text.rstrip().rstrip(CLOSERS)
    return bool(stripped) and stripped[-1] in TERMINAL



# -- Section headings ---------------------------------------------------------------------

SECTION_PHRASES = {
    kind: {w for words in MARKERS.values() for w in words[kind]} for kind in SECTION_KINDS
}
_SECTION_WORDS = {
    kind: {w for w in SECTION_PHRASES[kind] if " " not in w}
    for kind in ("errata", "clarifications")
}
_SECTION_JOINERS = re.compile(r"\s+(?:and|&|und|i|oraz|en|et|y|/)\s+|\s*[/,]\s*")


def section_kind(title: str) -> str:
    """ "errata", "clarifications", "questions" or "contents" for a section heading, else ""."""
    text = re.sub(r"^\d+(?:\.\d+)*[.)]?\s+", "", title.strip())
    text = normalise_title(text.rstrip(":").strip("*_# "))
    if not text or text.endswith("?") or len(text) > 60:
        return ""
    for kind in SECTION_KINDS:
        if text in SECTION_PHRASES[kind]:
            return kind
    parts = [part for part in _SECTION_JOINERS.split(text) if part]
    if len(parts) >= 2:
        kinds = [
            next((k for k in SECTION_KINDS if part in SECTION_PHRASES[k]), "") for part in parts
        ]
        if all(kinds):
            return next(k for k in SECTION_KINDS if k in kinds)
    words = re.findall(r"[^\W\d_]+", text)
    if len(words) <= 4:
        for kind in ("errata", "clarifications"):
            if any(word in _SECTION_WORDS[kind] for word in words):
                return kind
    return ""


_DOCUMENT_WORDS = {
    w
    for kind in ("errata", "clarifications", "questions")
    for w in SECTION_PHRASES[kind]
    if " " not in w and len(w) > 3 or w == "faq"
}


def names_a_faq(title: str) -> bool:
    """A title like "Kosmiczna Flota – FAQ i errata": it names the document, not a ruling."""
    return any(word in _DOCUMENT_WORDS for word in re.findall(r"[^\W\d_]+", title.casefold()))

def is_number_prefix(parent: str, child: str) -> bool:
    """ "601" → "601.2" → "601.2a"; "2" → "2.3"; "1.2" → "1.2.3"; and "6" → "601" (a
    chapter's three-digit rules, as in comprehensive rules)."""
    return bool(parent) and parent in number_ancestors(child)


def number_ancestors(number: str) -> list[str]:
    """The numbers a rule number stands under, nearest first: 601.2a → [601.2, 601, 6]."""
    out = []
    current = number
    while current:
        if current[-1:].isalpha():
            current = current.rstrip("abcdefghijklmnopqrstuvwxyz")
        elif "." in current:
            current = current.rsplit(".", 1)[0]
        elif current.isdigit() and len(current) == 3:
            current = current[0]  # "601" is in chapter "6"
        else:
            break
        if current:
            out.append(current)
    return out


def is_next_sibling(number: str, following: str) -> bool:
    """ "1" → "2", "2.3" → "2.4", "601.2a" → "601.2b": the next item of the same list."""
    if (
        following.count(".") != number.count(".")
        or following[-1:].isalpha() != number[-1:].isalpha()
    ):
        return False
    up, following_up = number_ancestors(number)[:1], number_ancestors(following)[:1]
    if up != following_up:
        return False
    if number.isdigit() and following.isdigit():
        return 0 < int(following) - int(number) <= 2
    return following != number



def is_index_letter(text: str) -> bool:
    """An alphabet divider of a glossary: "A", "B", "C–D" on a line of its own."""
    return _SINGLE_LETTER.match(text.strip()) is not None

