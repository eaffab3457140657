"""Think-on-Graph (ToG; Sun et al., ICLR 2024) and ToG-I: start, instructions, prune_relations, prune_entities, verify, answer."""
