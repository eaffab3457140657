"""A block during which Python's cyclic garbage collector does not run (:func:`collector_paused`), for the load's
index pass and label file.

The pass over a KG file allocates a short-lived list per line (``bytes.split``) and keeps hundreds of thousands of
tuples (the held sample lines, the name literals before they are spilled): every few hundred allocations the
collector runs, and each of its full collections walks every tuple kept so far, finding nothing to free (what the
pass makes holds no reference cycle; reference counting frees it). At 2M triples those walks were ~0.4 of the
foreground's ~7.5 CPU-s. The collector is restored as it was when the block ends, however it ends; what the
block made is collected as before afterwards. Nothing here depends on the KG: it is the cost of Python's
collector over any long allocation-heavy pass.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def collector_paused() -> Iterator[None]:
    """Run the block with the garbage collector disabled, then enable it again if it was enabled before."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()
