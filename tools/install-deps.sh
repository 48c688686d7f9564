#!/usr/bin/env bash
# Installs the Debian 12 packages optgrammar's build, tests, tools and benchmarks need.
# Idempotent: does nothing when everything is present. Run as root (or with sudo available).
set -euo pipefail
pkgs=(cmake ninja-build g++-12 clang-14 clang-format-14 lld-14 libc++-14-dev llvm-14 libclang-rt-14-dev
      libboost-dev catch2 libbenchmark-dev libcli11-dev libfmt-dev nlohmann-json3-dev
      qemu-user-static time libonnx-dev libprotobuf-dev libonnx-testdata
      python3  # the W2 rule generator (bench/w2)
      graphviz  # pictures (tools/run-og-opt.sh)
      libxml2-utils  # xmllint: og-opt's HTML report is checked to parse (tools/og-opt tests)
      chromium python3-pil  # og-opt's HTML report rendered in a browser and its screenshot checked
      # real architectures exported to ONNX offline (tools/og-onnx/torch_models.py, qdq.py)
      python3-torch python3-torchvision python3-torchaudio python3-onnx python3-numpy)
# node and npm (tools/fetch-models.sh, the whole-model tests) come from Debian's nodejs and npm
# only when no node and npm are on the PATH: a nodejs package that brings its own npm conflicts
# with Debian's npm.
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' || missing+=("$p")
done
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then missing+=(nodejs npm); fi
[ ${#missing[@]} -eq 0 ] && exit 0
sudo=""; [ "$(id -u)" -ne 0 ] && sudo="sudo"
echo "[install-deps] installing: ${missing[*]}" >&2
$sudo apt-get update -qq
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
