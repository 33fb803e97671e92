"""The tree plot's labels do not overlap: long split rules (many categories) are wrapped and shortened.

Issue 44 item 21: on the Adult data the rules of sibling splits ("occupation in {Adm-clerical,
Armed-Forces, ...}") ran into each other. Every text of the plot is measured with the renderer.
"""

from __future__ import annotations

import itertools

import matplotlib

matplotlib.use("Agg")

import matplotlib.pyplot as plt
import numpy as np
import pytest

from fairprobe.datasets import load_adult
from fairprobe.plugins.fairtree.plots import edge_label
from fairprobe.plugins.fairtree.tree import FairTree


@pytest.fixture(scope="module")
def adult_tree() -> FairTree:
    data = load_adult().frame.sample(6000, random_state=0)
    y = data.income.astype(int).to_numpy()
    rng = np.random.default_rng(0)
    score = np.clip(0.25 + 0.4 * (data.relationship.isin(["Husband", "Wife"])) + rng.normal(0, 0.1, len(data)), 0, 1)
    covariates = ["workclass", "education", "marital_status", "occupation", "relationship", "race", "sex"]
    return FairTree(max_depth=3).fit(data[covariates], y_true=y, y_pred=score)


def overlaps(ax) -> list[tuple[str, str]]:
    fig = ax.figure
    fig.canvas.draw()
    renderer = fig.canvas.get_renderer()
    texts = [t for t in ax.texts if t.get_text().strip()]
    boxes = [(t.get_text(), (t.get_bbox_patch() or t).get_window_extent(renderer)) for t in texts]
    return [(a, b) for (a, ba), (b, bb) in itertools.combinations(boxes, 2) if ba.overlaps(bb)]


def test_long_rules_are_wrapped_and_shortened() -> None:
    rule = ("education in {10th, 11th, 12th, 1st-4th, 5th-6th, 7th-8th, 9th, Assoc-voc, Doctorate, HS-grad, "
            "Preschool, Some-college}")
    label = edge_label(rule)
    lines = label.splitlines()
    assert 1 < len(lines) <= 4 and max(map(len, lines)) <= 22, label
    assert label.startswith("education in {10th,") and label.endswith("more}"), label
    shown = label.replace("\n", " ")
    assert "+" in shown and all(item in shown for item in ("10th", "11th"))
    assert edge_label("priors_count <= 1") == "priors_count <= 1"  # short rules unchanged
    assert edge_label("sex in {Female}") == "sex in {Female}"


def test_no_label_overlaps_another_on_the_adult_tree(adult_tree: FairTree) -> None:
    assert any(len(nd.rule[-1]) > 60 for nd in adult_tree.nodes_ if nd.id)  # long rules, as in the issue
    ax = adult_tree.figures()["tree"]()
    try:
        assert overlaps(ax) == []
        renderer = ax.figure.canvas.get_renderer()
        figure = ax.figure.bbox
        for text in ax.texts:  # and none leaves the figure
            box = (text.get_bbox_patch() or text).get_window_extent(renderer)
            assert figure.x0 - 1 <= box.x0 and box.x1 <= figure.x1 + 1, text.get_text()
    finally:
        plt.close("all")
