"""Rendered tables: boards, tiles, lights, lenses and hands drawn for tests, benchmarks and
the simulated camera. The real pipeline never imports this package.
"""
