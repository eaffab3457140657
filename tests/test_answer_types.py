"""Answer-type cues: the question's wh-word or type noun against what a relation's objects are in the KG."""

from __future__ import annotations

import socket

import pytest

from kg_agent.graphs import create_tog_graph
from kg_agent.kg import build_oxigraph, kg_from_triples, open_kg, open_oxigraph, open_sparql
from kg_agent.kg.sparql import sparql_iri
from kg_agent.kg.stores.base import SAMPLE_SCAN, sampled_ends
from kg_agent.kg.terms import node_key
from kg_agent.kg.types import is_inverse
from kg_agent.tools.rog.plan import SimilarityPlanner
from kg_agent.tools.shared.answer_types import AskedType, ObjectKinds, RelationObjectKinds, relation_object_kinds
from kg_agent.tools.shared.path_scoring import RelationPathScorer
from kg_agent.tools.shared.question_parts import NO_RELATION_WORDS, QuestionParts
from kg_agent.tools.tog.prune_relations import SimilarityRelationPruner
from kg_agent.tools.tog.verify import ScoreVerifier
from tests.sparql_server import SparqlServer, store_from_graph

# A company/people/places KG of the generated one's shape: the relation names say nothing of "study" or "country".
COMPANY_TRIPLES = [
    ("Vrouzior Networks", "headquartered_in", "Brakton"),
    ("Vrouzior Networks", "founded_in", "1987"),
    ("Vrouzior Networks", "in_industry", "Software"),
    ("Orla Pennick", "ceo_of", "Vrouzior Networks"),
    ("Vrouzior Networks", "founded_by", "Orla Pennick"),
    ("Vrouzior Networks", "founded_by", "Bram Ostlund"),
    ("Orla Pennick", "born_in", "Vashmere"),
    ("Orla Pennick", "educated_at", "University of Kell"),
    ("Bram Ostlund", "born_in", "Brakton"),
    ("Bram Ostlund", "educated_at", "Dorn Institute of Technology"),
    ("Bram Ostlund", "works_for", "Kripidou Labs"),
    ("Kripidou Labs", "headquartered_in", "Vashmere"),
    ("Kripidou Labs", "founded_in", "2004"),
    ("University of Kell", "campus_in", "Brakton"),
    ("Dorn Institute of Technology", "campus_in", "Vashmere"),
    ("Brakton", "located_in", "Zentland"),
    ("Vashmere", "located_in", "Kivstan"),
]
# A MetaQA-shaped film: the question "what kind of film is [X]" names no relation.
FILM_TRIPLES = [
    ("The Quiet Harbour", "directed_by", "Orla Pennick"),
    ("The Quiet Harbour", "starred_actors", "Bram Ostlund"),
    ("The Quiet Harbour", "release_year", "1987"),
    ("The Quiet Harbour", "has_genre", "Drama"),
    ("The Quiet Harbour", "has_tags", "harbour"),
    ("The Quiet Harbour", "has_tags", "bd-r"),
    ("The Quiet Harbour", "in_language", "English"),
    ("Northern Lights", "has_genre", "Drama"),
    ("Northern Lights", "has_tags", "winter"),
    ("Orla Pennick", "born_in", "Vashmere"),
    ("Orla Pennick", "birth_year", "1950"),
    ("Vashmere", "located_in", "Kivstan"),
]


@pytest.fixture(scope="module")
def company_kg():
    return kg_from_triples(COMPANY_TRIPLES, name="companies")


@pytest.fixture(scope="module")
def film_kg():
    return kg_from_triples(FILM_TRIPLES, name="films")


@pytest.fixture(scope="module")
def company_endpoint(company_kg):
    """The company KG behind a real SPARQL endpoint (pyoxigraph over HTTP)."""
    with SparqlServer(store_from_graph(company_kg.graph)) as server:
        yield server


def every_relation(kg) -> list[str]:
    names = kg.relation_names()
    return names + [f"^{name}" for name in names]


def sampled_one_by_one(kg, relation: str, sample: int = 8) -> list[str]:
    """A relation's sampled objects as one query per relation asks for them (what the profile read before it
    was batched): the distinct ends of its first ``SAMPLE_SCAN`` triples, sampled by ``sampled_ends``."""
    target = "?s" if is_inverse(relation) else "?o"
    query = (f"SELECT DISTINCT {target} WHERE {{ {{ SELECT * WHERE {{ ?s {sparql_iri(kg.relation_iri(relation))} ?o }} "
             f"LIMIT {SAMPLE_SCAN} }} }}")
    return sampled_ends([node_key(row[0]) for row in kg.query(query)], sample)


def top_plan(kg, question: str, topic: str) -> tuple[str, ...]:
    return SimilarityPlanner(kg).plan(question, kg.find_entities(topic)).plans[0].relations


