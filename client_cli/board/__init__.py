"""The full-screen race board (Textual): :class:`~client_cli.board.app.RaceApp`."""
