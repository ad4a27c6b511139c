"""The peers' apps for ``make bench-peers``: the same no-op work written for each peer.

Imported by their worker processes (``bench.peer_apps.<peer>``) with the database in
``$BENCH_PEER_DSN``.
"""
