"""The shipped DRL policy: a model card and its weights (data, not code).

In a checkout this is the top-level ``pretrained/`` folder; ``pyproject.toml`` installs it
as ``engine.pretrained`` so a wheel carries it. Find it with :func:`engine.paths.pretrained_dir`.
"""
