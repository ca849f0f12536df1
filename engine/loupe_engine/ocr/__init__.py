"""OCR: the rotated-box detector finds text lines, a CNN -> BiLSTM -> CTC recognizer reads them (engine/README.md)."""
