"""The English text kit (kg_agent/text.py): tokens, name splitting, stems and the one set of function words.

Words of a railway timetable and a river basin survey (no data set's vocabulary)."""

from __future__ import annotations

import pytest

from kg_agent.text import (
    ARTICLES,
    AUXILIARIES,
    FUNCTION_WORDS,
    NAME_PARTICLES,
    REQUEST_VERBS,
    content_stems,
    content_words,
    label_words,
    name_phrase,
    name_words,
    same_word,
    separate_words,
    stem,
    stems,
    word_match,
    words,
)


def test_words_are_ascii_letters_and_digits_in_lower_case():
    assert words("Which Station does Line_7 call at?") == ["which", "station", "does", "line", "7", "call", "at"]
    assert words("  ") == []
    # a non-ASCII letter splits the word: English names and questions are read, labels by label_words
    assert words("Gdańsk") == ["gda", "sk"]


def test_label_words_keep_every_script_and_drop_underscores():
    assert label_words("Gdańsk Główny, platform_2") == ["gdańsk", "główny", "platform", "2"]
    assert label_words("Москва 1935") == ["москва", "1935"]


@pytest.mark.parametrize(("name", "expected"), [
    ("departureStation", ["departure", "station"]),
    ("river_basin_area", ["river", "basin", "area"]),
    ("flows-into", ["flows", "into"]),
    ("hasPlatform2", ["has", "platform2"]),       # a digit ends no word of its own
    ("line7Terminus", ["line7", "terminus"]),     # a capital after a digit starts one
    ("gaugeInMM", ["gauge", "in", "mm"]),         # an acronym at the end is one word
    ("hasISBN10", ["has", "isbn10"]),
    ("URLPath", ["urlpath"]),                     # a run of capitals is not split from the word after it
    ("ISBN", ["isbn"]),
    ("", []),
])
def test_name_words_split_camel_snake_and_kebab_case(name, expected):
    assert name_words(name) == expected


def test_separate_words_keeps_the_case_and_name_phrase_lowers_it():
    assert separate_words("riverMouth_location") == "river Mouth location"
    assert name_phrase("DrainageBasin") == "drainage basin"
    assert name_phrase("  tidal_river-section ") == "tidal river section"


def test_stems_are_the_first_four_letters_of_content_words():
    assert stem("departures") == "depa" and stem("dep") == "dep"
    assert stems("Which trains departed from the station?") == {"trai", "depa", "stat"}
    # function words and words under three letters have no stem; digits are no letters
    assert stems("is it on the 7 line?") == {"line"}
    assert content_stems("river flows into the river") == ["rive", "flow", "rive"]


def test_word_match_and_same_word_compare_roots():
    assert word_match("departed", "departure") == 1.0
    assert word_match("flowed", "flows") == 1.0
    assert word_match("subbasin", "subway") == 0.0  # "sub" is an English prefix, no root
    assert word_match("acted", "actors") == 0.8
    assert same_word("stations", "station") and same_word("tributaries", "tributary")
    assert not same_word("rail", "railwayman")  # a compound, not an ending


def test_same_word_takes_only_an_inflection_after_a_whole_word():
    # another form of the same word: a plural, a past tense, a participle (a doubled consonant too)
    assert same_word("beacons", "beacon") and same_word("boxes", "box") and same_word("lit", "lit")
    assert same_word("released", "release") and same_word("stopped", "stop") and same_word("keepers", "keeper")
    # a derivational ending makes another word: the person of a body, the practitioner of a craft
    assert not same_word("commissioner", "commission") and not same_word("commissioners", "commission")
    assert not same_word("artist", "art") and not same_word("keepership", "keeper")
    # a word after a whole word makes a compound, however short
    assert not same_word("key", "keyword") and not same_word("light", "lighthouse")


def test_function_words_are_closed_class_english_only():
    assert {"the", "of", "which", "who", "is", "has", "did", "could", "they", "not", "also", "same", "any"} <= FUNCTION_WORDS
    assert ARTICLES <= FUNCTION_WORDS and AUXILIARIES <= FUNCTION_WORDS
    # open-class words are never function words: not the request verbs, not the words of names or relations
    assert not (REQUEST_VERBS | NAME_PARTICLES) & FUNCTION_WORDS
    assert not {"station", "river", "name", "list", "directed", "born", "film", "type", "label"} & FUNCTION_WORDS
    assert all(word.isalpha() and word.islower() for word in FUNCTION_WORDS)


def test_content_words_drop_function_words_and_short_words_in_order():
    tokens = "which river does the ob flow into".split()
    assert content_words(tokens) == ["river", "flow"]
    assert content_words(["name", "the", "river"], FUNCTION_WORDS | REQUEST_VERBS) == ["river"]


def test_the_question_reader_keeps_round_trip_words_in_its_phrases():
    from kg_agent.tools.shared.question_parts import NO_RELATION_WORDS, QuestionParts

    assert REQUEST_VERBS <= NO_RELATION_WORDS and not {"same", "other", "also"} & NO_RELATION_WORDS
    parts = QuestionParts.of("which station is [ent] 's other half")
    assert "other half" in parts.phrases and "station" in parts.content_words
