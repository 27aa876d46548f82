"""Test-wide settings: everything runs offline."""

import os

os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
os.environ.setdefault("HF_DATASETS_OFFLINE", "1")
os.environ.setdefault("LITELLM_OFFLINE_MODE", "true")
os.environ.setdefault("INSPECT_DISABLE_MODEL_API", "1")
os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
