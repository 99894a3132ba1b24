"""API v1 for FAQ questions; builds on ``rules.api`` (never the other way round)."""
