"""This host: GPUs and what holds them (``gpus``, ``gpu_readers``, ``procfs``) and the
pre-flight of a launch command against them (``preflight``)."""
