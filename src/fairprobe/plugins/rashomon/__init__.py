"""Predictive multiplicity (Rashomon analysis).

So far: the measures and the ad-hoc Rashomon-set builder; plots, reports, the plugin
registration, the CLI and the exact linear MIP follow (issue 7).
"""

from fairprobe.plugins.rashomon.measures import ambiguity_curve, conflict_ratio, delta_ambiguity, rashomon_distance
from fairprobe.plugins.rashomon.rashomon_set import RashomonSet

__all__ = ["RashomonSet", "ambiguity_curve", "conflict_ratio", "delta_ambiguity", "rashomon_distance"]
