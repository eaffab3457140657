"""The offline ToG / ToG-I beam and its starts: every topic entity's relations are scored at the first depth before
the beam keeps its top W, and the relation look ahead never walks back to the chain's start.

Fixture: ``tests/fixtures/canal_boats`` (an invented canal's narrowboats and boatyards; see its README).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from kg_agent.graphs import create_tog_graph, create_tog_i_graph
from kg_agent.kg import load_kg
from kg_agent.tools.tog.prune_relations import DEFAULT_IGNORED_RELATIONS, relation_walks

BOATS = Path(__file__).parent / "fixtures" / "canal_boats" / "boats.ttl"
C = "http://example.org/canal/"


@pytest.fixture(scope="module")
def kg():
    return load_kg(BOATS)


def answers(result: dict) -> list[str]:
    return [a["answer"] for a in result["answers"]]


def test_tog_i_scores_every_start_before_its_one_chain_beam(kg):
    """ToG-I's first round keeps one chain (W = 1). "Kingfisher" is a boat and a boatyard; given the boat first, the
    beam used to explore the boat alone (cut by order before any relation was scored) and answered its builder's
    owner. Every start's relations are scored at the first depth and the best pair is kept: the yard's ``owner``."""
    question = {"question": "Who owns Kingfisher?", "topic_entities": [C + "Kingfisher_boat", C + "Kingfisher"]}
    result = create_tog_i_graph(kg).compile().invoke(question)
    assert answers(result) == ["Ida Crane"]
    assert result["width"] == 1
    assert not any("chains in the frontier" in w for w in result["warnings"])


def test_tog_scores_every_start_too(kg):
    result = create_tog_graph(kg, width=1).compile().invoke(
        {"question": "Who owns Kingfisher?", "topic_entities": [C + "Kingfisher_boat", C + "Kingfisher"]})
    assert answers(result) == ["Ida Crane"]


def test_a_deeper_frontier_is_still_cut_to_the_beam_width(kg):
    """Past the first depth the frontier is the entity pruner's top W already; a wider one (a caller's state) is cut
    as before, with its warning."""
    from kg_agent.tools.tog.deciders import default_deciders
    from kg_agent.tools.tog.prune_entities import new_chain
    from kg_agent.tools.tog.prune_relations import plan_relation_scoring

    starts = [{"id": C + "Otter", "label": "Otter"}, {"id": C + "Grebe", "label": "Grebe"}]
    chains = []
    for start in starts:
        chain = new_chain(start)
        chain["steps"] = [{"head": start, "relation": "builder", "tail": {"id": C + "Millbrook_Yard", "label": "Millbrook Yard"}}]
        chains.append(chain)
    pruner = default_deciders(kg).relation_pruner
    state = {"question": "Who owns the yard that built Otter?", "frontier": chains, "topic_entities": starts}
    scoring = plan_relation_scoring(state, kg=kg, pruner=pruner, width=1, ignored_relations=DEFAULT_IGNORED_RELATIONS)
    assert len(scoring.frontier) == 1 and any("chains in the frontier" in str(w) for w in scoring.warnings)
    state["frontier"] = [new_chain(start) for start in starts]
    scoring = plan_relation_scoring(state, kg=kg, pruner=pruner, width=1, ignored_relations=DEFAULT_IGNORED_RELATIONS)
    assert len(scoring.frontier) == 2 and len(scoring.chosen) == 2


def test_the_look_ahead_never_walks_back_to_the_chain_start(kg):
    """Millbrook Yard repaired Vole, a boat it built: from the yard, ``^repairer`` then ``builder`` comes back to the
    yard and answers nothing a question about the yard asks; the look ahead from Vole does not offer ``builder``
    when the chain started at the yard (other boats' builders still lead elsewhere), though a longer walk may pass
    through the yard and go on (its owner)."""
    walk = {"sample": 30, "ignored_relations": DEFAULT_IGNORED_RELATIONS, "max_paths": 100,
            "reached_over": "^repairer", "came_from": C + "Millbrook_Yard"}
    assert ("builder",) in relation_walks(kg, [C + "Vole"], 1, **walk)
    assert ("builder",) not in relation_walks(kg, [C + "Vole"], 1, start=C + "Millbrook_Yard", **walk)
    assert ("builder", "owner") in relation_walks(kg, [C + "Vole"], 2, start=C + "Millbrook_Yard", **walk)
    # past the start's own facts the walk goes on: from Otter (built at the yard, repaired by Tom Wren)
    assert ("repairer",) in relation_walks(kg, [C + "Otter"], 1, start=C + "Millbrook_Yard",
                                           **{**walk, "reached_over": "^builder"})


def test_the_pruner_scores_a_relation_without_its_way_back_to_the_start(kg):
    """:meth:`SimilarityRelationPruner.path_scores` at the first depth passes the chain's start to the look ahead:
    ``^repairer`` from the yard is not scored by ``^repairer, builder``, which ends back at the yard. (The question
    is worded so that the way back reads it best; its own answer, the yard itself, is one the verifier refuses too: a
    chain ending at its start answers nothing.)"""
    from kg_agent.kg.types import Entity
    from kg_agent.tools.tog.deciders import BEAM_LOOKAHEAD
    from kg_agent.tools.tog.prune_relations import SimilarityRelationPruner

    pruner = SimilarityRelationPruner(kg=kg, lookahead=BEAM_LOOKAHEAD, max_hops=3)
    yard = Entity(C + "Millbrook_Yard", "Millbrook Yard")
    question = "Which yard built the boats [ENT] repaired?"
    alone, back = pruner.scorer.score(question, [("^repairer",), ("^repairer", "builder")], kg=kg)
    [scored] = pruner.path_scores(question, yard, (), ["^repairer"])
    assert back > alone  # the way back reads the question best: exactly what the look ahead must not take
    assert scored < back  # scored by its other completions (they may pass through the yard and go on), not that one
