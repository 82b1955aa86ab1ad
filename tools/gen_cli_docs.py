#!/usr/bin/env python3
# SPDX-License-Identifier: MIT OR Apache-2.0
"""Write the option lists of merkle(1) and of the shell completions from the option tables.

The tables in cli/ (opts.h) are the one source of every option: `merkle __options` dumps
them, and this script rewrites the generated blocks of

    docs/man/merkle.1.scd      between "; BEGIN GENERATED OPTIONS SPEC, SPEC..." and "; END ..."
    cli/completions/merkle.bash, _merkle, merkle.fish
                               between "# BEGIN GENERATED OPTIONS" and "# END GENERATED OPTIONS"

    tools/gen_cli_docs.py [--merkle BIN] [--source DIR]          rewrite the files
    tools/gen_cli_docs.py --check [--merkle BIN] [--source DIR]  exit 1 (with a diff) when
                                                                 a file differs (ctest)
"""
import argparse
import difflib
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FILE = "<file>"


class Opt:
    def __init__(self, group, short, lng, arg, values, help_, more):
        self.group, self.short, self.lng, self.arg = group, short, lng, arg
        self.values, self.help, self.more = values, help_, more

    def names(self):
        return (["-" + self.short] if self.short else []) + (["--" + self.lng] if self.lng else [])


class Spec:
    def __init__(self, name, summary):
        self.name, self.summary = name, summary
        self.groups = []  # [(group id, [Opt])]

    def options(self, shown_only=False):
        return [o for _, opts in self.groups for o in opts if o.help or not shown_only]


def load(merkle):
    out = subprocess.run([merkle, "__options"], check=True, capture_output=True,
                         text=True).stdout
    commands, specs = [], {}
    for line in out.splitlines():
        f = line.split("\t")
        if f[0] == "command":
            commands.append((f[1], f[2], []))
        elif f[0] == "spec":
            specs[f[1]] = Spec(f[1], f[2])
            commands[-1][2].append(f[1])
        elif f[0] in ("opt", "heading"):
            spec = specs[f[1]]
            if not spec.groups or spec.groups[-1][0] != f[2]:
                spec.groups.append((f[2], []))
            if f[0] == "opt":
                spec.groups[-1][1].append(Opt(f[2], *f[3:9]))
        else:
            raise SystemExit("gen_cli_docs: unexpected dump line %r" % line)
    return commands, specs


# ---------------------------------------------------------------- merkle(1)

def scd_text(text):
    """Plain table text as scdoc: escapes, and option names in bold."""
    t = text.replace("\\", "\\\\").replace("*", "\\*").replace("_", "\\_")
    return re.sub(r"(?<![\w\-\\'])(--?[a-zA-Z][a-zA-Z0-9-]*)", r"*\1*", t)


def wrap_spans(text, width=72):
    """Lines of at most width characters, never broken inside a *bold* or _italic_ span."""
    units, cur = [], []
    for w in text.split(" "):
        cur.append(w)
        opened = " ".join(cur)
        if len(re.findall(r"(?<!\\)\*", opened)) % 2 == 0 and \
                len(re.findall(r"(?<![\\\w])_|_(?![\w])", opened)) % 2 == 0:
            units.append(opened)
            cur = []
    if cur:
        units.append(" ".join(cur))
    lines, line = [], ""
    for u in units:
        if line and len(line) + 1 + len(u) > width:
            lines.append(line)
            line = u
        else:
            line = u if not line else line + " " + u
    if line:
        lines.append(line)
    return lines


def man_head(o):
    heads = []
    if o.short:
        heads.append("*-%s*" % o.short)
    if o.lng:
        heads.append("*--%s*" % o.lng)
    s = ", ".join(heads)
    if o.arg:
        s += " _%s_" % o.arg
    return s


# Words that keep their case at the start of a sentence (names of profiles and algorithms).
NOCAP = {"rfc6962", "sia", "bitcoin", "ssz", "openzeppelin", "md5", "sha1", "sha256", "sha512",
         "blake2b"}


def sentence(text):
    w = re.match(r"[a-z]+(?= )", text)
    if w and w.group(0) not in NOCAP:
        text = text[0].upper() + text[1:]
    return text


