"""The checks, by family: `schema` (the JSON Schema layer), `structure` (the typed model: what
Leviath refuses, and references) and `lint` (the graph and the declarations).

Each module declares its rules with its family's registrar from `compiler.rulebook.registry`
and registers the checks that report them; `RuleContext` (`context.py`) is what a check reads.
Defining a rule in a module here is what registers it: `load_rule_modules` imports every
module of the package, so there is no list of modules to keep (docs/architecture.md,
"Adding a rule").
"""

from __future__ import annotations

import importlib
import os


def load_rule_modules(package: str = __name__, folders: "list[str] | None" = None) -> list[str]:
    """Import every module of `package` (this one by default) and of its sub-packages, in
    name order; the names imported. A folder is a sub-package when it has an `__init__.py`."""
    if folders is None:
        folders = list(importlib.import_module(package).__path__)
    loaded = []
    for folder in folders:
        with os.scandir(folder) as entries:
            names = sorted(entry.name for entry in entries)
        for name in names:
            path = os.path.join(folder, name)
            if name.endswith(".py") and name != "__init__.py":
                module = f"{package}.{name[:-3]}"
            elif os.path.isfile(os.path.join(path, "__init__.py")):
                module = f"{package}.{name}"
                importlib.import_module(module)
                loaded += [module, *load_rule_modules(module, [path])]
                continue
            else:
                continue
            importlib.import_module(module)
            loaded.append(module)
    return loaded
