# SPDX-License-Identifier: MIT OR Apache-2.0
"""The examples of merkle(1) are true: every command block of the EXAMPLES section is run
with the merkle under test, and the output lines the page shows must be what it prints.

    MERKLE_BIN=build/merkle python3 docs/man/test_examples.py [docs/man/merkle.1.scd]

Commands start with "$ " (a trailing backslash continues the line); the lines after a command
up to the next one are its expected standard output; a command shown without output must
still succeed. Blocks run in order in one scratch directory that holds the example input
files the page names (disk.img, sector.dat).
"""
import os
import re
import subprocess
import sys
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
PAGE = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "merkle.1.scd")
BIN = os.environ.get("MERKLE_BIN", "merkle")


def example_blocks(text):
    """[(command, [expected lines])] of the EXAMPLES section, scdoc escapes undone."""
    sec = re.search(r"^# EXAMPLES\n(.*?)(?=^# )", text, re.S | re.M)
    assert sec, "no EXAMPLES section"
    steps = []
    for block in re.findall(r"^```\n(.*?)^```", sec.group(1), re.S | re.M):
        lines = block.replace("\\\\", "\\").splitlines()
        i = 0
        while i < len(lines):
            line = lines[i]
            assert line.startswith("$ "), "example output without a command: %r" % line
            cmd = line[2:]
            while cmd.endswith("\\"):
                i += 1
                cmd = cmd + "\n" + lines[i]
            i += 1
            out = []
            while i < len(lines) and not lines[i].startswith("$ "):
                out.append(lines[i])
                i += 1
            steps.append((cmd, out))
    return steps


class ManExamples(unittest.TestCase):
    def test_examples_are_true(self):
        with open(PAGE, encoding="utf-8") as f:
            steps = example_blocks(f.read())
        self.assertGreaterEqual(len(steps), 5)
        bindir = os.path.dirname(os.path.abspath(BIN))
        env = dict(os.environ, PATH=bindir + os.pathsep + os.environ.get("PATH", ""))
        with tempfile.TemporaryDirectory() as d:
            for name, size in (("disk.img", 100000), ("sector.dat", 4096)):
                with open(os.path.join(d, name), "wb") as f:
                    f.write(bytes(i % 251 for i in range(size)))
            for cmd, want in steps:
                p = subprocess.run(["bash", "-c", "set -o pipefail; " + cmd], cwd=d, env=env,
                                   capture_output=True, timeout=60)
                self.assertEqual(p.returncode, 0, "%s\n%s" % (cmd, p.stderr.decode()))
                if want:
                    self.assertEqual(p.stdout.decode().splitlines(), want, cmd)


if __name__ == "__main__":
    unittest.main(argv=sys.argv[:1])
