"""How the front ends talk to the engine: the typed, versioned messages, the channel only the engine can
write on, and the client that starts, feeds and ends an engine process.

Above the model and the wording; it never imports the engine's modules (the engine is a child process)."""
