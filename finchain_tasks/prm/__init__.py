"""Fin-PRM pipelines that need the host side: labelling through litellm, training, offline selection."""
