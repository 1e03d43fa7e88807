"""Check that the built documentation has an API entry for every public name.

Usage: ``python tools/check_api_docs.py docs/_build/html`` after ``sphinx-build``.
Reads the site's ``objects.inv`` and compares it with ``pyad.__all__``, the public
members of ``pyad.Variable`` and ``pyad.autograd.__all__``; exits 1 listing what is
missing.
"""
import pathlib
import sys
import types

from sphinx.util.inventory import InventoryFile

import pyad
import pyad.autograd


def main(build_dir):
    path = pathlib.Path(build_dir) / "objects.inv"
    with open(path, "rb") as f:
        inv = InventoryFile.load(f, "", lambda base, uri: uri)
    documented = set()
    for domain_entries in (inv.data if hasattr(inv, "data") else inv).values():
        documented.update(domain_entries)
    expected = set()
    for name in pyad.__all__:
        value = getattr(pyad, name)
        if name in ("autograd", "nn", "Tensor") or isinstance(value, types.ModuleType):
            continue
        expected.add("pyad." + name)
    expected |= {"pyad.Variable." + n for n in vars(pyad.Variable) if not n.startswith("_")}
    expected |= {"pyad.autograd." + n for n in pyad.autograd.__all__
                 if not hasattr(pyad, n)}
    missing = sorted(expected - documented)
    if missing:
        print("no API entry for %d public names:\n  %s" % (len(missing), "\n  ".join(missing)))
        return 1
    print("API reference covers all %d public names" % len(expected))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1] if len(sys.argv) > 1 else "docs/_build/html"))
