"""Lenient parsers against realistic (and malformed) model outputs."""

from __future__ import annotations

import pytest

from kg_agent.llm.parsing import (
    ScoredParse,
    normalize_name,
    parse_answer_list,
    parse_json_object,
    parse_relation_paths,
    parse_scored_items,
    parse_yes_no,
)

GARBAGE = [None, "", "   ", "\n\n", "```\n```", "}{][<><PATH></PATH>", "\x00\x01\x02", "{" * 500, "[" * 500, 42]


# ------------------------------------------------------------------------------------------
# parse_relation_paths
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (
            "<PATH> film.film.directed_by <SEP> people.person.nationality </PATH>",
            [["film.film.directed_by", "people.person.nationality"]],
        ),
        ("<PATH>starred_actors</PATH>", [["starred_actors"]]),
        (
            "<PATH> location.country.languages_spoken </PATH>\n<PATH> location.country.official_language </PATH>",
            [["location.country.languages_spoken"], ["location.country.official_language"]],
        ),
        # numbering, missing closing tag, inverse relation
        (
            "1. <PATH> ^directed_by <SEP> release_year\n2. <PATH> written_by </PATH>",
            [["^directed_by", "release_year"], ["written_by"]],
        ),
        # odd spacing and case in tags
        ("< path >directed_by< sep >has_genre</ PATH >", [["directed_by", "has_genre"]]),
        # arrows inside PATH as fallback
        ("<PATH> directed_by -> release_year </PATH>", [["directed_by", "release_year"]]),
        # prose around, code fence, quotes
        (
            "Sure! Here are the relation paths:\n```\n<PATH> 'people.person.spouse_s' <SEP> \"people.marriage.spouse\" </PATH>\n```\nHope it helps.",
            [["people.person.spouse_s", "people.marriage.spouse"]],
        ),
        # several paths on one line, duplicates removed
        (
            "<PATH> a.b <SEP> c.d </PATH> <PATH> e.f </PATH> <PATH> a.b <SEP> c.d </PATH>",
            [["a.b", "c.d"], ["e.f"]],
        ),
        # no PATH tags at all: relation-name lines with separators
        ("1. directed_by -> release_year\n2. starred_actors <SEP> has_genre", [["directed_by", "release_year"], ["starred_actors", "has_genre"]]),
        # arrows in prose are not relation paths
        ("I think the film -> its director is relevant", []),
        ("I don't know which relations to use.", []),
        ("<PATH></PATH>", []),
        ("<PATH> <SEP> </PATH>", []),
    ],
)
def test_parse_relation_paths(text: str, expected: list[list[str]]) -> None:
    assert parse_relation_paths(text) == expected


#: SmolLM2-135M-Instruct's reply to RoG's planning prompt for "what genre is [Big]" (llama.cpp, temperature 0,
#: cut at 60 tokens): one relation per line, the only form it gave, the last line cut off by the cap.
SMOLLM2_PLAN_REPLY = ("^directed_by\n^has_genre\n^has_tags\n^release_year\n^starred_actors\n^written_by\n"
                      "^directed_by\n^has_genre\n^has_imdb_rating\n^ha")


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        (SMOLLM2_PLAN_REPLY, [["^directed_by"], ["^has_genre"], ["^has_tags"], ["^release_year"], ["^starred_actors"],
                              ["^written_by"], ["^has_imdb_rating"], ["^ha"]]),
        # prose around a numbered list of lone relations; the prose lines are skipped
        ("Here are the relations:\n1. has_genre\n2. **directed_by**\n- `film.film.genre`\nThat is all.",
         [["has_genre"], ["directed_by"], ["film.film.genre"]]),
        # lone relations and arrow paths together
        ("starred_actors\nstarred_actors -> directed_by", [["starred_actors"], ["starred_actors", "directed_by"]]),
        # lone plain words, numbers, abbreviations and sentences are prose, not relations
        ("Sure.\ngenre\n3.5\nMr. Smith\nI think so.", []),
    ],
)
def test_parse_relation_paths_one_relation_per_line(text: str, expected: list[list[str]]) -> None:
    assert parse_relation_paths(text) == expected


