"""Shared test machinery: fixtures' data, planted bugs used by more than one test module, statistical helpers."""
from pathlib import Path

#: The committed test data (``tests/data``).
DATA_DIR = Path(__file__).resolve().parent.parent / "data"
