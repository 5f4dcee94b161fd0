"""The scenarios the explorer lists and what a lesson asks: the catalog, each scenario's code, the kinds of claim,
the questions before a first run, the answers graded after it and the prediction score kept across sessions."""
