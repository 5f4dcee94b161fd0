"""The explorer app (Textual). Never imports torch."""
