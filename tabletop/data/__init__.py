"""Data shipped with tabletop (bundled game records)."""
