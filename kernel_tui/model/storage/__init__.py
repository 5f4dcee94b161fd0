"""Files on disk, whatever they turn out to be: bounded reads, atomic writes, one process at a time, and saved
results read back checked."""
