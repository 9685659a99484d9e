"""GPU offload: which layers go where, read from llama.cpp's own load log, and
what happens when the build cannot offload. The test machines have no GPU:
the CUDA lines below follow the format strings in the installed libllama
("%s: using device %s (%s) (%s) - %zu MiB free", "offloaded %d/%d layers").
The last test runs where llama.cpp is built for a GPU (run on an H200 with a
CUDA build; see the README's llama.cpp builds) and is skipped elsewhere."""

from __future__ import annotations

import pytest

from engine.llm import ChatMessage, GenerationOptions, ModelSettings
from engine.llm.llama import LlamaGenerator, device_from_log, gpu_offload_supported, resolve_gpu_layers
from engine.llm.loading import generator_spec

CUDA_LOG = [
    "llama_model_load_from_file_impl: using device CUDA0 (NVIDIA H200) (0000:19:00.0) - 142510 MiB free\n",
    "load_tensors: layer   0 assigned to device CUDA0, is_swa = 0\n",
    "load_tensors: layer   1 assigned to device CUDA0, is_swa = 0\n",
    "load_tensors: layer   2 assigned to device CPU, is_swa = 0\n",
    "load_tensors: offloading 2 repeating layers to GPU\n",
    "load_tensors: offloaded 2/3 layers to GPU\n",
    "load_tensors:        CUDA0 model buffer size =    63.14 MiB\n",
]


def test_device_is_read_from_the_load_log():
    device = device_from_log(CUDA_LOG, gpu_available=True)
    assert device.device == "CUDA0 (NVIDIA H200)"
    assert (device.gpu_layers, device.total_layers) == (2, 3)
    assert device.describe() == "CUDA0 (NVIDIA H200), 2/3 layers on the GPU"
    metal = device_from_log(["using device Metal (Apple M2 Pro) - 21845 MiB free\n",
                             "layer   0 assigned to device Metal, is_swa = 0\n"], gpu_available=True)
    assert metal.device == "Metal (Apple M2 Pro)" and metal.gpu_layers == 1
    cpu = device_from_log(["load_tensors: layer   0 assigned to device CPU, is_swa = 0\n"], gpu_available=False)
    assert cpu.device == "CPU" and cpu.gpu_layers == 0


def test_layers_setting_follows_what_the_build_can_do():
    supported = gpu_offload_supported()
    assert resolve_gpu_layers("auto") == ((-1 if supported else 0), None)
    assert resolve_gpu_layers(0) == (0, None)
    layers, notice = resolve_gpu_layers(12)
    if supported:
        assert (layers, notice) == (12, None)
    else:
        assert layers == 0 and "no GPU support" in notice


def test_the_loaded_model_reports_its_device_and_any_notice():
    path = generator_spec(ModelSettings())["path"]
    model = LlamaGenerator(path, context_size=256, gpu_layers=8)
    try:
        if gpu_offload_supported():
            assert model.device.gpu_layers == 8
        else:
            assert model.device.device == "CPU" and model.device.gpu_layers == 0
            assert "no GPU support" in model.device.notice
            assert "no GPU support" in model.device.describe()
    finally:
        model.close()


def test_auto_puts_every_layer_on_the_gpu_and_answers_there():
    if not gpu_offload_supported():
        pytest.skip("this llama.cpp build cannot offload to a GPU (a CPU build)")
    model = LlamaGenerator(generator_spec(ModelSettings())["path"], context_size=2048)  # GPU layers "auto"
    try:
        device = model.device
        assert device.device != "CPU" and device.total_layers and device.gpu_layers == device.total_layers
        assert f"{device.total_layers}/{device.total_layers} layers on the GPU" in device.describe()
        result = model.complete([ChatMessage("user", "Name three colours.")], GenerationOptions(max_tokens=24))
        assert result.text.strip() and result.usage.completion_tokens > 0
    finally:
        model.close()
