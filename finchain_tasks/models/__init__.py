"""Models: the registry (``registry.yaml``) and the local model server.

Cheap to import on purpose: litellm and xllamacpp are imported only by the functions that need them.
"""
