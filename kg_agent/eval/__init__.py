"""Evaluation datasets and metrics for KGQA benchmarks (MetaQA, WebQSP/CWQ in RoG format, 2Wiki), and
synthetic KGs of any size with gold-answered questions (:mod:`kg_agent.eval.synthetic`).

Self-contained: imports no other kg_agent subpackage (the modules not imported here, ``runner`` and
``synthetic``, use :mod:`kg_agent.kg`).
"""

from kg_agent.eval import datasets, metrics
from kg_agent.eval.datasets import *  # noqa: F403  (each module's __all__ says what it exports)
from kg_agent.eval.metrics import *  # noqa: F403

__all__ = sorted([*datasets.__all__, *metrics.__all__])
