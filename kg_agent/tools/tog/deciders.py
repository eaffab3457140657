"""The decisions of a ToG-family graph (relation pruner, entity scorer, verifier, answerer; ToG-I's instruction
generator and integrator too), chosen once by :func:`default_deciders`: by the graphs and by the LangChain step tools.

:class:`ToGOptions` holds what ToG and ToG-I explore with (depth, the deciders a caller gives, ...), documented once:
both factories take its fields as keyword options (:class:`ToGGraphOptions`: with
:class:`~kg_agent.settings.GraphSettings`' fields, as type checkers read them)."""

from __future__ import annotations

from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field, SkipValidation

from kg_agent.kg.graph import KnowledgeGraph
from kg_agent.settings import GraphOptions, GraphSettings
from kg_agent.tools.shared.path_scoring import RelationPathScorer
from kg_agent.tools.shared.scoring import DEFAULT_IGNORED_RELATIONS
from kg_agent.tools.tog.answer import ChainAnswerer, LLMToGAnswerer, OfflineRun, ToGAnswerer
from kg_agent.tools.tog.instructions import (
    InstructionGenerator,
    InstructionIntegrator,
    JoinInstructionIntegrator,
    LLMInstructionGenerator,
    LLMInstructionIntegrator,
    PathInstructionGenerator,
)
from kg_agent.tools.tog.prune_entities import (
    DEFAULT_MAX_CANDIDATES,
    EntityScorer,
    LLMEntityScorer,
    PathEntityScorer,
    SimilarityEntityScorer,
)
from kg_agent.tools.tog.prune_relations import DEFAULT_DEPTH, LLMRelationPruner, RelationPruner, SimilarityRelationPruner
from kg_agent.tools.tog.verify import LLMVerifier, ScoreVerifier, Verifier

#: Relations the offline beam's pruner looks past a candidate (as the offline verifier does).
BEAM_LOOKAHEAD = 2


class ToGOptions(BaseModel):
    """how ToG and ToG-I explore"""

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    depth: int = Field(default=DEFAULT_DEPTH, ge=1,
                       description="maximum depth D (3; ToG-I: per outer iteration)")
    relation_pruner: SkipValidation[RelationPruner | None] = Field(
        default=None, description="overrides relation pruning (any object with the RelationPruner method)")
    entity_scorer: SkipValidation[EntityScorer | None] = Field(
        default=None, description="overrides entity scoring (any object with the EntityScorer method)")
    verifier: SkipValidation[Verifier | None] = Field(
        default=None, description="overrides verification (any object with the Verifier method)")
    answerer: SkipValidation[ToGAnswerer | None] = Field(
        default=None, description="overrides the answer step (any object with the ToGAnswerer method)")
    ignored_relations: tuple[str, ...] = Field(
        default=DEFAULT_IGNORED_RELATIONS, description="fnmatch patterns of bookkeeping relations never explored")
    max_candidates: int = Field(
        default=DEFAULT_MAX_CANDIDATES, ge=1,
        description="candidate tail entities scored per (entity, relation), first by label (a warning says so)")
    verify_margin: float = Field(
        default=0.0, description="the offline verifier's bias towards stopping (ScoreVerifier's margin)")
    speculate: bool = Field(
        default=False,
        description="ask the next step's model calls while the verifier decides (kg_agent.tools.tog.speculate): "
                    "faster with a slow model, the same answers, chains and warnings; calls a Yes makes unnecessary "
                    "are wasted but counted in usage and the call budget. Only when the calls left cover it; not "
                    "with max_tokens / max_seconds (ValueError); no effect without a model")


class ToGGraphOptions(GraphOptions, total=False):
    """The keyword options of the ToG and ToG-I factories for type checkers: :class:`~kg_agent.settings.GraphOptions`
    and :class:`ToGOptions`' fields, typed as there (where they are documented; tests/test_typing.py keeps them
    equal)."""

    depth: int
    relation_pruner: RelationPruner | None
    entity_scorer: EntityScorer | None
    verifier: Verifier | None
    answerer: ToGAnswerer | None
    ignored_relations: tuple[str, ...]
    max_candidates: int
    verify_margin: float
    speculate: bool


