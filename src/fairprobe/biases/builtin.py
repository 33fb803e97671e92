"""Built-in biases, each a packaged JSON config (see ``configs/``).

* ``selection`` -- data observed only where ``S = 1``; ``P(S = 1) >= 1 - D``.
* ``proxy_label`` -- the true outcome ``Z`` is unmeasured, ``Y`` is a proxy;
  ``P(Z = Y) >= 1 - D``.
* ``ecp`` -- an extra-classificatory policy ``T`` changes outcomes; the target is ``Y(T=1)``;
  ``P(Y(T=1) != Y(T=0)) <= D``.
* ``proxy_label_and_selection`` -- both, with four chained latent confounders.
"""

from __future__ import annotations

from fairprobe.biases.base import JsonBias

__all__ = ["EcpBias", "ProxyLabelAndSelectionBias", "ProxyLabelBias", "SelectionBias"]


class SelectionBias(JsonBias):
    """Selection: only selected units (S = 1) are observed; at most D are unselected."""

    name = "selection"
    description = "data observed only for selected units; P(S = 1) >= 1 - D"
    resource = "selection.json"


class ProxyLabelBias(JsonBias):
    """Proxy labels: the observed Y disagrees with the true outcome Z for at most D."""

    name = "proxy_label"
    description = "observed label Y is a proxy of the true outcome Z; P(Z = Y) >= 1 - D"
    resource = "proxy_label.json"


class EcpBias(JsonBias):
    """Extra-classificatory policy: treatment T changes the outcome for at most D."""

    name = "ecp"
    description = "a policy T changes outcomes; target Y(T=1); P(Y(T=1) != Y(T=0)) <= D"
    resource = "ecp.json"


class ProxyLabelAndSelectionBias(JsonBias):
    """Proxy labels observed only for selected units."""

    name = "proxy_label_and_selection"
    description = "proxy label and selection together, one budget D"
    resource = "proxy_label_and_selection.json"
