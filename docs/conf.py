"""Sphinx configuration of rulesite's manual (``make docs``; CI builds it with warnings
as errors). The pages are Markdown (MyST), like the README they were split from."""

project = "rulesite"
author = "the rulesite team"
copyright = "2026, the rulesite team"

extensions = ["myst_parser"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]
myst_heading_anchors = 3  # "## Settings" is linkable as #settings

html_theme = "furo"  # system fonts, no CDN: the manual works offline too
html_title = "rulesite manual"
html_static_path: list[str] = []
