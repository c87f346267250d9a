"""Tables on disk: HDF5 files, their attributes and checks, the data directory, the
catalogue of which file serves which group, locks, and memory-mapping for the search."""
