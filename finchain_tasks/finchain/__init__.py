"""FinChain, the benchmark's own facts: the taxonomy, the canonical split and its generator, the prompt,
the task version, and the stratified order `--limit` takes."""
