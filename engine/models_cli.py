"""`chapterhouse models ...`: the catalogue, what is installed and active, and
choosing, configuring, downloading and checking models."""

from __future__ import annotations

import json
import sys
import time
from dataclasses import asdict
from pathlib import Path

from .errors import ChapterhouseError
from .llm.catalogue import EMBEDDER, GENERATOR, Catalogue
from .llm.errors import ModelError
from .llm.settings import (CATALOGUE, FILE, FOLDER, MIN_CONTEXT, REMOTE, ModelChoice, ModelSettings, reindex_notice,
                           settings_path)


def add_parser(commands) -> None:
    models = commands.add_parser("models", help="list, choose, download and check models")
    models.add_argument("--json", action="store_true", help="print the listing as JSON")
    models.set_defaults(handler=list_models)
    actions = models.add_subparsers(dest="models_command", metavar="ACTION")

    use = actions.add_parser("use", help="use a catalogue model, a GGUF file or an ONNX model folder")
    use.add_argument("target", metavar="PATH|ID")
    use.add_argument("--role", choices=[GENERATOR, EMBEDDER], help="needed only when it cannot be told from PATH")
    use.set_defaults(handler=use_model)

    remote = actions.add_parser("remote", help="use an OpenAI-compatible server (llama-server, Ollama, vLLM, LM Studio)")
    remote.add_argument("url", metavar="URL")
    remote.add_argument("--model", help="the server's model name (default: the first it lists)")
    remote.add_argument("--role", choices=[GENERATOR, EMBEDDER, "both"], default=GENERATOR)
    remote.add_argument("--api-key")
    remote.add_argument("--context", type=int, help="the server's context size, if it does not say")
    remote.add_argument("--timeout", type=float, default=120.0)
    remote.set_defaults(handler=use_remote)

    reset = actions.add_parser("reset", help="go back to the embedded default models")
    reset.add_argument("--role", choices=[GENERATOR, EMBEDDER, "both"], default="both")
    reset.set_defaults(handler=reset_models)

    configure = actions.add_parser("configure", help="GPU layers, threads, context size")
    configure.add_argument("--gpu-layers", help='"auto" (all when the build supports a GPU), 0 for CPU only, or a count')
    configure.add_argument("--threads", type=int, help="CPU threads (0: let the runtime choose)")
    configure.add_argument("--context", type=int, help="context size in tokens (0: the model's own, at most 8k)")
    configure.set_defaults(handler=configure_models)

    download = actions.add_parser("download", help="download a catalogue model (needs a network)")
    download.add_argument("model_id", metavar="ID")
    download.set_defaults(handler=download_catalogue_model)

    check = actions.add_parser("check", help="load the active models and say where they run")
    check.add_argument("--json", action="store_true")
    check.set_defaults(handler=check_models)


def listing(settings: ModelSettings | None = None, catalogue: Catalogue | None = None) -> dict:
    """The `models --json` document."""
    from .llm.llama import gpu_offload_supported

    settings = settings or ModelSettings.load()
    catalogue = catalogue or Catalogue.load()
    active_ids = {}
    for role in (GENERATOR, EMBEDDER):
        choice = settings.choice(role)
        if choice.source == CATALOGUE:
            active_ids[role] = choice.id or catalogue.default(role).id
    models = []
    for model in catalogue.models:
        folder = model.installed_folder()
        models.append({
            "id": model.id, "name": model.name, "role": model.role, "default": model.default,
            "license": model.license, "size_bytes": model.size_bytes,
            "context_length": model.context_length, "chat_format": model.chat_format,
            "max_tokens": model.max_tokens, "dimension": model.dimension,
            "ram_mb": model.ram_mb, "vram_mb": model.vram_mb,
            "installed": folder is not None, "path": str(model.main_file()) if folder else None,
            "active": active_ids.get(model.role) == model.id, "downloadable": model.downloadable,
            "notes": model.notes,
        })
    return {
        "gpu_offload_available": gpu_offload_supported(),
        "settings_file": str(settings_path()),
        "active": {role: {**asdict(settings.choice(role)), "description": settings.choice(role).describe()}
                   for role in (GENERATOR, EMBEDDER)},
        "gpu_layers": settings.gpu_layers, "threads": settings.threads, "context_size": settings.context_size,
        "models": models,
    }


