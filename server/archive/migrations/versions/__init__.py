"""One module per revision, oldest first (``r0001_races``)."""
