"""Loupe's vision engine: train, test and export detectors (axis-aligned and rotated boxes)."""
__version__ = "0.1.0"
