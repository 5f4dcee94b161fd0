"""What the tests share: running the CLI, replaying recorded engine output, driving the app in a
terminal, waiting on processes, and where the checkout's folders are (``locations``)."""
