"""FairTree tests."""
