"""Core machinery: plugin registry, polynomial programs and (later) the causal compiler."""
