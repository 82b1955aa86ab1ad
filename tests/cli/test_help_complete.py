#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Every option of the option tables (cli/opts.h; dumped by `merkle __options`) is accepted by
its command's parser, listed by its --help and named in merkle(1); the completions offer it
(issue 15.6 and 13.5: the lists cannot drift from the parsers). The generated blocks of
merkle(1) and of the completions are checked byte for byte by the cli_docs_current test
(tools/gen_cli_docs.py --check)."""
import os
import re
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from cliutil import BIN, SRC  # noqa: E402

# accepted by the root options but refused by these commands with their own message
REFUSED = {("proof",): {"mpi"}, ("consistency",): {"mpi"}}


def dump():
    """{spec name: [(short, long, arg, help)]} from `merkle __options`."""
    out = subprocess.run([BIN, "__options"], capture_output=True, text=True, check=True).stdout
    specs = {}
    for line in out.splitlines():
        f = line.split("\t")
        if f[0] == "spec":
            specs[f[1]] = []
        elif f[0] == "opt":
            specs[f[1]].append((f[3], f[4], f[5], f[7]))
    return specs


def help_text(args):
    return subprocess.run([BIN] + args + ["--help"], capture_output=True, text=True).stdout


class TestHelpComplete(unittest.TestCase):
    def test_every_command_has_options(self):
        specs = dump()
        top = set(re.findall(r"^  ([a-z]+) ", help_text([]), re.M))
        self.assertEqual({s.split(" ")[0] for s in specs}, top)
        for name, opts in specs.items():
            self.assertIn("help", [o[1] for o in opts], name)

    def test_every_option_is_accepted(self):
        """`merkle SPEC --opt [VALUE]` never says the option is unknown (a table too large
        for the parser, or a long name the parser misses, would)."""
        with tempfile.TemporaryDirectory() as d:
            for name, opts in dump().items():
                for short, lng, arg, _ in opts:
                    for form in (["-" + short] if short else []) + ["--" + lng]:
                        args = name.split(" ") + [form] + (["1"] if arg else [])
                        p = subprocess.run([BIN] + args, capture_output=True, input=b"",
                                           cwd=d, timeout=60)
                        err = p.stderr.decode(errors="replace")
                        for bad in ("unrecognized option", "invalid option", "is ambiguous",
                                    "requires an argument"):
                            self.assertNotIn(bad, err, args)

    def test_unknown_option_wording(self):
        """One wording for every command (GNU getopt's, as coreutils): the exit status is
        1 for sum and check (as md5sum), 2 elsewhere."""
        for name in dump():
            args = name.split(" ")
            p = subprocess.run([BIN] + args + ["--no-such-option"], capture_output=True,
                               text=True, input="")
            self.assertEqual(p.returncode, 1 if name in ("sum", "check") else 2, name)
            self.assertEqual(p.stderr, "merkle %s: unrecognized option '--no-such-option'\n"
                             "Try 'merkle %s --help' for more information.\n" % (name, name))
            p = subprocess.run([BIN] + args + ["-Y"], capture_output=True, text=True, input="")
            self.assertEqual(p.stderr, "merkle %s: invalid option -- 'Y'\n"
                             "Try 'merkle %s --help' for more information.\n" % (name, name))

    def test_missing_argument_wording(self):
        for name, opts in dump().items():
            for short, lng, arg, _ in opts:
                if not arg:
                    continue
                p = subprocess.run([BIN] + name.split(" ") + ["--" + lng], capture_output=True,
                                   text=True, input="")
                self.assertEqual(p.returncode, 1 if name in ("sum", "check") else 2, name)
                self.assertIn("merkle %s: option '--%s' requires an argument\n" % (name, lng),
                              p.stderr)
                if short:
                    p = subprocess.run([BIN] + name.split(" ") + ["-" + short],
                                       capture_output=True, text=True, input="")
                    self.assertIn("merkle %s: option requires an argument -- '%s'\n"
                                  % (name, short), p.stderr)

    def test_refused_options_say_so(self):
        for cmd, names in REFUSED.items():
            for name in names:
                p = subprocess.run([BIN] + list(cmd) + ["--" + name], capture_output=True,
                                   text=True, input="")
                self.assertEqual(p.returncode, 2, (cmd, name))
                self.assertIn("--" + name, p.stderr)

    def test_help_lists_every_option(self):
        for name, opts in dump().items():
            h = help_text(name.split(" "))
            for short, lng, arg, text in opts:
                if not text:
                    continue  # accepted, deliberately not advertised
                self.assertIn("--" + lng, h, name)
                self.assertIn(text.split(" ")[0], h, (name, lng))

    def test_man_page_names_every_option(self):
        with open(os.path.join(SRC, "docs", "man", "merkle.1.scd"), encoding="utf-8") as f:
            man = f.read()
        named = set(re.findall(r"\*--([a-z0-9][a-z0-9-]*)\*", man))
        for name, opts in dump().items():
            missing = sorted(o[1] for o in opts if o[3] and o[1] != "help" and o[1] not in named)
            self.assertEqual(missing, [], "merkle(1) does not describe %s of merkle %s"
                             % (", ".join("--" + m for m in missing), name))

    def test_completions_offer_every_option(self):
        comp = os.path.join(SRC, "cli", "completions")
        texts = []
        for name in ("merkle.bash", "_merkle", "merkle.fish"):
            with open(os.path.join(comp, name), encoding="utf-8") as f:
                texts.append(f.read())
        for name, opts in dump().items():
            for short, lng, arg, text in opts:
                if not text:
                    continue
                for t in texts:
                    self.assertRegex(t, r"(--|-l )%s\b" % re.escape(lng), (name, lng))


if __name__ == "__main__":
    unittest.main()
