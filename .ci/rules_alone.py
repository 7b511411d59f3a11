"""companion.rules with the standard library alone (docs/rules.md, "The rules library").

Run it with an interpreter that has none of the project's dependencies (`.ci/run` makes a bare
virtual environment and copies in only companion/__init__.py, companion/squares.py and
companion/rules/). It imports companion.rules and every module of the package, fails if
anything outside the standard library got imported, checks that every public function and
method of the library's API shows an example, and runs every doctest of the package with the
standard library's doctest, and those of each --text file (docs/rules.md): at least --min
examples in all. Exit 0 when all of that holds.
"""

from __future__ import annotations

import argparse
import doctest
import importlib
import inspect
import pkgutil
import sys

#: Modules the interpreter had loaded before the check began (site hooks, this script's own).
_AT_START = {m.split(".")[0] for m in sys.modules}
#: Modules whose public functions are the library's API besides companion.rules' own names.
API_MODULES = ("companion.rules.records", "companion.rules.start")


def third_party() -> list[str]:
    """Top-level modules imported since the start that are neither the standard library nor
    the project."""
    names = {m.split(".")[0] for m in sys.modules} - _AT_START
    return sorted(n for n in names if n not in sys.stdlib_module_names and n != "companion")


def _documented(obj: object) -> bool:
    return ">>>" in (inspect.getdoc(obj) or "")


def without_examples() -> list[str]:
    """The public functions, classes, methods and properties of the API with no example."""
    import companion.rules as rules

    owners: list[tuple[str, object]] = [(f"companion.rules.{n}", getattr(rules, n))
                                        for n in rules.__all__]
    for module_name in API_MODULES:
        module = importlib.import_module(module_name)
        owners += [(f"{module_name}.{n}", obj) for n, obj in vars(module).items()
                   if not n.startswith("_") and inspect.isfunction(obj)
                   and obj.__module__ == module_name]
    missing = []
    for name, obj in owners:
        if inspect.isfunction(obj):
            if not _documented(obj):
                missing.append(name)
        elif inspect.isclass(obj) and not issubclass(obj, Exception):
            if not _documented(obj):
                missing.append(name)
            members = {attr: member for klass in reversed(obj.__mro__)
                       if klass.__module__.startswith("companion.rules")
                       for attr, member in vars(klass).items()}  # inherited ones too
            for attr, member in members.items():
                if attr.startswith("_"):
                    continue
                target = member.fget if isinstance(member, property) else member
                if isinstance(target, (classmethod, staticmethod)):
                    target = target.__func__
                if inspect.isfunction(target) and not _documented(target):
                    missing.append(f"{name}.{attr}")
    return missing


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--min", type=int, default=30, help="fewest doctest examples in all")
    parser.add_argument("--text", action="append", default=[],
                        help="a text file whose examples run too (docs/rules.md)")
    args = parser.parse_args()
    import companion.rules

    after_package = third_party()
    for info in pkgutil.walk_packages(companion.rules.__path__, "companion.rules."):
        importlib.import_module(info.name)
    after_modules = third_party()
    if after_package or after_modules:
        print(f"import companion.rules imported {after_package or 'nothing'} outside the "
              f"standard library, its modules {after_modules}", file=sys.stderr)
        return 1
    print("import companion.rules and its modules: standard library only")
    missing = without_examples()
    if missing:
        print(f"{len(missing)} public functions without an example: {', '.join(missing)}",
              file=sys.stderr)
        return 1
    attempted = failed = 0
    modules = sorted(m for m in sys.modules
                     if m in ("companion.rules", "companion.squares")
                     or m.startswith("companion.rules."))
    for name in modules:
        result = doctest.testmod(sys.modules[name])
        attempted += result.attempted
        failed += result.failed
    for path in args.text:
        result = doctest.testfile(path, module_relative=False)
        attempted += result.attempted
        failed += result.failed
    texts = f" and {len(args.text)} text files" if args.text else ""
    print(f"doctests: {attempted} examples in {len(modules)} modules{texts}, {failed} failed")
    if failed or attempted < args.min:
        print(f"doctests must pass, at least {args.min} of them", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
