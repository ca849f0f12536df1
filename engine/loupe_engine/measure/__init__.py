"""Measurement (SPEC §3 annotation fields) of masks, polygons and rotated boxes, tolerances and OK/NG; see
engine/README.md."""
