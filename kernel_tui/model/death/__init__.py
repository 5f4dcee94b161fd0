"""An engine that died: its crash dump read, and its death as a run's error and report."""
