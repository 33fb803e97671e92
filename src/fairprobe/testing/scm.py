"""Random discrete structural causal models: exact ground truth for the causal engine's tests."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

__all__ = ["RandomSCM"]


class RandomSCM:
    """A random discrete structural causal model on a bias config's DAG: ground truth for tests.

    Every latent variable gets ``latent_card`` values with a random law; every endogenous
    variable ``V`` gets an independent noise ``E_V`` with ``noise_card`` values and a random
    deterministic structural function of (parents, latent parents, ``E_V``). Probabilities of
    factual and counterfactual events are computed exactly by enumerating the exogenous
    configurations, independently of fairprobe's compiler.

    Parameters
    ----------
    config : BiasConfig
        The bias configuration whose DAG the model follows.
    seed : int
        Seed of the random laws and structural functions.
    latent_card, noise_card : int
        Number of values of each latent variable and of each noise variable.
    concentration : float
        Dirichlet concentration of the random laws (small values give extreme models).

    Examples
    --------
    >>> from fairprobe.biases.builtin import SelectionBias
    >>> from fairprobe.testing import RandomSCM
    >>> scm = RandomSCM(SelectionBias().config(), seed=3)
    >>> scm.endogenous
    ['A', 'Y', 'P', 'S']
    >>> round(scm.evaluate("P(Y = 1)"), 4)
    0.5419
    """

    def __init__(self, config: Any, seed: int = 0, latent_card: int = 2, noise_card: int = 3,
                 concentration: float = 1.0) -> None:
        import numpy as np

        rng = np.random.default_rng(seed)
        self.config = config
        dag = config.dag
        self.order = dag.order
        self.latents = list(dag.unobserved)
        self.endogenous = [v for v in dag.order if v not in self.latents]
        self.cards = {v: config.cardinality(v) for v in self.endogenous}
        self.cards.update({u: latent_card for u in self.latents})
        exo = [(u, latent_card) for u in self.latents] + [(f"_E_{v}", noise_card) for v in self.endogenous]
        grids = np.meshgrid(*[np.arange(c) for _, c in exo], indexing="ij")
        self.exo = {name: g.ravel() for (name, _), g in zip(exo, grids, strict=True)}
        prob = np.ones(grids[0].size)
        for name, card in exo:
            law = rng.dirichlet(np.full(card, concentration))
            prob = prob * law[self.exo[name]]
        self.prob = prob
        self.functions: dict[str, tuple[list[str], np.ndarray]] = {}
        for v in self.endogenous:
            pa = [*dag.parents(v), f"_E_{v}"]
            shape = [self.cards.get(p, noise_card) for p in pa]
            self.functions[v] = (pa, rng.integers(0, self.cards[v], size=shape))

    def values(self, do: dict[str, int] | None = None) -> dict[str, Any]:
        """Value of every variable in every exogenous configuration under ``do`` (memoised).

        Parameters
        ----------
        do : dict of str to int, optional
            Intervention ``{variable: value}``; None for the factual world.

        Returns
        -------
        dict of str to numpy.ndarray
            Variable name (exogenous ones included) -> its value in each exogenous configuration.

        Examples
        --------
        >>> from fairprobe.biases.builtin import SelectionBias
        >>> from fairprobe.testing import RandomSCM
        >>> scm = RandomSCM(SelectionBias().config(), seed=3)
        >>> worlds = scm.values(do={"A": 1})
        >>> bool((worlds["A"] == 1).all()), len(worlds["Y"]) == len(scm.prob)
        (True, True)
        """
        import numpy as np

        do = do or {}
        key = tuple(sorted(do.items()))
        cache = self.__dict__.setdefault("_worlds", {})
        if key in cache:
            return cache[key]
        val: dict[str, Any] = dict(self.exo)
        for v in self.order:
            if v in self.latents:
                continue
            if v in do:
                val[v] = np.full(self.prob.size, do[v])
                continue
            pa, table = self.functions[v]
            val[v] = table[tuple(val[p] for p in pa)]
        cache[key] = val
        return val

    def event_prob(self, atoms: Iterable[Any]) -> float:
        """Exact probability of a conjunction of (counterfactual) atoms.

        Parameters
        ----------
        atoms : iterable of Atom
            Each with ``var``, ``value`` and ``intervention`` (as in a parsed query's ``event``).

        Returns
        -------
        float
            The probability that every atom holds.

        Examples
        --------
        >>> from fairprobe.biases.builtin import SelectionBias
        >>> from fairprobe.core.query import parse_expression
        >>> from fairprobe.testing import RandomSCM
        >>> scm = RandomSCM(SelectionBias().config(), seed=3)
        >>> atom = parse_expression("P(Y = 1)").atoms[0]
        >>> round(scm.event_prob(atom.event), 4)
        0.5419
        """
        import numpy as np

        mask = np.ones(self.prob.size, dtype=bool)
        for a in atoms:
            mask &= self.values(dict(a.intervention))[a.var] == a.value
        return float(self.prob[mask].sum())

    def atom_value(self, atom: Any) -> float:
        """Exact value of ``P(event | given)``; raises ZeroDivisionError when ``P(given) = 0``.

        Parameters
        ----------
        atom : ProbabilityAtom
            A parsed probability term (from :func:`fairprobe.core.query.parse_expression`).

        Returns
        -------
        float
            The conditional (or, without ``given``, marginal) probability.

        Examples
        --------
        >>> from fairprobe.biases.builtin import SelectionBias
        >>> from fairprobe.core.query import parse_expression
        >>> from fairprobe.testing import RandomSCM
        >>> scm = RandomSCM(SelectionBias().config(), seed=3)
        >>> round(scm.atom_value(parse_expression("P(Y = 1 | A = 1)").atoms[0]), 4)
        0.4447
        """
        num = self.event_prob(atom.event + atom.given)
        return num / self.event_prob(atom.given) if atom.given else num

    def evaluate(self, text: str) -> float:
        """Exact value of a query string in the constraint grammar.

        Parameters
        ----------
        text : str
            An expression such as ``"P(Y = 1 | A = 1) - P(Y = 1 | A = 0)"``.

        Returns
        -------
        float
            Its value in this model.

        Examples
        --------
        >>> from fairprobe.biases.builtin import SelectionBias
        >>> from fairprobe.testing import RandomSCM
        >>> scm = RandomSCM(SelectionBias().config(), seed=3)
        >>> round(scm.evaluate("P(Y = 1 | A = 1) - P(Y = 1 | A = 0)"), 4)
        -0.274
        """
        import sympy

        from fairprobe.core.query import parse_expression

        parsed = parse_expression(text)
        subs = {s: sympy.Float(self.atom_value(a)) for s, a in zip(parsed.symbols, parsed.atoms, strict=True)}
        return float(parsed.expr.subs(subs))

    def table(self, nodes: Iterable[str], given: dict[str, int] | None = None) -> Any:
        """The observed table of ``nodes`` (conditioned on ``given`` if set).

        Parameters
        ----------
        nodes : iterable of str
            The observed variables (columns of the table).
        given : dict of str to int, optional
            Condition, e.g. ``{"S": 1}`` for a selection bias.

        Returns
        -------
        ObservedTable
            The exact joint law of ``nodes``.

        Examples
        --------
        >>> from fairprobe.biases.builtin import SelectionBias
        >>> from fairprobe.testing import RandomSCM
        >>> scm = RandomSCM(SelectionBias().config(), seed=3)
        >>> table = scm.table(["A", "Y", "P"], given={"S": 1})
        >>> len(table.cells), round(float(table.cells["prob"].sum()), 6), table.given
        (8, 1.0, {'S': 1})
        """
        import numpy as np
        import pandas as pd

        from fairprobe.core.table import ObservedTable

        nodes = list(nodes)
        val = self.values()
        mask = np.ones(self.prob.size, dtype=bool)
        for k, v in (given or {}).items():
            mask &= val[k] == v
        frame = pd.DataFrame({v: val[v][mask] for v in nodes})
        frame["prob"] = self.prob[mask] / self.prob[mask].sum()
        frame = frame.groupby(nodes, as_index=False)["prob"].sum()
        return ObservedTable.from_probabilities(frame, given=given)

    def realised_parameters(self) -> dict[str, float]:
        """Smallest value of each sensitivity parameter at which every constraint holds.

        Returns
        -------
        dict of str to float
            Parameter name -> value in [0, 1]; the model satisfies the config at these values.

        Examples
        --------
        >>> from fairprobe.biases.builtin import SelectionBias
        >>> from fairprobe.testing import RandomSCM
        >>> scm = RandomSCM(SelectionBias().config(), seed=3)
        >>> {k: round(v, 4) for k, v in scm.realised_parameters().items()}
        {'D': 0.5389}
        """
        import sympy

        out = {p: 0.0 for p in self.config.parameters}
        for parsed in self.config.parsed_constraints:
            subs = {}
            for s, atom in zip(parsed.symbols, parsed.atoms, strict=True):
                try:
                    subs[s] = sympy.Float(self.atom_value(atom))
                except ZeroDivisionError:  # undefined conditional: the constraint holds vacuously
                    subs[s] = sympy.Float(0)
            expr = sympy.expand(parsed.expr.subs(subs))
            for p in parsed.parameters:
                slope = float(expr.coeff(p))
                rest = float(expr.subs(p, 0))
                if slope == 0:
                    continue
                # expr = rest + slope * p must satisfy the sense
                need = -rest / slope
                lower = (parsed.sense == ">=" and slope > 0) or (parsed.sense == "<=" and slope < 0)
                if lower or parsed.sense == "==":
                    out[str(p)] = max(out[str(p)], need)
        return {k: min(max(v, 0.0), 1.0) for k, v in out.items()}
