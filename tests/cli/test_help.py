# SPDX-License-Identifier: MIT OR Apache-2.0
"""`merkle help [COMMAND [SUBCOMMAND]]`: the command list without COMMAND, else exactly what
`merkle COMMAND [SUBCOMMAND] --help` prints (stdout, exit 0) for every command that
`merkle --help` lists; an unknown command is a usage error (exit 2) naming it."""
import os
import re
import sys
import unittest

sys.path.insert(0, os.path.dirname(__file__))
from cliutil import run  # noqa: E402


def commands():
    rc, out, _ = run(["--help"])
    assert rc == 0
    names = re.findall(r"^  ([a-z]+) ", out.decode(), re.M)
    assert len(names) >= 10, names
    return names


class Help(unittest.TestCase):
    def test_help_alone_is_the_command_list(self):
        self.assertEqual(run(["help"]), run(["--help"]))

    def test_help_command_is_command_help(self):
        for name in commands():
            with self.subTest(command=name):
                rc, out, err = run(["help", name])
                self.assertEqual((rc, err), (0, b""))
                self.assertEqual((rc, out, err), run([name, "--help"]))
                self.assertIn(b"merkle " + name.encode(), out)

    def test_help_subcommand(self):
        for args in (["trie", "prove"], ["clvm", "serialize"]):
            self.assertEqual(run(["help"] + args), run(args + ["--help"]))

    def test_unknown_command(self):
        rc, out, err = run(["help", "nope"])
        self.assertEqual(rc, 2)
        self.assertEqual(out, b"")
        self.assertIn(b"merkle: help: unknown command 'nope'", err)


if __name__ == "__main__":
    unittest.main(verbosity=2)
