"""What a report reads as: numbers in words, comparisons with a baseline, the code annotated line by line,
the terminal and Markdown renderings.

Above the model, below everything that shows text; no torch, no Textual."""