@pytest.mark.parametrize(("question", "kind", "noun"), [
    ("where did the ceo of [ent] study", "place", ""),
    ("in which country is [ent] headquartered", "place", "country"),
    ("when was the director of [ent] born", "time", ""),
    ("what year was [ent] founded", "time", "year"),
    ("who acted in [ent]", "person", ""),
    ("what kind of film is [ent]", "", "kind"),
    ("what is [ent] about", "", ""),
    ("how many films did [ent] direct", "", "films"),  # the noun counted is what the answers are
    ("how many did [ent] direct", "", ""),
])
def test_the_question_says_what_kind_of_answer_it_asks_for(question, kind, noun):
    asked = QuestionParts.of(question).asked
    assert (asked.kind, asked.noun) == (kind, noun)


def test_a_type_noun_is_named_by_the_relation_whose_objects_it_describes():
    assert AskedType(noun="industries").named_by("in_industry")
    assert AskedType(noun="kind").named_by("has_genre")  # a generic English family of category words
    assert AskedType(noun="words").named_by("has_tags")
    assert not AskedType(noun="kind").named_by("common.topic.notable_types")  # schema bookkeeping, not a kind asked
    assert not AskedType(noun="industries").named_by("^in_industry")  # walked back: its objects are companies
    assert AskedType(noun="films").named_by("^film.film.directed_by")  # a dotted name's domain
    assert AskedType.of(("what", "is", "[ent]"), NO_RELATION_WORDS) == AskedType()


def test_what_a_relations_objects_are_is_read_from_the_graph(company_kg):
    kinds = RelationObjectKinds(company_kg)
    born, country, year, person = (kinds.kinds(r) for r in ("born_in", "located_in", "founded_in", "^ceo_of"))
    assert born.place == 1.0 and born.contained == 1.0  # cities are located in a country
    assert country.place == 1.0 and country.contained == 0.0
    assert year.time == 1.0 and year.place == 0.0  # years are "founded in" but look like years
    assert person.person == 1.0 and person.place == 0.0
    assert kinds.kinds("educated_at").place == 1.0  # universities: educated *at*, with a campus *in* a city
    assert kinds.kinds("no_such_relation").sampled == 0  # nothing to read: no cue, no error
    assert relation_object_kinds(company_kg) is relation_object_kinds(company_kg)  # cached per KG


def test_the_same_kinds_come_from_an_oxigraph_store(company_kg, tmp_path):
    source = tmp_path / "companies.txt"
    source.write_text("".join(f"{h}|{r}|{t}\n" for h, r, t in COMPANY_TRIPLES), encoding="utf-8")
    with open_oxigraph(build_oxigraph(source, tmp_path / "store")) as stored:
        for relation in ("born_in", "located_in", "founded_in", "^ceo_of", "educated_at"):
            assert RelationObjectKinds(stored).kinds(relation) == RelationObjectKinds(company_kg).kinds(relation), relation


@pytest.mark.parametrize(("question", "topic", "gold", "without_types"), [
    # the question names ceo_of; "where" asks for a place, which the CEO is not and the university is
    ("where did the CEO of [Vrouzior Networks] study", "Vrouzior Networks", ("^ceo_of", "educated_at"), ("^ceo_of",)),
    # "which country": the city it is headquartered in is a place inside another place; the country is not
    ("in which country is [Vrouzior Networks] headquartered", "Vrouzior Networks", ("headquartered_in", "located_in"),
     ("headquartered_in",)),
])
def test_the_answer_type_picks_the_hop_no_word_of_the_question_names(company_kg, question, topic, gold, without_types):
    assert top_plan(company_kg, question, topic) == gold
    masked = question.replace(f"[{topic}]", "[ENT]")
    scorer = RelationPathScorer()
    with_kg = scorer.score(masked, [gold, without_types], kg=company_kg)
    without_kg = scorer.score(masked, [gold, without_types])
    assert with_kg[0] > with_kg[1]
    assert without_kg[0] < without_kg[1]  # the wording alone prefers the shorter path


@pytest.mark.parametrize(("question", "gold"), [
    ("what kind of film is [The Quiet Harbour]", ("has_genre",)),
    ("what words describe [The Quiet Harbour]", ("has_tags",)),
    ("when was the director of [The Quiet Harbour] born", ("directed_by", "birth_year")),
    ("which country was the director of [The Quiet Harbour] born in", ("directed_by", "born_in", "located_in")),
])
def test_film_questions_whose_words_name_no_relation(film_kg, question, gold):
    assert top_plan(film_kg, question, "The Quiet Harbour") == gold


