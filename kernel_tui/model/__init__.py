"""The data model: what a run found (reports, kernels, launches, claims) and the files it comes from
(scenarios, snippets, saved results), with the checks that keep strangers' data inside it.

The lowest layer: it imports nothing else of kernel-tui, and neither torch nor Textual."""
