"""``finchain-lm-eval``: lm-eval's own command line with FinChain added, and the opt-in installer.

lm-eval 0.4.13 finds tasks only in its own folder and in ``--include_path`` (no entry points yet).
The wrapper parses the arguments with lm-eval's parser (so it takes exactly ``lm_eval``'s arguments),
then, before lm-eval runs: adds our task folder as ``--include_path``, registers ``finchain-oracle``,
refuses overlapping FinChain groups with a plain message (lm-eval would stop at "Duplicate task"),
and picks the completion prompt when no chat template is applied. After the run it removes the
values of secret-looking ``model_args`` (api_key=...) from every file the run wrote.

``install`` / ``uninstall`` are the explicit alternative: small stub YAML files (one ``include:``
line each) in a folder of lm-eval's tasks directory, listed in a manifest so that uninstall removes
exactly what install wrote. Real folders, not a symlink: lm-eval's glob does not follow linked folders.
"""

from __future__ import annotations

import importlib.util
import json
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from itertools import combinations
from pathlib import Path
from typing import Any

import finchain_tasks
from finchain_tasks.lm_eval import TASKS_DIR
from finchain_tasks.plumbing.redaction import configured_secrets, is_secret_name

REDACTED = "<redacted>"
INSTALL_DIR = "finchain_tasks"
MANIFEST = ".finchain-install.json"


# -- the wrapper ----------------------------------------------------------------------------------
def main(argv: list[str] | None = None) -> int:
    """Run lm-eval's CLI with FinChain's tasks and backends available."""
    try:
        import lm_eval  # noqa: F401
    except ImportError:
        print("finchain-lm-eval: error: this needs lm-eval, which is not installed: "
              "pip install 'finchain-tasks[lm-eval]'", file=sys.stderr)
        return 2
    import finchain_tasks.lm_eval.models  # noqa: F401  (registers finchain-oracle)
    from finchain_tasks.cflue import CflueDataError

    cli, args = _parse(sys.argv[1:] if argv is None else argv)
    try:
        prepare(args)
        secrets = secret_values(args)  # a --config file that cannot be read is one line naming it
    except ValueError as exc:
        print(f"finchain-lm-eval: error: {exc}", file=sys.stderr)
        return 2
    out_dir = _output_dir(getattr(args, "output_path", None))
    before, streams = _snapshot(out_dir), (sys.stdout, sys.stderr)
    if secrets:  # lm-eval prints and logs model_args: redact them on the console too
        sys.stdout, sys.stderr = _Redacting(sys.stdout, secrets), _Redacting(sys.stderr, secrets)
    try:
        from lm_eval.utils import setup_logging

        setup_logging()  # after the swap: its handler keeps the stream it finds
        with _index_only_ours(args):
            cli.execute(args)
    except CflueDataError as exc:  # a bad CFLUE path or file: the loader's message, not a traceback
        print(f"finchain-lm-eval: error: {exc}", file=sys.stderr)
        return 2
    finally:
        sys.stdout, sys.stderr = streams
        scrub(out_dir, before, secrets)
    return 0


def _parse(argv: list[str]):
    """lm-eval's own parser, so the wrapper takes exactly ``lm_eval``'s arguments."""
    from lm_eval._cli import HarnessCLI

    saved, sys.argv = sys.argv, ["finchain-lm-eval", *argv]
    try:
        cli = HarnessCLI()
        return cli, cli.parse_args()  # reads sys.argv, like lm-eval's own entry point
    finally:
        sys.argv = saved


def prepare(args: Any) -> None:
    """Adjust lm-eval's parsed arguments in place; ``ValueError`` for a request we must refuse."""
    if getattr(args, "command", None) not in ("run", "ls", "validate"):
        return
    if not installed():
        if getattr(args, "include_path", None):
            raise ValueError("finchain-lm-eval passes its own --include_path and lm-eval 0.4.13 takes only one. "
                             "Run `finchain lm-eval install` once, then use `lm_eval --include_path YOURS ...`.")
        args.include_path = TASKS_DIR
    if args.command == "run":
        check_metadata(getattr(args, "metadata", None))
    if args.command == "run" and getattr(args, "tasks", None):
        check_overlaps(args.tasks)
        _choose_prompt(args)
        _explain_limit(args)


