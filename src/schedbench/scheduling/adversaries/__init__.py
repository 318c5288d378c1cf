"""Adaptive adversaries, one file each; every module here is imported by the registry."""
