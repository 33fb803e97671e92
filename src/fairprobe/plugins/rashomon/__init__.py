"""Predictive multiplicity (Rashomon analysis).

* :mod:`~fairprobe.plugins.rashomon.measures`: conflict ratio, delta-ambiguity, distances;
* :class:`RashomonSet`: ad-hoc Rashomon sets of any scikit-learn classifier;
* :class:`ExactLinearMultiplicity`: the exact epsilon-Rashomon set of linear classifiers by
  mixed-integer programs through fairprobe's backends (Marx, Calmon & Ustun, 2020);
* :class:`TreeRashomonSet`: the exact Rashomon set of sparse decision trees (TreeFARMS, optional
  extra ``trees``) with exact set-level conflict ratios computed without listing the trees.

Both are analyses (:class:`fairprobe.plugins.base.Analysis`): ``fit(X, y_true, ...)`` returns
the fitted analysis, and ``summary()``, ``to_frame()``, ``figures()`` and ``to_report(out)`` read
its fitted state.
"""

from fairprobe.plugins.rashomon.linear_exact import ExactLinearMultiplicity, LinearMultiplicityResult
from fairprobe.plugins.rashomon.measures import ambiguity_curve, conflict_ratio, delta_ambiguity, rashomon_distance
from fairprobe.plugins.rashomon.rashomon_set import RashomonSet
from fairprobe.plugins.rashomon.tree_exact import TreeRashomonSet

__all__ = ["ExactLinearMultiplicity", "LinearMultiplicityResult", "RashomonSet", "TreeRashomonSet", "ambiguity_curve",
           "conflict_ratio", "delta_ambiguity", "rashomon_distance"]
