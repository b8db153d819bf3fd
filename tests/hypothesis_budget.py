"""How many examples a property test tries.

Every run (CI included) tries a quarter of a test's full count: the same properties, the
same strategies, each still able to fail on the first example that breaks it. The full
counts, for a deep search before a release or after changing what a property covers::

    HYPOTHESIS_PROFILE=deep python -m pytest -q -n auto

(Hypothesis keeps the examples that failed in ``.hypothesis/`` and tries them first next
time, whichever budget finds them.)
"""

from __future__ import annotations

import os

#: The full counts are tried (``HYPOTHESIS_PROFILE=deep``).
DEEP = os.environ.get("HYPOTHESIS_PROFILE", "").strip().lower() == "deep"

#: The share of the full count an ordinary run tries.
SHARE = 4

#: No property is tried on fewer examples than this in an ordinary run.
FLOOR = 10


def examples(full: int) -> int:
    """The examples to try of a test whose full count is ``full``.

    >>> examples(400) == (400 if DEEP else 100), examples(8)
    (True, 8)
    """
    return full if DEEP else max(min(full, FLOOR), -(-full // SHARE))