def test_a_path_that_walks_past_the_asked_type_loses(company_kg):
    scorer = RelationPathScorer()
    ends, walks_on = scorer.score("what industries are the companies founded by [ENT] in",
                                  [("^founded_by", "in_industry"), ("^founded_by", "in_industry", "^in_industry")],
                                  kg=company_kg)
    assert ends > walks_on


def test_offline_tog_goes_on_to_the_university(company_kg):
    """The offline ToG pruner and verifier read the types too: the CEO is no answer to "where"."""
    pruner = SimilarityRelationPruner(kg=company_kg)
    verifier = ScoreVerifier(company_kg, scorer=pruner.scorer)
    [company] = company_kg.find_entities("Vrouzior Networks")
    result = create_tog_graph(company_kg, relation_pruner=pruner, verifier=verifier).compile().invoke(
        {"question": "where did the CEO of [Vrouzior Networks] study", "topic_entities": [company.id]})
    assert [a["answer"] for a in result["answers"]][0] == "University of Kell"


def test_one_query_samples_the_objects_of_many_relations_as_one_query_each_did(company_kg, tmp_path):
    """The batched sample (a UNION of LIMIT-ed sub-selects) picks the very objects a query per relation picks,
    in memory and in Oxigraph, on a KG whose relations have more objects than the sample; and both pick the same,
    although memory reads the file's order and the store its indexes'."""
    sample = open_kg()
    source = tmp_path / "sample.nt"
    source.write_bytes(sample.graph.serialize(format="nt", encoding="utf-8"))
    samples = []
    with open_oxigraph(build_oxigraph(source, tmp_path / "store")) as stored:
        for kg in (sample, stored):
            relations = every_relation(kg)
            batched = kg.sample_ends([*relations, "no_such_relation"], 8)
            assert batched == {**{r: sampled_one_by_one(kg, r) for r in relations}, "no_such_relation": []}
            assert all(batched[r] for r in relations)
            chunked = kg.sample_ends(relations, 8, per_query=3)
            assert chunked == {r: batched[r] for r in relations}
            samples.append(batched)
    assert samples[0] == samples[1]


def test_a_cold_endpoint_client_profiles_every_relation_in_two_requests(company_kg, company_endpoint):
    relations = every_relation(company_kg)
    want = {r: RelationObjectKinds(company_kg).kinds(r) for r in relations}  # every object sampled: no engine order
    assert any(kinds.place for kinds in want.values()) and any(kinds.person for kinds in want.values())
    remote = open_sparql(company_endpoint.url)
    remote.relation_names()  # a question has listed them (the first layer of candidate paths) before it scores
    before = remote.request_count()
    kinds = RelationObjectKinds(remote)
    assert kinds.kinds_of(relations) == want
    assert remote.request_count() - before == 2  # the objects of all, then the relations and labels at them
    assert kinds.kinds_of(reversed(relations)) == want and kinds.kinds("born_in") == want["born_in"]
    assert remote.request_count() - before == 2  # kept
    chunked = open_sparql(company_endpoint.url)
    chunked.relation_names()
    before = chunked.request_count()
    assert RelationObjectKinds(chunked, relations_per_query=5).kinds_of(relations) == want
    assert chunked.request_count() - before == -(-len(relations) // 5) + 1


def test_the_profile_is_kept_in_the_endpoints_persistent_cache(company_kg, company_endpoint, tmp_path):
    relations = every_relation(company_kg)
    with open_sparql(company_endpoint.url, cache_path=tmp_path / "cache.sqlite") as first:
        want = RelationObjectKinds(first).kinds_of(relations)
    with open_sparql(company_endpoint.url, cache_path=tmp_path / "cache.sqlite") as again:
        assert RelationObjectKinds(again).kinds_of(relations) == want
        assert again.request_count() == 0


def test_a_dead_endpoint_gives_no_cue_and_is_asked_again():
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again below: nothing listens there
    remote = open_sparql(f"http://127.0.0.1:{port}/sparql", timeout=2)
    kinds = RelationObjectKinds(remote)
    assert kinds.kinds_of(["born_in", "^ceo_of"]) == {"born_in": ObjectKinds(), "^ceo_of": ObjectKinds()}
    sent = remote.request_count()
    assert sent >= 1 and kinds.kinds("born_in") == ObjectKinds() and remote.request_count() > sent  # not kept


def test_the_scorer_profiles_all_last_hops_of_a_scoring_call_at_once(company_kg, company_endpoint):
    paths = [(r,) for r in every_relation(company_kg)] + [("^ceo_of", "educated_at"), ("^ceo_of", "born_in")]
    question = "where did the ceo of [ENT] study"
    remote = open_sparql(company_endpoint.url)
    remote.relation_names()
    before = remote.request_count()
    scorer = RelationPathScorer()
    assert scorer.score(question, paths, kg=remote) == scorer.score(question, paths, kg=company_kg)
    assert remote.request_count() - before == 2
