"""Fair play: assessing rated races for solver-assisted play (docs/fair-play.md)."""