def man_block(specs, names, done):
    """The option list of the specs named, leaving out groups an earlier block showed (they
    are named in a closing sentence)."""
    out, here, before, users = [], set(), {}, {}
    for name in names:
        for gid, opts in specs[name].groups:
            shown = [o for o in opts if o.help and o.lng != "help"]
            if gid in done:
                if gid not in here and shown:
                    origin = done[gid]
                    before.setdefault(origin, [])
                    before[origin] += [o for o in shown if o.names() not in
                                       [b.names() for b in before[origin]]]
                    users.setdefault(origin, [])
                    if name not in users[origin]:
                        users[origin].append(name)
                continue
            done[gid] = name
            here.add(gid)
            for o in shown:
                text = scd_text(sentence(o.help)) + "."
                if o.more:
                    text += " " + o.more
                out.append(man_head(o))
                out += ["\t" + line for line in wrap_spans(text)]
                out.append("")
    for origin, opts in before.items():
        listed = ", ".join("*%s*" % n for o in opts for n in o.names())
        who = " and ".join("*merkle %s*" % u for u in users[origin])
        out += wrap_spans("%s also take%s the options of *merkle %s* above: %s."
                          % (who, "" if len(users[origin]) > 1 else "s", origin, listed),
                          76) + [""]
    return out


def gen_man(text, specs):
    done = {}

    def block(m):
        names = [n.strip() for n in m.group(1).split(",")]
        for n in names:
            if n not in specs:
                raise SystemExit("gen_cli_docs: merkle(1) names unknown command %r" % n)
        body = "\n".join(man_block(specs, names, done))
        return "%s\n%s\n%s" % (m.group(0).split("\n")[0], body, "; END GENERATED OPTIONS")

    return re.sub(r"^; BEGIN GENERATED OPTIONS ([^\n]*)\n.*?^; END GENERATED OPTIONS$", block,
                  text, flags=re.S | re.M)


# ---------------------------------------------------------------- completions

def sh_quote(s):
    return "'" + s.replace("'", "'\\''") + "'"


def short_desc(help_):
    """The help text up to its first "; ", at most 60 characters (cut at a word)."""
    d = help_.split("; ")[0] if help_ else ""
    if len(d) <= 60:
        return d
    return d[:57].rsplit(" ", 1)[0].rstrip(",(") + "..."


def gen_bash(commands, specs):
    out = ["# BEGIN GENERATED OPTIONS (tools/gen_cli_docs.py from the option tables in cli/)",
           "_merkle_commands=%s" % sh_quote(" ".join(c for c, _, _ in commands))]
    for cmd, _, names in commands:
        if names != [cmd]:
            subs = " ".join(n.split(" ", 1)[1] for n in names)
            out.append("_merkle_subcommands_%s=%s" % (cmd, sh_quote(subs)))
    out += ["",
            '# The options of a command ("root", "trie root"): "-x" or "--name" for a flag,',
            '# "-x=" or "--name=" for an option that takes a value.',
            "_merkle_command_options()", "{", "    case $1 in"]
    for cmd, _, names in commands:
        for n in names:
            words = [nm + ("=" if o.arg else "")
                     for o in specs[n].options(True) for nm in o.names()]
            out.append("        %s) echo %s ;;" % (sh_quote(n), sh_quote(" ".join(words))))
    out += ["    esac", "}", "",
            "# The values of an option (\"COMMAND OPTION\"): words, or <file> for a file name.",
            "_merkle_option_values()", "{", "    case $1 in"]
    by_values = {}
    for cmd, _, names in commands:
        for n in names:
            for o in specs[n].options(True):
                if o.arg and o.values:
                    for nm in o.names():
                        by_values.setdefault(o.values, []).append("%s %s" % (n, nm))
    for values, keys in by_values.items():
        out.append("        %s)" % " | ".join(sh_quote(k) for k in keys))
        out.append("            echo %s ;;" % sh_quote(values))
    out += ["    esac", "}", "# END GENERATED OPTIONS"]
    return out


def zsh_spec(o):
    desc = short_desc(o.help).replace("\\", "\\\\").replace("[", "\\[").replace("]", "\\]")
    if o.arg:
        action = "_files" if o.values == FILE else ("(%s)" % o.values if o.values else " ")
        tail = "[%s]:%s:%s" % (desc, o.arg.lower(), action)
        forms = ["-%s+" % o.short] if o.short else []
        forms += ["--%s=" % o.lng] if o.lng else []
    else:
        tail = "[%s]" % desc
        forms = o.names()
    if o.lng == "help":
        return "'(- *)'{%s}%s" % (",".join(forms), sh_quote(tail)) if len(forms) > 1 else \
            sh_quote("(- *)" + forms[0] + tail)
    excl = "(%s)" % " ".join(o.names()) if len(forms) > 1 else ""
    if len(forms) > 1:
        return "%s{%s}%s" % (sh_quote(excl), ",".join(forms), sh_quote(tail))
    return sh_quote(forms[0] + tail)


