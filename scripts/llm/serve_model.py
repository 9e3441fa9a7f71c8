"""Serve a GGUF with llama.cpp's OpenAI-compatible server from the `xllamacpp` wheel.

Plain llama.cpp, no front: HomeClaw talks to it with `native_tools: false`, so a model that
writes tool calls as bare JSON goes through HomeClaw's own validated text fallback.

Usage: serve_model.py MODEL.gguf --host H --port P --alias NAME --ctx N --threads N
"""
import argparse
import signal
import sys
import threading

import xllamacpp as xlc


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("model")
    ap.add_argument("--host", default="127.0.0.1")
    ap.add_argument("--port", type=int, default=8089)
    ap.add_argument("--alias", default="local-model")
    ap.add_argument("--ctx", type=int, default=4096)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args()

    params = xlc.CommonParams()
    params.model.path = args.model
    params.hostnames = [args.host]
    params.port = args.port
    params.use_jinja = True
    params.n_ctx = args.ctx
    params.n_parallel = 1
    params.cpuparams.n_threads = args.threads
    params.cpuparams_batch.n_threads = args.threads
    params.model_alias = {args.alias}
    params.warmup = True
    params.n_gpu_layers = 0
    server = xlc.Server(params)
    print(f"MODEL_LISTENING={server.listening_address}", flush=True)

    stop = threading.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        signal.signal(sig, lambda *_: stop.set())
    while not stop.is_set():
        stop.wait(1.0)
    del server
    return 0


if __name__ == "__main__":
    sys.exit(main())
