"""Scenario files read without running them: their title, lesson and claims, a snippet or a model of one's own as a
scenario, and where the course lives."""
