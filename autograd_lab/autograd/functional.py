"""Placeholder replaced by the functional layer (issue 4)."""