def list_models(args) -> int:
    document = listing()
    if args.json:
        print(json.dumps(document, indent=2, default=str))
        return 0
    for role in (GENERATOR, EMBEDDER):
        print(f"{role.capitalize()}s:")
        for model in (m for m in document["models"] if m["role"] == role):
            mark = "*" if model["active"] else " "
            state = "installed" if model["installed"] else ("downloadable" if model["downloadable"] else "missing")
            size = f"{model['size_bytes'] / 1e9:.2f} GB" if model["size_bytes"] >= 1e9 else f"{model['size_bytes'] / 1e6:.0f} MB"
            print(f" {mark} {model['id']:34s} {size:>8s}  {state:12s} {model['license']}")
        active = document["active"][role]
        if active["source"] != CATALOGUE:
            print(f" * {active['description']}  ({active['source']})")
    gpu = "available" if document["gpu_offload_available"] else "not in this llama.cpp build (see README: GPU builds)"
    print(f"GPU offload: {gpu}; GPU layers: {document['gpu_layers']}")
    print("* = active.  Choose with: chapterhouse models use PATH|ID   Download: chapterhouse models download ID")
    return 0


def use_model(args) -> int:
    settings = ModelSettings.load()
    catalogue = Catalogue.load()
    target = args.target
    path = Path(target).expanduser()
    if path.exists():
        role = args.role or (EMBEDDER if path.is_dir() else GENERATOR)
        if role == GENERATOR:
            from .llm.gguf import check_gguf, model_facts

            check_gguf(path)
            facts = model_facts(path)
            choice = ModelChoice(source=FILE, path=str(path.resolve()))
            detail = f"{facts['architecture']}, {facts['layers']} layers, trained context {facts['context_length']}"
        else:
            from .llm.embedder import read_folder

            spec = read_folder(path)
            if not Path(spec["tokenizer_path"]).is_file():
                raise ModelError(path, "no tokenizer.json in this folder; an embedder needs one beside its model")
            choice = ModelChoice(source=FOLDER, path=str(path.resolve()))
            detail = f"{Path(spec['model_path']).name}, pooling {spec.get('pooling', 'mean')}"
    else:
        try:
            model = catalogue.get(target)
        except ModelError:
            raise ModelError(target, "no such file, folder or catalogue model (see `chapterhouse models`)") from None
        if args.role and args.role != model.role:
            raise ModelError(target, f"is a {model.role}, not a {args.role}")
        role = model.role
        if model.installed_folder() is None:
            raise ModelError(target, f"not installed yet; run `chapterhouse models download {model.id}` first")
        choice = ModelChoice(source=CATALOGUE, id=model.id)
        detail = model.name
    previous = settings.choice(role).describe()
    settings.set_choice(role, choice)
    settings.save()
    print(f"{role}: {choice.describe()} ({detail})")
    print(reindex_notice(role, previous, choice.describe()))
    return 0


def use_remote(args) -> int:
    from .llm.remote import EndpointSettings, RemoteGenerator

    endpoint = EndpointSettings(url=args.url, model=args.model, api_key=args.api_key, timeout=args.timeout,
                                context_size=args.context)
    roles = [GENERATOR, EMBEDDER] if args.role == "both" else [args.role]
    if GENERATOR in roles:
        probe = RemoteGenerator(endpoint)  # fails now, with the reason, if the server is not there
        print(f"generator: {probe.model_id} at {probe.device.device}, context {probe.context_size}")
    settings = ModelSettings.load()
    for role in roles:
        settings.set_choice(role, ModelChoice(source=REMOTE, endpoint=endpoint))
    settings.save()
    for role in roles:
        print(f"{role}: {settings.choice(role).describe()}")
    return 0


