"""Optimisation backends behind one interface (:class:`~fairprobe.backends.base.Backend`)."""

from fairprobe.backends.base import Availability, Backend, Capabilities, Limit, SolveOptions, SolveResult, Termination

__all__ = ["Availability", "Backend", "Capabilities", "Limit", "SolveOptions", "SolveResult", "Termination"]
