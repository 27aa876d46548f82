"""Shared plumbing: counts read from other writers' files by one rule, JSON Lines read the JSONL way, `-o`
targets written atomically, secrets redacted from whatever is written, files from elsewhere read safely
(regular files only, no link out of the folder given, one-line errors). No product logic lives here."""
