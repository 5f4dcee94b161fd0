"""The built-in course: each numbered file is one scenario, read by kernel-tui, never imported."""
