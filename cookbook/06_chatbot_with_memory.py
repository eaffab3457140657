"""A chatbot with memory: a kg-agent method graph as a node of your own LangGraph chatbot.

The method graphs accept a chat (`MessagesState`: the question is the last human message) and reply
with an AIMessage, so RoG drops into a `StateGraph(MessagesState)` as a subgraph node. A checkpointer
(here `InMemorySaver`; `SqliteSaver` or Postgres for real apps) keeps each thread's messages, and a
follow-up with no entity of its own ("and who directed it?") is asked about the previous turn's
answer: every reply carries its answer entities in `response_metadata["kg_agent"]`.

Run from the project root (offline, bundled sample KG):

    python cookbook/06_chatbot_with_memory.py
"""

from langchain_core.messages import HumanMessage
from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, MessagesState, StateGraph

from kg_agent.graphs import create_rog_graph
from kg_agent.kg import open_kg

kg = open_kg()
rog = create_rog_graph(kg).compile()  # the method graph, compiled without a checkpointer of its own

chatbot = StateGraph(MessagesState)
chatbot.add_node("kg", rog)  # a compiled graph is a node: the subgraph reads and appends `messages`
chatbot.add_edge(START, "kg")
chatbot.add_edge("kg", END)
app = chatbot.compile(checkpointer=InMemorySaver())

config: RunnableConfig = {"configurable": {"thread_id": "movie-chat-1"}}
for user_turn in ["what did [Winston Groom] write", "and who directed it?"]:
    state = app.invoke({"messages": [HumanMessage(user_turn)]}, config)  # only the new message: the thread has the rest
    reply = state["messages"][-1]
    print(f"User: {user_turn}")
    print(f"Bot:  {reply.content}")
    about = ", ".join(e["label"] for e in reply.response_metadata["kg_agent"]["topic_entities"])
    print(f"      (about: {about})\n")

history = app.get_state(config).values["messages"]
print(f"Thread {config['configurable']['thread_id']!r} holds {len(history)} messages: "
      + " ".join(m.type for m in history))
