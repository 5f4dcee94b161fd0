"""The documentation's generated sections: ``python -m tools.docs`` rewrites each from the code that is its source
(``pages``), and ``tests/house/test_docs_pages.py`` fails when a page and its source disagree."""
