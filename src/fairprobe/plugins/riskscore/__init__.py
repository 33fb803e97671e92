"""Risk-score fairness audit: calibration, discrimination and representation per group (analysis plugin)."""

from fairprobe.plugins.riskscore.audit import RiskScoreAudit
from fairprobe.plugins.riskscore.calibration import ace, drmsce, ece, rmsce
from fairprobe.plugins.riskscore.discrimination import auprg, auroc, calibration_intercept_slope, prg_curve
from fairprobe.plugins.riskscore.representation import expected_underrepresentation, representation_curve

__all__ = [
    "RiskScoreAudit",
    "ace",
    "auprg",
    "auroc",
    "calibration_intercept_slope",
    "drmsce",
    "ece",
    "expected_underrepresentation",
    "prg_curve",
    "representation_curve",
    "rmsce",
]
