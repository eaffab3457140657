"""One LangGraph ``StateGraph`` factory per method. Each returns an uncompiled graph."""

from kg_agent.graphs.rog import create_rog_graph

__all__ = ["create_rog_graph"]
