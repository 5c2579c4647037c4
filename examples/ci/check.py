#!/usr/bin/env python3
"""Checks the CI examples: the YAML files parse, have the shape their tool reads, and every
`crd-cel` command in them names a real subcommand and real options of the CLI.

    python3 examples/ci/check.py [CRD_CEL...]

CRD_CEL is how to run the CLI (default: `cargo run -q -p crd-cel-cli --`). Run by
examples/run-all.sh.
"""

import re
import shlex
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

ROOT = Path(__file__).resolve().parents[2]
CLI = sys.argv[1:] or ["cargo", "run", "-q", "-p", "crd-cel-cli", "--"]
HOOK_KEYS = {"id", "name", "entry", "language", "files", "description", "args", "pass_filenames"}

problems = []
help_texts = {}


def options_of(subcommand):
    """The long and short options `crd-cel SUBCOMMAND --help` lists."""
    if subcommand not in help_texts:
        out = subprocess.run(CLI + [subcommand, "--help"], cwd=ROOT, capture_output=True, text=True)
        if out.returncode != 0:
            problems.append(f"`crd-cel {subcommand} --help` failed: {out.stderr.strip()}")
            help_texts[subcommand] = set()
        else:
            help_texts[subcommand] = set(re.findall(r"(?<![\w-])(--?[a-z][a-z0-9-]*)", out.stdout))
    return help_texts[subcommand]


def check_command(where, words):
    """`words` start after `crd-cel`."""
    if not words or words[0] not in ("check", "validate", "test"):
        problems.append(f"{where}: `crd-cel {' '.join(words)}`: no such subcommand")
        return
    known = options_of(words[0])
    for w in words[1:]:
        option = w.split("=", 1)[0]
        if option.startswith("-") and option != "-" and option not in known:
            problems.append(f"{where}: `crd-cel {words[0]}` has no option {option}")
    print(f"ok  {where}: crd-cel {' '.join(words)}")


def commands_in_shell(text):
    """The `crd-cel ...` commands of a shell script (up to a pipe, `&&`, `;`; redirections
    left out), read as the shell reads quotes: a `|` inside quotes (a jq filter) stays a word."""
    for line in text.replace("\\\n", " ").splitlines():
        lexer = shlex.shlex(line, posix=True, punctuation_chars="|&;<>")
        lexer.whitespace_split = True
        words, redirect = [], False
        for token in list(lexer) + [";"]:
            if token in (">", ">>", "<"):
                redirect = True
            elif set(token) <= set("|&;"):
                if "crd-cel" in words:
                    yield words[words.index("crd-cel") + 1 :]
                words = []
            elif redirect:
                redirect = False  # the redirection's file
            else:
                words.append(token)


def check_rev_step(path, workflow):
    """The step that picks the CLI's commit reads it from Cargo.lock: tried on locks as cargo
    writes a git dependency, and on none (the `run`'s first line: its fallback to the network
    cut off)."""
    steps = [s for job in workflow["jobs"].values() for s in job["steps"] if s.get("id") == "crd-cel-rev"]
    if len(steps) != 1:
        problems.append(f"{path}: one step with id crd-cel-rev")
        return
    pick = steps[0]["run"].splitlines()[0]
    sha = "0123456789abcdef0123456789abcdef01234567"
    for lock, want in (
        (f'[[package]]\nname = "crd-cel"\nversion = "0.1.0"\nsource = "git+https://github.com/crd-cel/crd-cel#{sha}"\n', sha),
        (f'[[package]]\nname = "crd-cel"\nsource = "git+https://github.com/crd-cel/crd-cel?branch=main#{sha}"\n', sha),
        (None, ""),
    ):
        with tempfile.TemporaryDirectory() as d:
            if lock is not None:
                Path(d, "Cargo.lock").write_text(lock)
            got = subprocess.run(["bash", "-e", "-o", "pipefail", "-c", pick + '\nprintf %s "$rev"'],
                                 cwd=d, capture_output=True, text=True)
            if got.returncode != 0 or got.stdout != want:
                problems.append(f"{path}: crd-cel-rev picks {got.stdout!r} (exit {got.returncode}) from {lock!r}, not {want!r}")


# .pre-commit-hooks.yaml: the pre-commit convention (a list of hooks).
hooks = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text())
assert isinstance(hooks, list) and hooks, ".pre-commit-hooks.yaml: a list of hooks"
for hook in hooks:
    for key in ("id", "name", "entry", "language"):
        if key not in hook:
            problems.append(f".pre-commit-hooks.yaml: hook {hook.get('id')} has no {key}")
    if set(hook) - HOOK_KEYS:
        problems.append(f".pre-commit-hooks.yaml: unexpected keys {set(hook) - HOOK_KEYS}")
    if hook.get("language") not in ("system", "rust"):
        problems.append(f".pre-commit-hooks.yaml: {hook['id']}: language {hook.get('language')}")
    re.compile(hook.get("files", ""))
    entry = shlex.split(hook["entry"])
    if entry[0] != "crd-cel":
        problems.append(f".pre-commit-hooks.yaml: {hook['id']} does not run crd-cel")
    check_command(f".pre-commit-hooks.yaml {hook['id']}", entry[1:] + hook.get("args", []))
hook_ids = {h["id"]: h for h in hooks}

# A user's .pre-commit-config.yaml: every hook is one of ours; its args with the entry.
for path in ("examples/ci/pre-commit-config.yaml", "examples/starter/.pre-commit-config.yaml"):
    config = yaml.safe_load((ROOT / path).read_text())
    for repo in config["repos"]:
        assert {"repo", "rev", "hooks"} <= set(repo), f"{path}: a repo has repo, rev and hooks"
        for hook in repo["hooks"]:
            if hook["id"] not in hook_ids:
                problems.append(f"{path}: unknown hook {hook['id']}")
                continue
            re.compile(hook.get("files", ""))
            re.compile(hook.get("exclude", ""))
            entry = shlex.split(hook_ids[hook["id"]]["entry"])
            check_command(f"{path} {hook['id']}", entry[1:] + hook.get("args", []))

# The GitHub Actions workflows: jobs with steps, each `uses` or `run`.
for path in ("examples/ci/github-actions.yml", "examples/starter/.github/workflows/ci.yml"):
    workflow = yaml.safe_load((ROOT / path).read_text())
    assert True in workflow or "on" in workflow, f"{path}: a workflow has `on`"  # PyYAML: `on` is True
    for name, job in workflow["jobs"].items():
        assert "runs-on" in job and job["steps"], f"{path}: job {name}: runs-on and steps"
        for i, step in enumerate(job["steps"]):
            if ("uses" in step) == ("run" in step):
                problems.append(f"{path}: a step needs one of uses/run: {step}")
            label = repr(step["name"]) if "name" in step else f"step {i + 1}"
            for words in commands_in_shell(step.get("run", "")):
                check_command(f"{path} {label}", words)
    check_rev_step(path, workflow)

# The guide's GitHub Actions workflow is the starter's, verbatim (the starter's is the one run).
guide = (ROOT / "runtime/src/guide/ci.md").read_text()
starter_workflow = (ROOT / "examples/starter/.github/workflows/ci.yml").read_text()
if "```yaml\n" + starter_workflow + "```\n" not in guide:
    problems.append("runtime/src/guide/ci.md: its GitHub Actions workflow is not examples/starter/.github/workflows/ci.yml verbatim")

if problems:
    print("\n".join(f"PROBLEM {p}" for p in problems), file=sys.stderr)
    sys.exit(1)
print("ci files: they parse, and every crd-cel command uses the CLI's real options")
