"""Bundled game records, one per game: ``<game>.jsonl`` (see docs/formats.md)."""
