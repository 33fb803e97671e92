"""Biases (built-ins are registered through the plugin registry)."""
