"""IDA* subtrees on a Dask cluster (optional extra): connecting to it (client) and the
tasks a worker runs with the backend that submits them (tasks)."""
