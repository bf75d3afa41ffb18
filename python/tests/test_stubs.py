"""The type stubs ship with the package and name what the compiled module has, and no more."""
import ast
import pathlib
import types

import tumble


def stub_tree():
    package = pathlib.Path(tumble.__file__).parent
    assert (package / "py.typed").is_file()
    return ast.parse((package / "__init__.pyi").read_text())


def test_the_stubs_name_every_public_item_and_method():
    tree = stub_tree()
    top = {n.name for n in tree.body if isinstance(n, (ast.ClassDef, ast.FunctionDef))}
    # The compiled module itself is a submodule of the package.
    public = {n for n in dir(tumble)
              if not n.startswith("_") and not isinstance(getattr(tumble, n), types.ModuleType)}
    assert top == public, (top ^ public)
    for node in tree.body:
        if not isinstance(node, ast.ClassDef) or node.name not in ("Scene", "Simulation"):
            continue
        cls = getattr(tumble, node.name)
        stubbed = {f.name for f in node.body if isinstance(f, ast.FunctionDef)} - {"__init__"}
        actual = {n for n in dir(cls) if not n.startswith("_")}
        assert stubbed == actual, (node.name, stubbed ^ actual)
