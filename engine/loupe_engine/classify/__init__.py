"""Image classification: single-label (softmax) or multi-label (sigmoid), see engine/README.md."""
