"""Closed-form sharp bounds for the one-sided proxy-label biases (known answers for tests).

Notation (one group ``A = a``): ``p[i, j] = P(Y = i, P = j, A = a)`` are *joint* cells of the
observed table (proxy ``Y``, prediction ``P``); ``N0 = p00 + p01`` and ``N1 = p10 + p11``. The
bias budget ``D`` bounds ``P(Y != Z)`` over the whole population, so one group may use all of it.

**Missed positives, with the X -> Y_P edge** (``proxy_label_missed_positives``): flipped mass
``m_j <= p0j`` moves from proxy-negative to true-positive, ``m0 + m1 <= D``; each metric is
linear-fractional in ``(m0, m1)`` and monotone in each coordinate:

* FPR = (p01 - m1) / (N0 - m0 - m1): min at m1 = min(D, p01), max at m0 = min(D, p00);
* FNR = (p10 + m0) / (N1 + m0 + m1): min at m1 = min(D, p01), max at m0 = min(D, p00);
* PPV = (p11 + m1) / (p01 + p11): min 0 flips, max at m1 = min(D, p01).

**Missed positives, no X -> Y_P edge** (``..._no_edge``): the miss probability
``e = P(Y = 0 | Z = 1, A = a)`` does not depend on the prediction, so with ``s = e / (1 - e)``:
``t1j = p1j (1 + s)``, ``t0j = p0j - s p1j``, ``s <= s* = min(D / N1, p00 / p10, p01 / p11)``.
FPR = (p01 - s p11) / (N0 - s N1) is monotone in ``s`` (range between s = 0 and s*); FNR = p10 / N1
is point-identified; PPV = p11 (1 + s) / (p01 + p11). (The seed paper's appendix and reference
code give p10 where p11 belongs in the FPR and PPV formulas, and (FNR, TPR) as the FNR "range".)

**False positives, no X -> Y_P edge** (``..._no_edge``): the false-alarm probability
``e = P(Y = 1 | Z = 0, A = a)`` does not depend on the prediction, so with ``s = e / (1 - e)``:
``t0j = p0j (1 + s)``, ``t1j = p1j - s p0j``, ``s <= s* = min(D / N0, p10 / p00, p11 / p01)``.
FPR = p01 / N0 is point-identified; FNR = (p10 - s p00) / (N1 - s N0) and PPV = (p11 - s p01) /
(p01 + p11) are monotone in ``s`` (ranges between s = 0 and s*).

**False positives, with the edge** (``proxy_label_false_positives``): mass ``m_j <= p1j`` moves
from proxy-positive to true-negative, ``m0 + m1 <= D``:

* FPR = (p01 + m1) / (N0 + m0 + m1): max at m1 = min(D, p11), min at m0 = min(D, p10);
* FNR = (p10 - m0) / (N1 - m0 - m1): min at m0 = min(D, p10), max at m1 = min(D, p11);
* PPV = (p11 - m1) / (p01 + p11): min at m1 = min(D, p11).
"""

from __future__ import annotations

import numpy as np

__all__ = ["one_sided_proxy_bounds"]


def _joint(p: np.ndarray) -> tuple[float, float, float, float]:
    p = np.asarray(p, dtype=float)
    return float(p[0, 0]), float(p[0, 1]), float(p[1, 0]), float(p[1, 1])


def one_sided_proxy_bounds(p: np.ndarray, D: float, metric: str, variant: str) -> tuple[float, float]:
    """Sharp bounds of a group's ``fpr``, ``fnr`` or ``ppv`` under a one-sided proxy bias.

    Parameters
    ----------
    p : array (2, 2)
        Joint cells ``P(Y = i, P = j, A = a)`` of the group.
    D : float
        Budget on ``P(Y != Z)``.
    metric : {"fpr", "fnr", "ppv"}
        The group rate bounded.
    variant : {"missed_positives", "missed_positives_no_edge", "false_positives", "false_positives_no_edge"}
        Which one-sided proxy bias (the name of the built-in bias without ``proxy_label_``).

    Returns
    -------
    (float, float)
        The lower and upper bound of the true rate.

    Raises
    ------
    ValueError
        An unknown ``metric`` or ``variant``.

    Examples
    --------
    >>> import numpy as np
    >>> p = np.array([[0.2, 0.05], [0.05, 0.2]])
    >>> [round(v, 4) for v in one_sided_proxy_bounds(p, 0.05, "fpr", "missed_positives")]
    [0.0, 0.25]
    """
    p00, p01, p10, p11 = _joint(p)
    n0, n1 = p00 + p01, p10 + p11
    if variant == "missed_positives":
        m1, m0 = min(D, p01), min(D, p00)
        forms = {"fpr": ((p01 - m1) / (n0 - m1), p01 / (n0 - m0)),
                 "fnr": (p10 / (n1 + m1), (p10 + m0) / (n1 + m0)),
                 "ppv": (p11 / (p01 + p11), (p11 + m1) / (p01 + p11))}
    elif variant == "missed_positives_no_edge":
        caps = [D / n1] + [p0 / p1 for p0, p1 in ((p00, p10), (p01, p11)) if p1 > 0]
        s = min(caps)
        ends = {"fpr": (p01 / n0, (p01 - s * p11) / (n0 - s * n1)),
                "fnr": (p10 / n1, p10 / n1),
                "ppv": (p11 / (p01 + p11), p11 * (1 + s) / (p01 + p11))}
        forms = {k: (min(v), max(v)) for k, v in ends.items()}
    elif variant == "false_positives_no_edge":
        caps = [D / n0] + [p1 / p0 for p0, p1 in ((p00, p10), (p01, p11)) if p0 > 0]
        s = min(caps)
        ends = {"fpr": (p01 / n0, p01 / n0),
                "fnr": (p10 / n1, (p10 - s * p00) / (n1 - s * n0)),
                "ppv": (p11 / (p01 + p11), (p11 - s * p01) / (p01 + p11))}
        forms = {k: (min(v), max(v)) for k, v in ends.items()}
    elif variant == "false_positives":
        m1, m0 = min(D, p11), min(D, p10)
        forms = {"fpr": (p01 / (n0 + m0), (p01 + m1) / (n0 + m1)),
                 "fnr": ((p10 - m0) / (n1 - m0), p10 / (n1 - m1)),
                 "ppv": ((p11 - m1) / (p01 + p11), p11 / (p01 + p11))}
    else:
        raise ValueError(f"Unknown variant {variant!r}.")
    if metric not in forms:
        raise ValueError(f"Unknown metric {metric!r}; closed forms exist for fpr, fnr, ppv.")
    return forms[metric]
