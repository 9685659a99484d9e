"""Process set-up that keeps the window answering while the engine works.

Workers run Python beside the UI thread, so anything that holds the GIL for
long freezes the window whichever thread does it. Three such things are
dealt with here, once, before the window shows:

- the GIL's switch interval (a busy worker otherwise holds the UI thread off
  5 ms at each of a repaint's many Python calls);
- native loads that hold the GIL throughout: importing ONNX Runtime and
  llama.cpp's bindings, parsing the embedder's and the chunker's tokenizers,
  making the embedder's ONNX session (0.3-0.5 s together here). Done by the
  first indexing or answering job, they froze a window already on screen;
  the embedder is needed by every index and every question anyway;
- the cyclic garbage collector's full collections, which walk every object
  alive: 40-60 ms here for the modules and models alone, more in a long
  session. What is alive now lives as long as the process, so it is frozen
  out of those walks.
"""

from __future__ import annotations

import atexit
import gc
import importlib
import logging
import sys

log = logging.getLogger(__name__)

# The UI thread waits at most this long for the GIL while a worker runs Python.
SWITCH_INTERVAL_SECONDS = 0.001


def prepare_process() -> None:
    sys.setswitchinterval(SWITCH_INTERVAL_SECONDS)
    load_native_parts()
    gc.collect()
    gc.freeze()
    # Frozen modules outlive the collection at exit and are cleared in turn,
    # so a model freed after its bindings' module was cleared raised at exit.
    atexit.unregister(gc.unfreeze)
    atexit.register(gc.unfreeze)


def load_native_parts() -> None:
    """Load here what a worker would load holding the GIL. A model that
    cannot be loaded is left to the job that needs it, which says why."""
    from engine.index.chunking import chunking_tokenizer
    from engine.llm.loading import embedder_spec, open_embedder
    from engine.llm.settings import ModelSettings

    for module in ("hnswlib", "tantivy", "onnxruntime", "tokenizers"):
        importlib.import_module(module)
    chunking_tokenizer()
    try:
        importlib.import_module("llama_cpp")
    except Exception as error:  # a broken build: the generator's loader reports it when asked for
        log.info("llama.cpp is not loaded ahead: %s", error)
    try:
        settings = ModelSettings.load()
        if embedder_spec(settings)["backend"] != "remote":  # a server may be slow or down: not before the window
            open_embedder(settings)
    except Exception as error:
        log.info("the embedder is not loaded ahead: %s", error)
