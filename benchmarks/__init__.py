"""Performance and accuracy measurements, each reported against a peer or a physical limit.

Run one with ``python -m benchmarks.<name>``, or all of them with ``python -m benchmarks``.
"""
