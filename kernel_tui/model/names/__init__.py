"""How kernels and operators are named and shown: short names, demangled C++ read at its top level, and text from
strangers made safe for a terminal."""
