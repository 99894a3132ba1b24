"""The importer's modules depend on each other one way, in the order a document goes.

Read from the source (every import, at the top of a module or inside a function): a
module may import the shared modules and the stages before its own, never a later one,
so there is no import circle and no back-and-forth between stages. The order and the
reasons are in the manual ("DESIGN notes: the importer").
"""

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "rules" / "importing"

# Each module's place: it may import modules of a lower number, and of its own number
# only where the list says so (a package's own steps, in order).
ORDER = {
    # shared by every stage; they import none of the importer
    "errors": 0,
    "report": 0,
    "options": 0,
    "vocabulary": 0,
    "crossrefs": 0,  # the cross-reference phrases and label grammar of every language
    "identity": 0,  # which stored numbered rule a new version's rule is (pure)
    "titles": 0,  # the pattern numbered rules without a title of their own are titled by (pure)
    # the stages
    "pdf": 1,
    "reading": 2,
    "ligatures": 3,
    "cleaning": 4,
    "structure.markers": 5,
    "structure.wraps": 6,
    "structure.blocks": 7,
    "structure.outline": 8,
    "structure": 9,
    "splitting": 10,
    "rows": 11,  # the one row writer
    "releases": 11,  # a new version's change list, and the release that keeps it
    "canonical.format": 12,  # the JSON front end, which ends in the same row writer
    "canonical.export": 13,
    "canonical.validation": 13,
    "canonical.writing": 14,
    "canonical": 15,
    "writing": 12,
    "upcoming": 15,  # an upcoming release: kept now, imported (by the pipeline) on its day
    "pipeline": 16,
    "manifest": 17,
    "due": 17,  # upcoming releases whose day has come, imported through the pipeline
    "": 18,  # rules.importing itself
}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def imported(path: Path) -> set[str]:
    """The importer's modules that ``path`` imports, by their names in ORDER."""
    name = module_name(path)
    parts = name.split(".") if name else []
    package = parts if path.name == "__init__.py" else parts[:-1]
    found = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = (
                    package[: len(package) - (node.level - 1)] if node.level > 1 else list(package)
                )
                if node.level - 1 > len(package):
                    continue  # above rules.importing: rules' own modules
                target = [*base, *(node.module.split(".") if node.module else [])]
            elif node.module and node.module.startswith("rules.importing"):
                target = node.module.split(".")[2:]
            else:
                continue
            for alias in node.names:
                candidate = ".".join([*target, alias.name])
                found.add(candidate if candidate in ORDER else ".".join(target))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                if alias.name.startswith("rules.importing."):
                    found.add(alias.name.removeprefix("rules.importing."))
    found.discard(name)
    return found


def test_every_module_has_a_place_in_the_order():
    modules = {module_name(path) for path in PACKAGE.rglob("*.py")}
    assert modules == set(ORDER)


def test_no_module_imports_a_later_stage():
    backwards = []
    for path in sorted(PACKAGE.rglob("*.py")):
        name = module_name(path)
        for target in sorted(imported(path)):
            assert target in ORDER, f"{name} imports {target!r}, which is not an importer module"
            if ORDER[target] >= ORDER[name]:
                backwards.append(f"{name} ({ORDER[name]}) imports {target} ({ORDER[target]})")
    assert backwards == []


def test_rules_models_and_querysets_never_import_faq():
    for name in ("models.py", "querysets.py"):
        tree = ast.parse((ROOT / "rules" / "content" / name).read_text(encoding="utf-8"))
        modules = [
            alias.name
            for node in ast.walk(tree)
            if isinstance(node, ast.Import)
            for alias in node.names
        ] + [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
        assert not [module for module in modules if module == "faq" or module.startswith("faq.")], (
            name
        )
