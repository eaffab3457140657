"""A LangChain v1 agent (`create_agent`) grounded in your KG by `KGGroundingMiddleware`.

Before each model call the middleware links the user's question, runs RoG's planning and retrieval over the
KG (cookbook/data/my_kg.ttl: books, authors, awards) and puts the reasoning paths in the model's system
message. After the call it checks the names in the reply against those paths: under the default policy
("prefer") a reply that names no answer the paths support is replaced by RoG's answers from the same paths,
and the model's own words are kept in the message's metadata.

The chat model is the one KG_AGENT_MODEL names (`openai:gpt-4o-mini`; OPENAI_API_KEY, and OPENAI_BASE_URL for
any OpenAI-compatible server), else a scripted stand-in replying what a model might: right about Dune, wrong
about where William Gibson was born. Run from the project root:

    python cookbook/11_grounding_middleware.py
    KG_AGENT_MODEL=openai:gpt-4o-mini OPENAI_API_KEY=sk-... python cookbook/11_grounding_middleware.py
"""

import os
import sys

from langchain.agents import create_agent

from kg_agent.kg import open_kg
from kg_agent.langchain.middleware import KGGroundingMiddleware
from kg_agent.llm.scripted import ScriptedChatModel

if os.environ.get("KG_AGENT_MODEL"):  # a model only when named (an API key alone is not used)
    from kg_agent.llm.models import resolve_chat_model

    model = resolve_chat_model(os.environ["KG_AGENT_MODEL"]) or sys.exit("KG_AGENT_MODEL names no chat model")
else:
    model = ScriptedChatModel(["Frank Herbert received the Hugo Award and the Nebula Award.",
                               "William Gibson was born in Vancouver."])
print(f"Chat model: {type(model).__name__}")

kg = open_kg("cookbook/data/my_kg.ttl")
agent = create_agent(model, system_prompt="You answer questions about books in one sentence.",
                     middleware=[KGGroundingMiddleware(kg)])  # grounding="strict" or "off" to choose the policy

messages: list = []
for question in ["which awards did the author of [Dune] receive", "where was the author of [Neuromancer] born"]:
    messages.append({"role": "user", "content": question})
    state = agent.invoke({"messages": messages})
    messages = state["messages"]
    reply = messages[-1]
    check = reply.response_metadata["kg_agent"]["grounding"]
    print(f"\nUser:  {question}")
    print(f"Agent: {reply.text}")
    for answer in check["checked"]:
        print(f"  {answer['answer']!r}: {'grounded' if answer['grounded'] else 'NOT supported by the KG'}")
    if check["replaced"]:
        print(f"  (replaced the model's reply: {check['output']!r})")
