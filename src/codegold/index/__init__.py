"""The on-disk index: manifest, atomic store, lexical, symbols and vectors."""
