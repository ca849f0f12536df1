"""Semantic segmentation with instances from connected components, see engine/README.md."""