def reset_models(args) -> int:
    settings = ModelSettings.load()
    for role in ([GENERATOR, EMBEDDER] if args.role == "both" else [args.role]):
        settings.set_choice(role, ModelChoice())
    settings.save()
    print("using the embedded default models" if args.role == "both" else f"{args.role}: the embedded default")
    return 0


def configure_models(args) -> int:
    settings = ModelSettings.load()
    if args.gpu_layers is not None:
        value = args.gpu_layers.strip().lower()
        if value != "auto" and not value.lstrip("-").isdigit():
            raise ChapterhouseError(f"--gpu-layers {args.gpu_layers}: give auto, 0 (CPU only) or a number of layers")
        settings.gpu_layers = value if value == "auto" else int(value)
    if args.threads is not None:
        if args.threads < 0:
            raise ChapterhouseError(f"--threads {args.threads}: give a number of threads, or 0 to let the runtime choose")
        settings.threads = args.threads or None
    if args.context is not None:
        if args.context < 0 or 0 < args.context < MIN_CONTEXT:
            raise ChapterhouseError(f"--context {args.context}: give at least {MIN_CONTEXT} tokens, or 0 for the "
                                    "model's own")
        settings.context_size = args.context or None
    settings.save()
    print(f"GPU layers: {settings.gpu_layers}; threads: {settings.threads or 'auto'}; "
          f"context: {settings.context_size or 'model default (at most 8192)'}")
    return 0


def download_catalogue_model(args) -> int:
    from .llm.download import download_model

    model = Catalogue.load().get(args.model_id)
    started = time.monotonic()
    last = [0.0]

    def progress(name: str, done: int, total: int | None) -> None:
        now = time.monotonic()
        if now - last[0] < 0.2 and (total is None or done < total):
            return
        last[0] = now
        rate = done / max(now - started, 1e-6) / 1e6
        if total:
            filled = int(30 * done / total)
            bar = "#" * filled + "-" * (30 - filled)
            sys.stderr.write(f"\r{name} [{bar}] {done / 1e6:7.1f}/{total / 1e6:.1f} MB  {rate:5.1f} MB/s")
        else:
            sys.stderr.write(f"\r{name} {done / 1e6:7.1f} MB  {rate:5.1f} MB/s")
        sys.stderr.flush()

    folder = download_model(model, progress=progress)
    sys.stderr.write("\n")
    from .llm.download import file_sha256

    for item in model.files:
        if item.sha256 is None:
            print(f"{item.name}: sha256 {file_sha256(folder / item.name)} (the catalogue has none to check against)")
    print(f"downloaded {model.id} to {folder}; use it with: chapterhouse models use {model.id}")
    return 0


def check_models(args) -> int:
    from .llm.loading import open_embedder, open_generator

    settings = ModelSettings.load()
    started = time.perf_counter()
    generator = open_generator(settings)
    generator_seconds = time.perf_counter() - started
    started = time.perf_counter()
    embedder = open_embedder(settings)
    embedder_seconds = time.perf_counter() - started
    report = {
        "generator": {"model": generator.model_id, "device": asdict(generator.device),
                      "runs_on": generator.device.describe(), "context_size": generator.context_size,
                      "load_seconds": round(generator_seconds, 2)},
        "embedder": {"model": embedder.model_id, "device": asdict(embedder.device), "runs_on": embedder.device.describe(),
                     "dimension": embedder.dimension, "max_tokens": embedder.max_tokens,
                     "load_seconds": round(embedder_seconds, 2)},
    }
    if args.json:
        print(json.dumps(report, indent=2))
        return 0
    print(f"generator: {generator.model_id} on {generator.device.describe()}, context {generator.context_size} tokens "
          f"(loaded in {generator_seconds:.1f} s)")
    print(f"embedder:  {embedder.model_id} on {embedder.device.describe()}, {embedder.dimension} dimensions, "
          f"{embedder.max_tokens}-token limit (loaded in {embedder_seconds:.1f} s)")
    return 0
