"""An example external fairprobe plugin (see ``plugin.py``)."""

from fairprobe_example_plugin.plugin import BaseRateAudit, FalseOmissionRateParity, LabelDelayBias

__all__ = ["BaseRateAudit", "FalseOmissionRateParity", "LabelDelayBias"]
