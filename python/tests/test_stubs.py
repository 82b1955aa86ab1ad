# SPDX-License-Identifier: MIT OR Apache-2.0
"""The type stubs (merkle/*.pyi, PEP 561 with py.typed) match the implementation: every public
function, class, method and property of each module is in its stub with the same parameter
names in the same order and the same parameters having defaults, and the stub names nothing
the module lacks. Runs against whichever merkle package is imported (source tree, pip
install, Debian package)."""
import ast
import importlib
import inspect
import os
import unittest

import merkle

PKG = os.path.dirname(merkle.__file__)
MODULES = ["__init__", "_lib", "tree", "proof", "trie", "mdb", "manifest", "clvm", "shape"]


def signature(f):
    a = f.args
    params = [p.arg for p in a.posonlyargs + a.args]
    defaults = params[len(params) - len(a.defaults):] if a.defaults else []
    return (params, sorted(defaults), a.vararg and a.vararg.arg,
            [p.arg for p in a.kwonlyargs], a.kwarg and a.kwarg.arg)


def compiled_signature(mod, name):
    """The signature (as signature() gives it) of a compiled definition (merkle._native) that
    the module's source names only through its base class, else None."""
    obj = importlib.import_module("merkle" if mod == "__init__" else "merkle." + mod)
    for part in name.split("."):
        obj = getattr(obj, part, None)
    if obj is None or not type(obj).__name__.startswith(("builtin_function", "method_descr")):
        return None
    try:
        sig = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    params = [p.name for p in sig.parameters.values()]  # methods: self included
    defaults = sorted(p.name for p in sig.parameters.values() if p.default is not p.empty)
    return (params, defaults, None, [], None)


def public_api(path, stub):
    """{qualified name: signature or 'class'/'value'} of the public top level and classes."""
    tree = ast.parse(open(path).read())
    out = {}

    def public(name):
        return not name.startswith("_") or name in ("__init__", "__len__", "__getitem__",
                                                   "__contains__", "__enter__", "__exit__")

    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and public(node.name):
            out[node.name] = signature(node)
        elif isinstance(node, ast.ClassDef) and not node.name.startswith("_"):
            out[node.name] = "class"
            for m in node.body:
                if isinstance(m, ast.FunctionDef) and public(m.name):
                    prop = any(isinstance(d, ast.Name) and d.id == "property"
                               for d in m.decorator_list)
                    out[node.name + "." + m.name] = "property" if prop else signature(m)
                elif isinstance(m, ast.Assign) and not stub:
                    # kind = property(lambda s: ...): a property in the stub
                    for t in m.targets:
                        if isinstance(t, ast.Name) and not t.id.startswith("_"):
                            out[node.name + "." + t.id] = "property"
    return out


class Stubs(unittest.TestCase):
    def test_py_typed(self):
        self.assertTrue(os.path.exists(os.path.join(PKG, "py.typed")), PKG)

    def test_stubs_match_modules(self):
        for mod in MODULES:
            with self.subTest(module=mod):
                impl = public_api(os.path.join(PKG, mod + ".py"), stub=False)
                stub = public_api(os.path.join(PKG, mod + ".pyi"), stub=True)
                # namedtuple classes are written as classes in the stubs
                for name in set(stub) - set(impl):
                    compiled = compiled_signature(mod, name)
                    if compiled is not None:
                        self.assertEqual(compiled, stub[name], "%s.%s" % (mod, name))
                        continue
                    self.assertTrue(stub[name] == "class" or name.split(".")[0] in stub
                                    and stub[name.split(".")[0]] == "class"
                                    and name.split(".")[0] not in impl,
                                    "%s.pyi declares %s, which %s.py lacks" % (mod, name, mod))
                for name, sig in impl.items():
                    if mod == "_lib" and name.startswith(("Owner.__", "MerkleError.__str")):
                        continue
                    self.assertIn(name, stub, "%s.pyi lacks %s" % (mod, name))
                    if isinstance(sig, tuple) and isinstance(stub[name], tuple):
                        self.assertEqual(stub[name], sig, "%s.%s: stub signature differs"
                                         % (mod, name))
                    elif sig == "property":
                        self.assertEqual(stub[name], "property", "%s.%s" % (mod, name))


if __name__ == "__main__":
    unittest.main(verbosity=2)