PER_LEAF = ("finchain_run", "cflue_run", "cflue_app_run", "finchain_domain", "finchain_level", "cflue_type",
            "cflue_app_task")
"""Metadata the leaves' YAML sets (where a run records itself, which slice a leaf is): not the user's to give."""
READ_BY_CONFIGURE = ("cflue_temperature",)
"""Options a task class reads from the metadata rather than its dataset loader's arguments."""


def metadata_options() -> list[str]:
    """Every ``--metadata`` option of our tasks: the ``finchain_*``/``cflue_*`` arguments of their dataset
    loaders (the one source of truth: lm-eval passes the metadata to them as keyword arguments)."""
    import inspect

    from finchain_tasks.lm_eval import authors, bon, bon_cflue, cflue, cflue_application, dataset

    loaders = (dataset.load_finchain, bon.load_bon, bon_cflue.load_cflue_bon, cflue.load_cflue_docs,
               cflue_application.load_application_docs, authors.load_authors)
    names = {p for f in loaders for p in inspect.signature(f).parameters
             if p.startswith(("finchain_", "cflue_", "authors_"))}
    return sorted((names | set(READ_BY_CONFIGURE)) - set(PER_LEAF))


def check_metadata(metadata: Any) -> None:
    """Refuse a ``--metadata`` key that is ours but unknown, or that is one letter-slip from ours: lm-eval passes
    every key on and the loaders ignore the ones they do not take, so a misspelt option would be silently lost."""
    import difflib

    if not isinstance(metadata, dict):
        return
    known = metadata_options()
    for key in metadata:
        if key in known or key in PER_LEAF:
            continue
        close = difflib.get_close_matches(str(key), known, n=1, cutoff=0.8)
        if close or str(key).startswith(("finchain_", "cflue_", "authors_")):
            hint = f"did you mean {close[0]}? " if close else ""
            raise ValueError(f"--metadata {key!r} is not an option of FinChain's or CFLUE's tasks; {hint}"
                             f"the options are {', '.join(known)}")


def check_overlaps(tasks: list[str]) -> None:
    """Refuse two requested FinChain names that share a leaf (e.g. ``finchain`` and ``finchain_easy``)."""
    from finchain_tasks.lm_eval.build import layout

    lay = layout()
    ours = [t for t in tasks if lay.members(t)]
    for a, b in combinations(ours, 2):
        shared = lay.members(a) & lay.members(b)
        if shared:
            raise ValueError(
                f"--tasks {a} and {b} overlap ({len(shared)} shared task(s), e.g. {min(shared)}); lm-eval stops "
                "with 'Duplicate task' when one run holds a task twice. Run them in separate calls: the "
                "difficulty views (finchain_easy, ...) regroup the same problems as finchain and its domains.")


def _choose_prompt(args: Any) -> None:
    """Without a chat template the chat prompt would reach the model as glued plain text, so the
    wrapper asks for the completion prompt unless the user chose one (``finchain_prompt``)."""
    from finchain_tasks.lm_eval.build import layout

    lay = layout()
    chosen = {**(getattr(args, "model_args", None) or {}), **(getattr(args, "metadata", None) or {})}
    if getattr(args, "apply_chat_template", None) or "finchain_prompt" in chosen:
        return
    if any(lay.members(t) for t in args.tasks):
        args.metadata = {**(getattr(args, "metadata", None) or {}), "finchain_prompt": "completion"}
        print("finchain-lm-eval: no --apply_chat_template, so FinChain uses its completion prompt "
              "(finchain_prompt=completion); pass --metadata finchain_prompt=chat to override.", file=sys.stderr)


def _explain_limit(args: Any) -> None:
    """lm-eval's ``--limit`` is per leaf task; say what it takes of FinChain's leaves (a stratified prefix)."""
    from finchain_tasks.lm_eval.build import layout

    limit = getattr(args, "limit", None)
    if limit and any(layout().members(t) for t in args.tasks):
        print(f"finchain-lm-eval: --limit {limit:g} takes the first problems of each FinChain leaf (domain × level) "
              "in its seeded stratified order, spread over the leaf's templates (finchain_sample_seed, default 0).",
              file=sys.stderr)


