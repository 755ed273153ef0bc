"""Terminal client and Python client library for the La Belle Lucie race service."""
