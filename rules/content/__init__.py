"""The content model: models, querysets, the content version, the change journal,
history, and the read-side shapes of stored data."""