@contextmanager
def _index_only_ours(args: Any) -> Iterator[None]:
    """Let lm-eval index only FinChain's folder when every requested task is one of ours.

    Why: lm-eval's ``run`` indexes its own 14,000 task YAML files before it looks at ``--tasks`` (about 8 s on
    two cores, a third of a small FinChain run), though our names are all in ``--include_path``. Its config
    looks ``TaskManager`` up in ``lm_eval.tasks`` at call time, so for the run the name holds a subclass that
    skips the built-in folder. Anything else (another task, a pattern, a YAML path, an ``install``-ed copy)
    runs exactly as lm-eval would."""
    import lm_eval.tasks as tasks_module

    base = tasks_module.TaskManager
    names = [n for item in (getattr(args, "tasks", None) or []) for n in str(item).split(",") if n]
    if (getattr(args, "command", None) != "run" or getattr(args, "include_path", None) != TASKS_DIR or not names
            or not set(names) <= set(base(include_path=TASKS_DIR, include_defaults=False).all_tasks)):
        yield
        return

    class OursOnly(base):  # type: ignore[valid-type,misc]
        def __init__(self, *a: Any, include_defaults: bool = False, **kw: Any) -> None:
            super().__init__(*a, include_defaults=include_defaults, **kw)

    tasks_module.TaskManager = OursOnly
    try:
        yield
    finally:
        tasks_module.TaskManager = base


# -- secrets ----------------------------------------------------------------------------------------
def secret_values(args: Any) -> set[str]:
    """Values of secret-looking keys in ``--model_args`` / ``--metadata`` (and a ``--config`` file)."""
    sources = [getattr(args, "model_args", None), getattr(args, "metadata", None)]
    config = getattr(args, "config", None)
    if config and Path(config).exists():
        loaded = _config_file(Path(config))  # before importing lm-eval: a bad file costs nothing
        from lm_eval.utils import simple_parse_args_string

        for key in ("model_args", "metadata"):
            value = loaded.get(key)
            sources.append(simple_parse_args_string(value) if isinstance(value, str) else value)
    given = {str(v) for src in sources if isinstance(src, dict) for k, v in src.items()
             if is_secret_name(k) and v is not None and len(str(v)) >= 4}
    return given | configured_secrets(given)  # and the environment's keys, which a server may echo back


def _config_file(path: Path) -> dict:
    """A ``--config`` file's options: a regular file only (a FIFO or a device is refused at once), valid YAML read
    with the safe loader, a mapping; anything else is one :class:`UnreadableFile` line naming the file."""
    import yaml

    from finchain_tasks.plumbing.safe_files import UnreadableFile, expect, read_text

    text = read_text(path, max_bytes=64 << 20)
    try:
        loaded = yaml.safe_load(text)
    except yaml.YAMLError as exc:
        raise UnreadableFile(path, f"not valid YAML ({' '.join(str(exc).split())[:200]})") from None
    except RecursionError:
        raise UnreadableFile(path, "nested too deeply to be read") from None
    return expect(loaded or {}, dict, str(path), "the file")


def redact(text: str, secrets: set[str]) -> str:
    """``text`` with each secret (also in its JSON-escaped form) replaced by ``<redacted>``."""
    forms = {form for s in secrets for form in (s, json.dumps(s)[1:-1]) if form}
    for form in sorted(forms, key=len, reverse=True):
        text = text.replace(form, REDACTED)
    return text


class _Redacting:
    """A text stream that passes everything through ``stream`` with the secrets redacted."""

    def __init__(self, stream: Any, secrets: set[str]) -> None:
        self._stream, self._secrets = stream, secrets

    def write(self, text: str) -> int:
        self._stream.write(redact(text, self._secrets))
        return len(text)

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


def _output_dir(output_path: str | None) -> Path | None:
    if not output_path:
        return None
    path = Path(output_path)
    return path.parent if path.suffix == ".json" else path


