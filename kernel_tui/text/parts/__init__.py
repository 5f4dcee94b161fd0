"""What each part of a report says in words: why kernels stayed apart, library calls, memory, the modules, the
roofline, the compile variants."""
