"""The bottom of ``ui/``, where the app meets what is outside it: the engine link (``engine_link.py``) and the
threads that stream a run (``engine_worker.py``, posting ``EngineSaid``), each run's lifecycle, the link that
shows saved results instead (``view_link.py``), and the folder kernel-tui keeps its own files in.

It imports no other part of ``ui/``.
"""
