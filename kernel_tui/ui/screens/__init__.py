"""The explorer's screens: the main explorer, and the help and details dialogs over it."""
