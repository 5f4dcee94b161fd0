"""The explorer's widgets, one concept per file; the explorer screen tells each what to show."""
