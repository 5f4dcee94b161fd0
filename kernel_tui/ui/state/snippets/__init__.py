"""The learner's own code: the snippet editor's session, its document, the drafts that keep every unsaved edit,
the file watch that notices a change on disk, the file that keeps the text when its draft cannot be written, and
what a session call hands back to the screen."""
