"""Runs the ```python block of README.md's `## Python` section, as a reader would paste it, from
the repository's root; any error fails it with the README's line named. `--without-pandas` runs
it as on an install without pandas, where it is installed (`import pandas` then fails).

    python .ci/readme_python.py [--without-pandas] [README.md]
"""
import os
import pathlib
import re
import sys
import traceback

root = pathlib.Path(__file__).resolve().parents[1]
args = sys.argv[1:]
without_pandas = "--without-pandas" in args
args = [a for a in args if a != "--without-pandas"]
readme = pathlib.Path(args[0]) if args else root / "README.md"
if without_pandas:
    sys.modules["pandas"] = None
text = readme.read_text(encoding="utf-8")

# The section runs from its heading to the next heading of the same level.
section = re.search(r"^## Python[ \t]*\n(.*?)(?=^## |\Z)", text, re.S | re.M)
if section is None:
    sys.exit(f"{readme}: no `## Python` section")
blocks = list(re.finditer(r"^```python[ \t]*\n(.*?)^```[ \t]*$", section.group(1), re.S | re.M))
if len(blocks) != 1:
    sys.exit(f"{readme}: the `## Python` section has {len(blocks)} ```python blocks, not one")
code = blocks[0].group(1)
# Line numbers in tracebacks are the README's own.
first_line = text[: section.start(1) + blocks[0].start(1)].count("\n") + 1
source = "\n" * (first_line - 1) + code

os.chdir(readme.resolve().parent)
last_line = first_line + code.count("\n") - 1
pandas = "without pandas" if without_pandas else "as installed"
print(f"{readme}: running the Python block (lines {first_line}-{last_line}, {pandas})")
try:
    exec(compile(source, str(readme), "exec"), {"__name__": "__main__"})
except BaseException:
    traceback.print_exc()
    sys.exit(f"{readme}: the `## Python` block failed (the traceback above names its line)")
print(f"{readme}: the Python block ran")