def test_rog_plans_from_a_one_relation_per_line_reply(kg) -> None:
    from kg_agent.graphs import create_rog_graph
    from kg_agent.llm import ScriptedChatModel

    model = ScriptedChatModel(["^starred_actors\ndirected_by\nhas_genre", "Comedy"])
    # grounding="off": the model's plans only (under "prefer" the offline top plan would be kept and ranked first)
    result = create_rog_graph(kg, model=model, planner="llm", grounding="off").compile().invoke({"question": "what genre is [Big]"})
    plans = result["plans"]
    # each lone relation is a one-hop plan, in the reply's order (grounded on what Big can walk)
    assert [p["relations"] for p in plans] == [["starred_actors"], ["directed_by"], ["has_genre"]]
    assert {p["source"] for p in plans} == {"llm"}
    assert not any("plan: fell back" in w for w in result["warnings"])


@pytest.mark.parametrize("garbage", GARBAGE)
def test_parse_relation_paths_never_raises(garbage: object) -> None:
    assert parse_relation_paths(garbage) == []  # type: ignore[arg-type]


# ------------------------------------------------------------------------------------------
# parse_answer_list
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('["Jamaican English", "Jamaican Creole English Language"]', ["Jamaican English", "Jamaican Creole English Language"]),
        ("['Tom Hanks', 'Meg Ryan']", ["Tom Hanks", "Meg Ryan"]),
        ("Answer: ['Tom Hanks']", ["Tom Hanks"]),
        ("Based on the reasoning paths, the answer is Tom Hanks.", ["Tom Hanks"]),
        ("The answer is Tom Hanks. He starred in Big (1988).", ["Tom Hanks"]),
        ("Answers: Meg Ryan, Tom Hanks", ["Meg Ryan", "Tom Hanks"]),
        ("The answers are Meg Ryan, Tom Hanks, and Bill Pullman.", ["Meg Ryan", "Tom Hanks", "Bill Pullman"]),
        ("Meg Ryan, Tom Hanks", ["Meg Ryan", "Tom Hanks"]),
        ("Jamaican English\nJamaican Creole English Language", ["Jamaican English", "Jamaican Creole English Language"]),
        ("- Forrest Gump\n- Cast Away\n- forrest gump", ["Forrest Gump", "Cast Away"]),
        ("Here are the possible answers:\n1. Forrest Gump\n2. Big\n3) Splash", ["Forrest Gump", "Big", "Splash"]),
        ("* **Tom Hanks**\n* \"Meg Ryan\".", ["Tom Hanks", "Meg Ryan"]),
        ("Washington, D.C.\nNew York City", ["Washington, D.C.", "New York City"]),
        ("Pride and Prejudice", ["Pride and Prejudice"]),
        ("{Yes}. The answer is {Forrest Gump}.", ["Forrest Gump"]),
        ('```json\n{"answers": ["Big", "Splash"]}\n```', ["Big", "Splash"]),
        ('{"answer": "Big"}', ["Big"]),
        ("[1994, 1995]", ["1994", "1995"]),
        ("The answer is: 1994", ["1994"]),
        ("[Tom Hanks, Meg Ryan]", ["Tom Hanks", "Meg Ryan"]),
        ("Tom Hanks", ["Tom Hanks"]),
        ("Tom Hanks.", ["Tom Hanks"]),
        ("I don't know.", []),
        ("I'm not sure, there is not enough information in the paths.", []),
        ("None", []),
        ("N/A", []),
        ("[]", []),
        ('["None"]', []),
        ("", []),
    ],
)
def test_parse_answer_list(text: str, expected: list[str]) -> None:
    assert parse_answer_list(text) == expected


@pytest.mark.parametrize("garbage", GARBAGE)
def test_parse_answer_list_never_raises(garbage: object) -> None:
    result = parse_answer_list(garbage)  # type: ignore[arg-type]
    assert isinstance(result, list)
    assert all(isinstance(item, str) and item for item in result)


# ------------------------------------------------------------------------------------------
# parse_scored_items
# ------------------------------------------------------------------------------------------

RELATIONS = ["film.film.directed_by", "film.film.starring", "film.film.release_date", "^film.director.film"]
METAQA = ["directed_by", "starred_actors", "release_year", "^starred_actors", "has_genre"]


