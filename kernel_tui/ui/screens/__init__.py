"""The screens: the explorer (``explorer.py`` and the parts it holds), its key table, and the dialogs over it
(``dialogs/``).

Below ``app``: a screen composes ``widgets``, hands them their slices of ``view``'s ``Shown`` and changes
``state`` through its transitions; nothing below imports a screen.
"""
