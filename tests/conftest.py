"""Shared test set-up."""

from __future__ import annotations

import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Import the package from this checkout even when it is not pip-installed.
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))
