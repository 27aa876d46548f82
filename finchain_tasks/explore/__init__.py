"""``finchain explore``: a local web app (Gradio) to look inside ChainEval.

A problem, a model's reasoning and ChainEval's verdict side by side: the gold steps, the alignment with
each step's similarity and numeric gate, the first wrong step, the score matrix as a heat map and the
``calc`` PRM's step verdicts. Everything but :mod:`.app` is plain Python over plain data (no Gradio), so
it is tested directly; :mod:`.app` only wires it to widgets.

* :mod:`.problems`: the template catalogue, problems by id and seed, permalinks.
* :mod:`.verdict`: one output scored with everything a viewer shows.
* :mod:`.views`: the HTML of each view; model text is always escaped.
* :mod:`.ask`: a model's answer, streamed, with tokens and cost (the local model started on demand).
* :mod:`.run_samples`: the samples of run directories and logs, filtered.
* :mod:`.app`: the Gradio Blocks app; :mod:`.space` writes a Hugging Face Space that runs it.
"""