def _snapshot(root: Path | None) -> dict[Path, tuple[int, int]]:
    """(mtime, size) of the regular files under ``root``, never through a link out of it: scrubbing rewrites
    files, so it must not reach one elsewhere (nor open a FIFO)."""
    if root is None or not root.is_dir():
        return {}
    from finchain_tasks.plumbing.safe_files import walk

    return {p: (p.stat().st_mtime_ns, p.stat().st_size) for p in walk(root).files}


def scrub(root: Path | None, before: dict[Path, tuple[int, int]], secrets: set[str]) -> list[Path]:
    """Replace every secret value in the files written or changed under ``root`` since ``before``."""
    if root is None or not secrets or not root.is_dir():
        return []
    from finchain_tasks.plumbing.safe_files import UnreadableFile, read_text

    touched = []
    for path, stamp in _snapshot(root).items():
        if before.get(path) == stamp:
            continue
        try:
            text = read_text(path, errors="surrogateescape")
        except UnreadableFile:  # swapped for a FIFO or device since the walk: nothing of ours to scrub
            continue
        clean = redact(text, secrets)
        if clean != text:
            path.write_text(clean, "utf-8", errors="surrogateescape")
            touched.append(path)
    return touched


# -- install / uninstall ------------------------------------------------------------------------------
def lm_eval_tasks_dir() -> Path:
    """lm-eval's own tasks folder (found without importing lm-eval)."""
    spec = importlib.util.find_spec("lm_eval.tasks")
    if spec is None or not spec.submodule_search_locations:
        raise RuntimeError("lm-eval is not installed: pip install 'finchain-tasks[lm-eval]'")
    return Path(list(spec.submodule_search_locations)[0])


def installed(target: Path | None = None) -> bool:
    try:
        return (Path(target or lm_eval_tasks_dir()) / INSTALL_DIR / MANIFEST).is_file()
    except RuntimeError:
        return False


def install(target: Path | None = None) -> tuple[Path, list[Path]]:
    """Write one stub per shipped YAML file into ``<target>/finchain_tasks``; returns (folder, files)."""
    root = Path(target or lm_eval_tasks_dir()) / INSTALL_DIR
    if root.exists():
        if not (root / MANIFEST).is_file():
            raise RuntimeError(f"{root} exists and was not written by `finchain lm-eval install`: not touching it")
        uninstall(target)
    sources = sorted(Path(TASKS_DIR).rglob("*.yaml"))
    if not sources:
        raise RuntimeError(f"no task YAML in {TASKS_DIR}: run python -m finchain_tasks.lm_eval.build")
    dirs = sorted({p.parent.relative_to(TASKS_DIR).as_posix() for p in sources} - {"."})
    root.mkdir(parents=True)
    written = []
    for src in sources:
        dest = root / src.relative_to(TASKS_DIR)
        dest.parent.mkdir(parents=True, exist_ok=True)
        dest.write_text(f"# finchain-tasks {finchain_tasks.__version__}: written by `finchain lm-eval install`, "
                        f"removed by `finchain lm-eval uninstall`.\ninclude: {json.dumps(str(src))}\n", "utf-8")
        written.append(dest)
    manifest = {"package_version": finchain_tasks.__version__, "source": TASKS_DIR, "dirs": dirs,
                "files": [p.relative_to(root).as_posix() for p in written]}
    (root / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n", "utf-8")
    return root, written


def uninstall(target: Path | None = None) -> tuple[Path, list[Path]]:
    """Remove exactly the files the manifest lists, then the folders it created if they are empty."""
    root = Path(target or lm_eval_tasks_dir()) / INSTALL_DIR
    manifest_path = root / MANIFEST
    if not manifest_path.is_file():
        return root, []
    manifest = json.loads(manifest_path.read_text("utf-8"))
    removed = []
    for rel in manifest.get("files", []):
        path = root / rel
        if path.is_file():
            path.unlink()
            removed.append(path)
    manifest_path.unlink()
    for rel in sorted(manifest.get("dirs", []), key=lambda d: d.count("/"), reverse=True) + ["."]:
        folder = root / rel
        if folder.is_dir() and not any(folder.iterdir()):
            folder.rmdir()
    return root, removed


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
