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
    """The `crd-cel ...` commands of a shell script (up to a pipe, `&&`, `;` or `>`)."""
    for line in text.replace("\\\n", " ").splitlines():
        for part in re.split(r"\|\||&&|[|;]", line):
            words = shlex.split(part, comments=True)
            if "crd-cel" in words:
                rest = words[words.index("crd-cel") + 1 :]
                yield [w for w in rest if not w.startswith(">")]


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
config = yaml.safe_load((ROOT / "examples/ci/pre-commit-config.yaml").read_text())
for repo in config["repos"]:
    assert {"repo", "rev", "hooks"} <= set(repo), "a repo has repo, rev and hooks"
    for hook in repo["hooks"]:
        if hook["id"] not in hook_ids:
            problems.append(f"pre-commit-config.yaml: unknown hook {hook['id']}")
            continue
        re.compile(hook.get("files", ""))
        entry = shlex.split(hook_ids[hook["id"]]["entry"])
        check_command(f"pre-commit-config.yaml {hook['id']}", entry[1:] + hook.get("args", []))

# The GitHub Actions workflow: jobs with steps, each `uses` or `run`.
workflow = yaml.safe_load((ROOT / "examples/ci/github-actions.yml").read_text())
assert True in workflow or "on" in workflow, "a workflow has `on`"  # PyYAML reads `on` as True
for name, job in workflow["jobs"].items():
    assert "runs-on" in job and job["steps"], f"job {name}: runs-on and steps"
    for step in job["steps"]:
        if ("uses" in step) == ("run" in step):
            problems.append(f"github-actions.yml: a step needs one of uses/run: {step}")
        for words in commands_in_shell(step.get("run", "")):
            check_command(f"github-actions.yml {step.get('name', '')!r}", words)

if problems:
    print("\n".join(f"PROBLEM {p}" for p in problems), file=sys.stderr)
    sys.exit(1)
print("ci files: they parse, and every crd-cel command uses the CLI's real options")
