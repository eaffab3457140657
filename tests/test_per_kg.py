"""kg.per_kg.PerKG: one object per knowledge graph for the process, made once (also under threads), gone with the KG."""

from __future__ import annotations

import gc
import threading
import weakref

from kg_agent.kg import kg_from_triples
from kg_agent.kg.per_kg import PerKG


def test_one_object_per_kg_made_on_first_use_with_its_arguments():
    made = []
    per_kg = PerKG(lambda kg, *args: made.append((kg, args)) or len(made))
    first, second = kg_from_triples([("a", "r", "b")]), kg_from_triples([("c", "r", "d")])
    assert per_kg.get(first, "x") == 1
    assert per_kg.get(first, "y") == 1  # later arguments are not used
    assert per_kg.get(second) == 2
    assert made == [(first, ("x",)), (second, ())]


def test_threads_asking_at_once_get_the_one_object():
    per_kg = PerKG(lambda kg: object())
    kg = kg_from_triples([("a", "r", "b")])
    start = threading.Barrier(8)
    found = []

    def ask():
        start.wait()
        found.append(per_kg.get(kg))

    threads = [threading.Thread(target=ask) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert len({id(item) for item in found}) == 1


def test_the_object_goes_with_its_kg():
    class Made:
        pass

    per_kg = PerKG(lambda kg: Made())
    kg = kg_from_triples([("a", "r", "b")])
    held = weakref.ref(per_kg.get(kg))
    del kg
    gc.collect()
    assert held() is None
