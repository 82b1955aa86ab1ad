#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Every long option a command's parser accepts is listed by its --help and named in
merkle(1) (issue 15.6: help that helps; the lists must not drift from the parsers).

The accepted options are read from the parsers' `struct option` tables in cli/*.c; the
commands that share a table (root, proof, consistency: root_parse_common) are each checked
against it."""
import glob
import os
import re
import subprocess
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from cliutil import BIN, SRC  # noqa: E402

# parser function -> the commands (argv prefixes) it serves
SERVES = {
    "cmd_sum": [["sum"]], "cmd_check": [["check"]], "cmd_cat": [["cat"]],
    "cmd_audit": [["audit"]], "cmd_dirroot": [["dirroot"]], "cmd_verify": [["verify"]],
    "cmd_trie": [["trie", "root"], ["trie", "prove"]],
    "root_parse_common": [["root"], ["proof"], ["consistency"]],
}
# accepted for compatibility, deliberately not advertised
HIDDEN = {"help", "version", "check"}
# accepted by a shared parser but refused by this command with its own message
REFUSED = {("proof",): {"mpi"}, ("consistency",): {"mpi"}}


def tables():
    out = {}
    for f in sorted(glob.glob(os.path.join(SRC, "cli", "*.c"))):
        s = open(f, encoding="utf-8").read()
        for m in re.finditer(r"struct option (\w+)\[\]\s*=\s*\{(.*?)\};", s, re.S):
            fns = re.findall(r"\n(?:static )?\w[\w \*]*?\b(\w+)\([^;{]*\)\s*\{", s[:m.start()])
            names = set(re.findall(r'\{\s*"([a-z0-9-]+)",\s*(?:no|required|optional)_argument',
                                   m.group(2)))
            out[fns[-1] if fns else "?"] = names
    return out


def help_text(args):
    p = subprocess.run([BIN] + args + ["--help"], capture_output=True, text=True)
    return p.stdout


class TestHelpComplete(unittest.TestCase):
    def test_tables_found(self):
        t = tables()
        for fn in SERVES:
            self.assertIn(fn, t, "parser %s not found in cli/*.c" % fn)

    def test_refused_options_say_so(self):
        for cmd, names in REFUSED.items():
            for name in names:
                p = subprocess.run([BIN] + list(cmd) + ["--" + name], capture_output=True,
                                   text=True, input="")
                self.assertEqual(p.returncode, 2, (cmd, name))
                self.assertIn("--" + name, p.stderr)

    def test_help_lists_every_option(self):
        t = tables()
        for fn, cmds in SERVES.items():
            for cmd in cmds:
                h = help_text(cmd)
                shown = set(re.findall(r"--([a-z0-9][a-z0-9-]*)", h))
                missing = sorted(t[fn] - shown - HIDDEN - REFUSED.get(tuple(cmd), set()))
                self.assertEqual(missing, [], "merkle %s --help does not list %s"
                                 % (" ".join(cmd), ", ".join("--" + m for m in missing)))

    def test_man_page_names_every_option(self):
        man = open(os.path.join(SRC, "docs", "man", "merkle.1.scd"), encoding="utf-8").read()
        named = set(re.findall(r"\*--([a-z0-9][a-z0-9-]*)\*", man))
        t = tables()
        for fn in SERVES:
            missing = sorted(t[fn] - named - HIDDEN)
            self.assertEqual(missing, [], "merkle(1) does not describe %s (parser %s)"
                             % (", ".join("--" + m for m in missing), fn))


if __name__ == "__main__":
    unittest.main()