def _scores(result: ScoredParse) -> dict[str, float]:
    return {name: round(score, 6) for name, score in result.items}


def test_tog_relation_format_with_reasons() -> None:
    text = (
        "1. {film.film.directed_by (Score: 0.5)}: This relation tells who directed the film.\n"
        "2. {film.film.starring (Score: 0.3)}: The cast may include the director.\n"
        "3. {film.film.release_date (Score: 0.2)}: Less relevant."
    )
    result = parse_scored_items(text, RELATIONS)
    assert result.items == [("film.film.directed_by", 0.5), ("film.film.starring", 0.3), ("film.film.release_date", 0.2)]
    assert not result.renormalized and not result.scores_missing and result.unknown == []


def test_tog_entity_format_on_one_line_and_renormalized() -> None:
    result = parse_scored_items("{Tom Hanks (Score: 0.4)}, {Meg Ryan (Score: 0.4)}", ["Tom Hanks", "Meg Ryan", "Big"])
    assert _scores(result) == {"Tom Hanks": 0.5, "Meg Ryan": 0.5}
    assert result.renormalized and result.normalized


def test_bullets_with_colon_scores_and_normalized_names() -> None:
    text = "- Starred Actors: 0.3\n- directed-by: 0.7\n"
    assert _scores(parse_scored_items(text, METAQA)) == {"starred_actors": 0.3, "directed_by": 0.7}


def test_dash_and_equals_and_percent_and_ratio_scores() -> None:
    text = "directed_by - 0.6\nrelease_year = 20%\nhas_genre (score: 2/10)"
    assert _scores(parse_scored_items(text, METAQA)) == {"directed_by": 0.6, "release_year": 0.2, "has_genre": 0.2}


def test_several_pairs_on_one_line() -> None:
    assert _scores(parse_scored_items("directed_by: 0.8, has_genre: 0.2", METAQA)) == {"directed_by": 0.8, "has_genre": 0.2}


def test_inverse_prefix_matching() -> None:
    # exact "^starred_actors" wins when both directions exist
    result = parse_scored_items("{^starred_actors (Score: 0.6)}\n{starred_actors (Score: 0.4)}", METAQA)
    assert _scores(result) == {"^starred_actors": 0.6, "starred_actors": 0.4}
    # only the inverse exists: the bare name maps to it
    assert parse_scored_items("{film.director.film (Score: 1.0)}", RELATIONS).items == [("^film.director.film", 1.0)]
    # "inverse of X" wording
    assert parse_scored_items("- inverse of starred_actors: 1", METAQA).items == [("^starred_actors", 1.0)]


def test_last_segment_matching_when_unique() -> None:
    assert parse_scored_items("{directed_by (Score: 0.9)}", RELATIONS).items[0][0] == "film.film.directed_by"


def test_unknown_names_are_dropped_and_reported() -> None:
    result = parse_scored_items("{directed_by (Score: 0.5)}\n{film.film.budget (Score: 0.5)}", RELATIONS)
    assert result.items == [("film.film.directed_by", 1.0)]
    assert result.unknown == ["film.film.budget"]
    assert result.renormalized


def test_missing_scores_get_equal_share() -> None:
    result = parse_scored_items("The most relevant relations are:\n- directed_by\n- starred_actors\n", METAQA)
    assert _scores(result) == {"directed_by": 0.5, "starred_actors": 0.5}
    assert result.scores_missing and not result.renormalized


def test_some_scores_missing_share_the_rest() -> None:
    result = parse_scored_items("- directed_by: 0.6\n- has_genre\n- release_year", METAQA)
    assert _scores(result) == {"directed_by": 0.6, "has_genre": 0.2, "release_year": 0.2}
    assert result.scores_missing


def test_json_scores() -> None:
    result = parse_scored_items('```json\n{"directed_by": 3, "has_genre": 1}\n```', METAQA)
    assert _scores(result) == {"directed_by": 0.75, "has_genre": 0.25}
    result = parse_scored_items('{"relations": [{"relation": "directed_by", "score": 0.9}, {"relation": "bogus", "score": 0.1}]}', METAQA)
    assert result.items == [("directed_by", 1.0)] and result.unknown == ["bogus"]


