"""The LangChain adapters: the steps and lookups as tools (``tools``: :func:`kg_tools`), a whole method as one tool
(``graph_tool``: :func:`as_tool`), RoG's retrieval as a retriever (``retriever``: :class:`KGRetriever`) and RoG's
context in front of any chat model (``rog_context``: :func:`with_rog_context`)."""
