"""Predictive multiplicity (Rashomon analysis). So far: the measures; the Rashomon-set builder,
its plugin registration and the exact linear MIP follow (issue 7)."""

from fairprobe.plugins.rashomon.measures import ambiguity_curve, conflict_ratio, delta_ambiguity, rashomon_distance

__all__ = ["ambiguity_curve", "conflict_ratio", "delta_ambiguity", "rashomon_distance"]
