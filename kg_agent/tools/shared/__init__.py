"""Steps and kits every method shares: entity linking, the LLM decider kit, the offline scoring kit, budgets, state updates."""
