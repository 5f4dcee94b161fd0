"""The dialogs over the explorer, each built on one base (``dialog.py``): help, details, a prompt, the
predict-then-reveal pair, generated code, compile variants, drafts to restore, the question before quitting with
typed text in no file, and ``view``'s device columns.

A dialog is handed what it shows and answers with its result; it never imports the explorer or its parts.
"""
