"""Think-on-Graph 2.0 (ToG-2; Ma et al., 2024): start, topic_prune, clue_query, prune_relations, prune_entities, examine, answer."""