def gen_zsh(commands, specs):
    out = ["# BEGIN GENERATED OPTIONS (tools/gen_cli_docs.py from the option tables in cli/)",
           "_merkle_commands=("]
    for cmd, summary, _ in commands:
        out.append("  %s" % sh_quote("%s:%s" % (cmd, summary)))
    out.append(")")
    for cmd, _, names in commands:
        if names != [cmd]:
            out.append("_merkle_subcommands_%s=(" % cmd)
            for n in names:
                out.append("  %s" % sh_quote("%s:%s" % (n.split(" ", 1)[1], specs[n].summary)))
            out.append(")")
    out += ["", "# _arguments specs of the options of a command (\"root\", \"trie root\").",
            "_merkle_option_specs() {", "  case $1 in"]
    for cmd, _, names in commands:
        for n in names:
            out.append("    (%s) reply=(" % n.replace(" ", "\\ "))
            for o in specs[n].options(True):
                out.append("      %s" % zsh_spec(o))
            out.append("    ) ;;")
    out += ["    (*) reply=() ;;", "  esac", "}", "# END GENERATED OPTIONS"]
    return out


def gen_fish(commands, specs):
    out = ["# BEGIN GENERATED OPTIONS (tools/gen_cli_docs.py from the option tables in cli/)",
           "set -g __merkle_commands %s" % " ".join(c for c, _, _ in commands)]
    for cmd, summary, _ in commands:
        out.append("complete -c merkle -n __merkle_needs_command -f -a %s -d %s"
                   % (cmd, sh_quote(summary)))
    for cmd, _, names in commands:
        if names == [cmd]:
            continue
        for n in names:
            sub = n.split(" ", 1)[1]
            out.append("complete -c merkle -n '__merkle_needs_subcommand %s' -f -a %s -d %s"
                       % (cmd, sub, sh_quote(specs[n].summary)))
    for cmd, _, names in commands:
        for n in names:
            for o in specs[n].options(True):
                line = "complete -c merkle -n %s" % sh_quote("__merkle_using " + n)
                if o.short:
                    line += " -s " + o.short
                if o.lng:
                    line += " -l " + o.lng
                if o.arg:
                    if o.values == FILE:
                        line += " -r -F"
                    else:
                        line += " -x"
                        if o.values:
                            line += " -a %s" % sh_quote(o.values)
                line += " -d %s" % sh_quote(short_desc(o.help))
                out.append(line)
    out.append("# END GENERATED OPTIONS")
    return out


def replace_block(text, lines, path):
    pat = re.compile(r"^# BEGIN GENERATED OPTIONS[^\n]*\n.*?^# END GENERATED OPTIONS\n",
                     re.S | re.M)
    if not pat.search(text):
        raise SystemExit("gen_cli_docs: %s has no generated block" % path)
    return pat.sub(lambda m: "\n".join(lines) + "\n", text, count=1)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--merkle", default=os.environ.get("MERKLE_BIN", "merkle"))
    ap.add_argument("--source", default=os.path.dirname(HERE))
    ap.add_argument("--check", action="store_true",
                    help="only compare: exit 1 with a diff when a file would change")
    a = ap.parse_args()
    commands, specs = load(a.merkle)
    comp = os.path.join(a.source, "cli", "completions")
    def block(gen):
        return lambda text, path: replace_block(text, gen(commands, specs), path)

    targets = [
        (os.path.join(a.source, "docs", "man", "merkle.1.scd"), lambda t, p: gen_man(t, specs)),
        (os.path.join(comp, "merkle.bash"), block(gen_bash)),
        (os.path.join(comp, "_merkle"), block(gen_zsh)),
        (os.path.join(comp, "merkle.fish"), block(gen_fish)),
    ]
    stale = 0
    for path, fn in targets:
        with open(path, encoding="utf-8") as f:
            old = f.read()
        new = fn(old, path)
        if new == old:
            continue
        if a.check:
            stale += 1
            rel = os.path.relpath(path, a.source)
            sys.stdout.writelines(difflib.unified_diff(old.splitlines(True), new.splitlines(True),
                                                       "a/" + rel, "b/" + rel))
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(new)
            print("gen_cli_docs: rewrote %s" % os.path.relpath(path, a.source))
    if stale:
        print("gen_cli_docs: %d file(s) differ from the option tables: run tools/gen_cli_docs.py"
              % stale, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
