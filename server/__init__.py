"""La Belle Lucie race service."""
