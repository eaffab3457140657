"""Reasoning on Graphs (RoG; Luo et al., ICLR 2024): plan, retrieve, answer (and the training-data export)."""