def test_duplicates_keep_first_and_zero_scores() -> None:
    result = parse_scored_items("{directed_by (Score: 0.7)}\n{directed_by (Score: 0.1)}\n{has_genre (Score: 0.3)}", METAQA)
    assert _scores(result) == {"directed_by": 0.7, "has_genre": 0.3}
    zeros = parse_scored_items("{directed_by (Score: 0)}, {has_genre (Score: 0.0)}", METAQA)
    assert _scores(zeros) == {"directed_by": 0.5, "has_genre": 0.5} and zeros.renormalized


def test_iteration_and_dict_conversion() -> None:
    result = parse_scored_items("{directed_by (Score: 1)}", METAQA)
    assert dict(result) == {"directed_by": 1.0} and len(result) == 1 and result.names == ["directed_by"]


@pytest.mark.parametrize("garbage", [*GARBAGE, "Sorry, none of these relations are relevant.", "{ (Score: abc)}"])
def test_parse_scored_items_never_raises(garbage: object) -> None:
    result = parse_scored_items(garbage, METAQA)  # type: ignore[arg-type]
    assert isinstance(result, ScoredParse) and result.items == []


def test_no_candidates() -> None:
    assert parse_scored_items("{directed_by (Score: 1)}", []).items == []


def test_normalize_name() -> None:
    assert normalize_name("**Starred  Actors**") == "starred_actors"
    assert normalize_name("'film.film.directed_by'.") == "film.film.directed_by"


# ------------------------------------------------------------------------------------------
# parse_yes_no
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("{Yes}. The answer is {Forrest Gump}.", (True, "Forrest Gump")),
        ("{Yes}. Based on the given knowledge triplets, the answer is {Tom Hanks}", (True, "Tom Hanks")),
        ("{No}. The triplets do not mention the release year.", (False, None)),
        ("Yes", (True, None)),
        ("yes.", (True, None)),
        ("No.", (False, None)),
        ("{no}", (False, None)),
        ("**Yes**, the information is sufficient. Answer: {Big}", (True, "Big")),
        ("Answer: No", (False, None)),
        ("Based on the triplets, yes, we can answer it.", (True, None)),
        ("It is hard to say yes or no.", (None, None)),
        ("The knowledge is insufficient.", (None, None)),
        ("{Forrest Gump}", (None, "Forrest Gump")),
        ("", (None, None)),
    ],
)
def test_parse_yes_no(text: str, expected: tuple[bool | None, str | None]) -> None:
    assert parse_yes_no(text) == expected


@pytest.mark.parametrize("garbage", GARBAGE)
def test_parse_yes_no_never_raises(garbage: object) -> None:
    decision, answer = parse_yes_no(garbage)  # type: ignore[arg-type]
    assert decision in (True, False, None)
    assert answer is None or isinstance(answer, str)


# ------------------------------------------------------------------------------------------
# parse_json_object
# ------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ('{"a": 1}', {"a": 1}),
        ('Sure! ```json\n{"answers": ["Tom Hanks"], "done": true}\n```', {"answers": ["Tom Hanks"], "done": True}),
        ('Here you go: {"plan": {"steps": [1, 2]}} Let me know.', {"plan": {"steps": [1, 2]}}),
        ('{"a": [1, 2,], "b": 3,}', {"a": [1, 2], "b": 3}),
        ("{'a': 'x', 'ok': True, 'none': None}", {"a": "x", "ok": True, "none": None}),
        ('{Tom Hanks (Score: 0.4)} and then {"real": 1}', {"real": 1}),
        ('{"text": "braces } inside { strings"}', {"text": "braces } inside { strings"}),
        ("[1, 2, 3]", None),
        ("no json here", None),
        ('{"unterminated": ', None),
    ],
)
def test_parse_json_object(text: str, expected: dict | None) -> None:
    assert parse_json_object(text) == expected


@pytest.mark.parametrize("garbage", GARBAGE)
def test_parse_json_object_never_raises(garbage: object) -> None:
    assert parse_json_object(garbage) is None  # type: ignore[arg-type]
