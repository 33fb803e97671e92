"""Plots of a fitted FairTree: the tree (like the paper's Figure 2) and fluctuation processes."""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy.stats import kstwobign

from fairprobe.exceptions import ConfigError

__all__ = ["edge_label", "plot_process", "plot_tree"]

#: Characters per line and lines of a split rule on the tree plot (the splits table has it whole).
EDGE_LABEL_WIDTH, EDGE_LABEL_LINES = 20, 4
#: Where a rule sits on its edge: this fraction of the way from the parent to the child (past the
#: middle, so the rules of sibling splits are further apart than their parents' boxes are wide).
EDGE_LABEL_AT = 0.6


def edge_label(rule: str, width: int = EDGE_LABEL_WIDTH, max_lines: int = EDGE_LABEL_LINES) -> str:
    """A split rule as the tree plot shows it: wrapped at ``width`` characters, at most ``max_lines`` lines.

    A set of categories too long for that keeps its first members and counts the rest
    (``education in {10th, 11th, ... +7 more}``); the splits table and the report hold every rule whole.

    Parameters
    ----------
    rule : str
        The rule, e.g. ``"occupation in {Adm-clerical, Armed-Forces, Sales}"`` or ``"age <= 30"``.
    width : int
        Characters per line.
    max_lines : int
        Most lines.

    Returns
    -------
    str
        The label, lines separated by newlines.

    Examples
    --------
    >>> edge_label("age <= 30")
    'age <= 30'
    >>> label = edge_label("education in {10th, 11th, 12th, 1st-4th, 5th-6th, 7th-8th, 9th, Assoc-voc, Doctorate, "
    ...                    "HS-grad, Preschool, Some-college}")
    >>> print(label.replace("\\u00a0", " "))  # "+5 more" is joined by a no-break space
    education in {10th,
    11th, 12th, 1st-4th,
    5th-6th, 7th-8th,
    9th, +5 more}
    """
    import re
    import textwrap

    def wrap(text: str) -> list[str]:
        return textwrap.wrap(text, width, break_on_hyphens=False) or [text]

    lines = wrap(rule)
    if len(lines) <= max_lines:
        return "\n".join(lines)
    match = re.fullmatch(r"(.*? in \{)(.*)\}", rule, flags=re.S)
    if match:
        head, items = match.group(1), match.group(2).split(", ")
        for keep in range(len(items) - 1, 0, -1):
            # (a no-break space: "+5 more}" stays on one line)
            lines = wrap(f"{head}{', '.join(items[:keep])}, +{len(items) - keep}\u00a0more}}")
            if len(lines) <= max_lines:
                return "\n".join(lines)
    lines = wrap(rule)[:max_lines]
    lines[-1] = lines[-1][: max(1, width - 3)].rstrip() + "..."
    return "\n".join(lines)


def _layout(tree: Any) -> dict[int, tuple[float, float]]:
    nodes = tree.nodes_
    pos: dict[int, tuple[float, float]] = {}
    counter = [0]

    def place(i: int) -> float:
        nd = nodes[i]
        if nd.is_leaf:
            x = float(counter[0])
            counter[0] += 1
        else:
            x = float(np.mean([place(c) for c in nd.children]))
        pos[i] = (x, -nd.depth)
        return x

    place(0)
    return pos


