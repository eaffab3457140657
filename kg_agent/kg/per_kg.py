"""One object per knowledge graph for the whole process (what a KG's relations' objects are, its class names, its
relations' sides), made on first use and kept as long as the KG is."""

from __future__ import annotations

import threading
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

if TYPE_CHECKING:
    from kg_agent.kg.graph import KnowledgeGraph

T = TypeVar("T")


class PerKG(Generic[T]):
    """``get(kg, *args)``: the object ``make(kg, *args)`` made for ``kg`` on the first call (later calls' ``args`` are
    not used), kept in a weak mapping so that it goes with the KG; thread-safe: one object per KG."""

    def __init__(self, make: Callable[..., T]) -> None:
        self._make = make
        self._by_kg: weakref.WeakKeyDictionary[KnowledgeGraph, T] = weakref.WeakKeyDictionary()
        self._lock = threading.Lock()

    def get(self, kg: KnowledgeGraph, *args: Any) -> T:
        with self._lock:
            found = self._by_kg.get(kg)
            if found is None:
                found = self._by_kg[kg] = self._make(kg, *args)
            return found