@dataclass
class ToGDeciders:
    """The decisions of a ToG-family graph, LLM-backed or offline."""

    relation_pruner: RelationPruner
    entity_scorer: EntityScorer
    verifier: Verifier
    answerer: ToGAnswerer
    uses_llm: bool
    #: Offline, the scorer the beam's relations were chosen by: the answer step reads from it whether any explored
    #: chain's relations are what the question asks for (:func:`~kg_agent.tools.shared.answer_checks.chains_matching_nothing`).
    chain_scorer: RelationPathScorer | None = None


def default_deciders(kg: KnowledgeGraph, settings: GraphSettings | None = None,
                     options: ToGOptions | None = None, *, offline_run: OfflineRun | None = None) -> ToGDeciders:
    """The deciders: LLM ones (each falling back to its offline twin, asking in ``settings.structured_output`` mode)
    when ``settings`` has a model, else offline; one ``options`` gives is used as it is.

    ``settings.grounding`` is the answer step's grounding policy (:mod:`kg_agent.tools.shared.grounding`). Without a
    model the relation pruner scores whole chains with a look ahead of :data:`BEAM_LOOKAHEAD` relations within
    ``options.depth`` (the beam's D; :class:`SimilarityRelationPruner`) and the entity scorer weighs each tail by the
    best path through it (:class:`PathEntityScorer`), so the beam keeps the ``W`` chains whose relation paths best
    answer the question; a model's fallbacks keep ToG's per-step weights.

    ``offline_run``: the method without a model, whose grounded answers the model's answer step gives under grounding
    ``"prefer"`` when none of the model's answers ends an explored chain (:class:`LLMToGAnswerer`)."""
    settings = (settings or GraphSettings()).resolved()
    options = options or ToGOptions()
    model, embeddings, grounding, mode = settings.model, settings.embeddings, settings.grounding, settings.structured_output
    offline_relations = SimilarityRelationPruner(kg=kg, embeddings=embeddings)
    offline_entities = SimilarityEntityScorer(embeddings=embeddings)
    offline_verifier = ScoreVerifier(kg, embeddings=embeddings, margin=options.verify_margin,
                                     ignored_relations=options.ignored_relations)
    offline_answerer = ChainAnswerer(grounding=grounding, kg=kg)
    if model is None:
        beam_relations = SimilarityRelationPruner(kg=kg, embeddings=embeddings, lookahead=BEAM_LOOKAHEAD,
                                                  max_hops=options.depth, ignored_relations=options.ignored_relations)
        beam_entities = PathEntityScorer(beam_relations, text=offline_entities)
        return ToGDeciders(options.relation_pruner or beam_relations, options.entity_scorer or beam_entities,
                           options.verifier or offline_verifier, options.answerer or offline_answerer, False,
                           beam_relations.scorer if options.relation_pruner is None else None)
    return ToGDeciders(
        options.relation_pruner or LLMRelationPruner(model, fallback=offline_relations, structured_output=mode,
                                                     keep_offline_top=grounding != "off", kg=kg),
        options.entity_scorer or LLMEntityScorer(model, fallback=offline_entities, structured_output=mode),
        options.verifier or LLMVerifier(model, fallback=offline_verifier, structured_output=mode, grounding=grounding),
        options.answerer or LLMToGAnswerer(model, fallback=offline_answerer, structured_output=mode, grounding=grounding,
                                           chain_scorer=offline_relations.scorer, kg=kg,
                                           offline_verifier=offline_verifier, offline_run=offline_run),
        True,
    )


def instruction_deciders(kg: KnowledgeGraph, settings: GraphSettings | None = None, options: ToGOptions | None = None, *,
                         generator: InstructionGenerator | None = None,
                         integrator: InstructionIntegrator | None = None) -> tuple[InstructionGenerator, InstructionIntegrator]:
    """ToG-I's two decisions besides :func:`default_deciders`': the LLM ones (the generator falling back to the path
    generator) when ``settings`` has a model, else offline; one given explicitly is used as is."""
    settings = (settings or GraphSettings()).resolved()
    ignored = (options or ToGOptions()).ignored_relations
    model, mode = settings.model, settings.structured_output
    if generator is None:
        offline = PathInstructionGenerator(kg, embeddings=settings.embeddings, ignored_relations=ignored)
        generator = LLMInstructionGenerator(model, fallback=offline, structured_output=mode) if model is not None else offline
    if integrator is None:
        integrator = LLMInstructionIntegrator(model, structured_output=mode) if model is not None else JoinInstructionIntegrator()
    return generator, integrator