def plot_tree(tree: Any, *, ax: Any = None) -> Any:
    """Draw the tree; each box shows n, bias, variance and MSE, coloured by MSE.

    A tree fitted on ``loss_values`` alone has no residuals: its boxes show n and the mean loss,
    coloured by the mean loss.

    Parameters
    ----------
    tree : FairTree
        A fitted :class:`~fairprobe.plugins.fairtree.tree.FairTree`.
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure sized to the tree).

    Returns
    -------
    matplotlib Axes

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from fairprobe.plugins.fairtree.tree import FairTree
    >>> ax = plot_tree(FairTree.example().fit())
    >>> ax.get_title()
    'FairTree (fluctuation test): colour = MSE'
    >>> plt.close("all")
    """
    import matplotlib.pyplot as plt
    from matplotlib import cm, colors

    nodes = tree.nodes_
    pos = _layout(tree)
    width = max(x for x, _ in pos.values()) + 1
    depth = max(-y for _, y in pos.values()) + 1
    if ax is None:
        fig, ax = plt.subplots(figsize=(max(5.0, 2.6 * width), max(3.0, 1.9 * depth)))
        # the tree has no axes to frame: it takes the whole figure (the rules of sibling splits need the room)
        fig.subplots_adjust(left=0.01, right=0.99, bottom=0.01, top=1 - 0.35 / max(3.0, 1.9 * depth))
    losses_only = tree.residuals_ is None  # no residuals: the mean loss is all there is
    mses = np.array([nd.mean_loss if losses_only else nd.mse for nd in nodes])
    norm = colors.Normalize(vmin=float(mses.min()), vmax=float(mses.max()) if mses.max() > mses.min() else 1.0)
    cmap = cm.get_cmap("RdYlGn_r") if hasattr(cm, "get_cmap") else plt.colormaps["RdYlGn_r"]
    for nd in nodes:
        x, y = pos[nd.id]
        for c in nd.children:
            cx, cy = pos[c]
            ax.plot([x, cx], [y, cy], color="grey", lw=1, zorder=1)
            at = EDGE_LABEL_AT  # past the middle: sibling rules further apart (see edge_label for the wrapping)
            ax.text(x + at * (cx - x), y + at * (cy - y), edge_label(nodes[c].rule[-1]), fontsize=7, ha="center",
                    va="center", linespacing=1.1,
                    bbox={"boxstyle": "round,pad=0.2", "fc": "white", "ec": "none", "alpha": 0.85}, zorder=2)
        if losses_only:
            label = f"n = {nd.n}\nmean loss {nd.mean_loss:.3f}"
        else:
            label = f"n = {nd.n}\nbias {nd.bias:+.3f}\nvar {nd.variance:.3f}\nMSE {nd.mse:.3f}"
        if nd.split:
            label += f"\n{nd.split['classification']} (p {nd.split['adjusted_p_value']:.1e})"
        fill = cmap(norm(nd.mean_loss if losses_only else nd.mse))
        # white text on dark boxes: relative luminance of the fill colour
        dark = 0.2126 * fill[0] + 0.7152 * fill[1] + 0.0722 * fill[2] < 0.45
        ax.text(x, y, label, ha="center", va="center", fontsize=7, zorder=3, color="white" if dark else "black",
                bbox={"boxstyle": "round", "fc": fill, "ec": "k", "lw": 0.6})
    ax.set_xlim(-0.7, width - 0.3)
    ax.set_ylim(-depth + 0.4, 0.6)
    ax.axis("off")
    ax.set_title(f"FairTree ({tree.test} test): colour = {'mean loss' if losses_only else 'MSE'}", fontsize=9)
    return ax


def plot_process(tree: Any, covariate: str, node: int = 0, *, ax: Any = None) -> Any:
    """The bias and variance fluctuation processes with the critical boundary at alpha.

    A tree fitted on ``loss_values`` alone has one process, the loss's, with the boundary at alpha / m.

    Parameters
    ----------
    tree : FairTree
        A :class:`~fairprobe.plugins.fairtree.tree.FairTree` fitted with ``test="fluctuation"``.
    covariate : str
        The covariate whose processes to draw (ordered by it).
    node : int
        The node tested (0 is the root).
    ax : matplotlib Axes, optional
        Where to draw (default: a new figure).

    Returns
    -------
    matplotlib Axes

    Raises
    ------
    ConfigError
        The tree was fitted with another test, or no process was kept for ``covariate`` at ``node``.

    Examples
    --------
    >>> import matplotlib.pyplot as plt
    >>> from fairprobe.plugins.fairtree.tree import FairTree
    >>> ax = plot_process(FairTree.example().fit(), "education")
    >>> ax.get_xlabel()
    'share of node 0 ordered by education'
    >>> plt.close("all")
    """
    import matplotlib.pyplot as plt

    if tree.test != "fluctuation":
        raise ConfigError("plot_process needs a tree fitted with test='fluctuation'.")
    key = (node, covariate)
    if key not in tree._processes:
        raise ConfigError(f"No fluctuation process for covariate {covariate!r} at node {node} "
                          "(unknown covariate, a leaf that was not tested, or a constant covariate).")
    wb, wv = tree._processes[key]
    if ax is None:
        _, ax = plt.subplots(figsize=(6, 3.5))
    t = np.arange(1, wb.size + 1) / max(wb.size, 1)
    if wv is None:  # losses only: the loss's own process, Bonferroni over the covariates alone
        ax.plot(t, wb, label="loss process (per-row loss)")
    else:
        ax.plot(t, wb, label="bias process (residual)")
        ax.plot(t, wv, label="variance process (squared centred residual)")
    m = max(1, int((tree.nodes_[node].tests.splittable | (tree.nodes_[node].tests.note != "constant in this node"))
                   .sum()))
    processes = 1 if wv is None else 2
    crit = float(kstwobign.isf(tree.alpha / (processes * m)))
    for sign in (1, -1):
        ax.axhline(sign * crit, color="r", ls="--", lw=1)
    ax.axhline(0, color="grey", lw=0.5)
    ax.set_xlabel(f"share of node {node} ordered by {covariate}")
    ax.set_ylabel("W(t)")
    ax.set_title(f"fluctuation processes; boundary +-{crit:.3f} (alpha/({'2' if processes == 2 else ''}m), m={m})",
                 fontsize=9)
    ax.legend(frameon=False, fontsize=8)
    return ax
