#!/usr/bin/env bash
# Installs what Loupe needs and is missing: Debian packages, then npm dependencies.
# Usage: scripts/bootstrap.sh [run|test]   (test also installs the browser and PostgreSQL for the test suite)
set -euo pipefail
cd "$(dirname "$0")/.."
mode="${1:-run}"

# python3-pil and the fonts: the OCR task renders synthetic text lines (engine/README.md, OCR).
# libopenblas0-openmp: Debian's torch finds BLAS through the libblas.so.3 alternative, which is otherwise the
# reference BLAS (torch.mm at 4.6 GFLOP/s here vs 145 with OpenBLAS); single-threaded 1x1 convolutions below batch
# 16, linear layers and LSTMs all run through it (engine/README.md, Speed).
# tesseract-ocr(-eng): the zero-shot reader every trained OCR model is compared with on /model (engine/README.md, OCR).
debs=(python3-torch python3-torchvision python3-opencv python3-numpy python3-pil python3-optuna libopenblas0-openmp fonts-dejavu-core
  fonts-liberation tesseract-ocr tesseract-ocr-eng)
if [ "$mode" = test ]; then
  debs+=(python3-pytest chromium postgresql redis-server)
fi

missing=()
for pkg in "${debs[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "bootstrap: installing Debian packages: ${missing[*]}"
  sudo_cmd=""
  [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
  $sudo_cmd apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

# onnxruntime-node's install script would download a GPU build; the CPU library ships inside the package.
export ONNXRUNTIME_NODE_INSTALL=skip
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  echo "bootstrap: installing npm dependencies"
  # npm install, not npm ci: the registry here serves only some of rollup's per-platform optional packages,
  # so the lock lists just those and npm ci refuses it as out of sync; install still follows the lock.
  npm install --no-audit --no-fund
fi
