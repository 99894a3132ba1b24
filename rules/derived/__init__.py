"""Derived data: the pipeline and one module per derived column, brought up to date after every unit of work."""
