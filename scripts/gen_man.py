#!/usr/bin/env python3
"""scripts/gen_man.py: the man pages, from the built command's own help.

    python3 scripts/gen_man.py LFA OUT_DIR SOURCE_DIR

Runs `LFA --help` and, for every command it lists, `LFA CMD --help`, and
writes OUT_DIR/lfa.1 and OUT_DIR/lfa-CMD.1 (roff, man macros). The text is
the help text itself, so a man page and `--help` never disagree: the
`usage:` lines become the SYNOPSIS, paragraphs stay paragraphs, option
lists become tagged paragraphs, and any other indented block is kept as
it is printed. NAME is the command's line of `lfa --help`; SEE ALSO names
lfa(1), the other pages, and the command's page in SOURCE_DIR/docs/commands/
(the page whose title names `lfa CMD`: a command without one is an error).
Standard library only; nothing here is written by hand per command.
"""
import os
import re
import subprocess
import sys


def run_help(lfa, *args):
    r = subprocess.run([lfa, *args, "--help"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if r.returncode != 0 or not r.stdout:
        sys.exit(f"gen_man: `{' '.join(['lfa', *args, '--help'])}` exited {r.returncode}: {r.stderr.decode(errors='replace')}")
    return r.stdout.decode("utf-8", errors="replace")


def commands(top):
    """(name, usage, summary) of each command in `lfa --help`'s list: a line
    "  NAME ..." at two spaces, its usage continued at a deeper indent, then
    its summary at eight spaces."""
    out, block = [], top.split("\ncommands:\n", 1)[1].split("\n\n", 1)[0]
    for line in block.split("\n"):
        if re.match(r"^  [a-z]", line):
            name = line.split()[0]
            out.append([name, [line.strip()], []])
        elif out and re.match(r"^ {8}\S", line):
            out[-1][2].append(line.strip())
        elif out:
            out[-1][1].append(line.strip())
    if not out:
        sys.exit("gen_man: `lfa --help` lists no command")
    return [(n, u, " ".join(s)) for n, u, s in out]


def esc(text):
    """Roff-safe text: backslashes escaped, hyphens as \\- (so options stay
    ASCII hyphen-minus), and a line starting with . or ' guarded."""
    text = text.replace("\\", "\\e").replace("-", "\\-")
    return "\n".join("\\&" + l if l.startswith((".", "'")) else l for l in text.split("\n"))


OPTION = re.compile(r"^ {2,4}(-\S.*?)(?: {2,}(\S.*))?$")


def options(lines):
    """An indented block that is a list of options ("  --x ARG   what it
    does", continued further in): [(tag, text)], or None when it is not."""
    entries = []
    for line in lines:
        m = OPTION.match(line)
        if m:
            entries.append([m.group(1).strip(), [m.group(2)] if m.group(2) else []])
        elif entries and line.startswith("      "):
            entries[-1][1].append(line.strip())
        else:
            return None
    return [(tag, joined(text)) for tag, text in entries] or None


def joined(lines):
    """An option's lines as one filled paragraph, except that a line
    starting a sentence after one that ends none starts a line of its own
    (a note set below the option's first sentence)."""
    out = []
    for k, line in enumerate(lines):
        if k and re.match(r"^[A-Z]", line) and not re.search(r"[.,;:)]$", lines[k - 1]):
            out.append(".br")
        out.append(esc(line))
    return "\n".join(out)


def body(text):
    """The help text after its usage lines, as roff."""
    out = []
    for para in re.split(r"\n\s*\n", text.strip("\n")):
        lines = para.split("\n")
        opts = options(lines) if lines[0].startswith(" ") else None
        if opts:
            for tag, what in opts:
                out += [".TP", ".B " + esc(tag), what]
        elif all(l.startswith(" ") for l in lines):
            out += [".PP", ".RS 2", ".nf", esc("\n".join(l[2:] if l.startswith("  ") else l for l in lines)), ".fi", ".RE"]
        else:
            out += [".PP", esc("\n".join(lines))]
    return out


def split_usage(text):
    """The `usage:` lines (the first one and those continued below it) and
    the rest of the help."""
    lines = text.strip("\n").split("\n")
    if not lines[0].startswith("usage: "):
        sys.exit(f"gen_man: the help does not start with a usage line: {lines[0]!r}")
    n = 1
    while n < len(lines) and lines[n].startswith(" ") and lines[n].strip():
        n += 1
    usage = [lines[0][len("usage: "):]] + [l.strip() for l in lines[1:n]]
    return usage, "\n".join(lines[n:])


def doc_page(source, cmd):
    folder = os.path.join(source, "docs", "commands")
    for f in sorted(os.listdir(folder)):
        if f.endswith(".md"):
            with open(os.path.join(folder, f), encoding="utf-8") as page:
                title = page.readline()
            if title.startswith("# ") and f"`lfa {cmd}`" in title:
                return f"docs/commands/{f}"
    sys.exit(f"gen_man: no page of docs/commands/ has `lfa {cmd}` in its title")


def header(name, version):
    return [f'.TH {name.upper()} 1 "" "lfa {version}" "lfa manual"',
            ".\\\" Generated by scripts/gen_man.py from `lfa --help`; do not edit.", ".nh", ".ad l"]


def page(name, summary, version, usage, rest, see_also):
    out = header(name, version) + [".SH NAME", f"{esc(name)} \\- {esc(summary)}", ".SH SYNOPSIS", ".nf"]
    out += [esc(u) for u in usage] + [".fi", ".SH DESCRIPTION"] + body(rest)
    out += [".SH SEE ALSO"] + see_also
    return "\n".join(out) + "\n"


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    lfa, out_dir, source = sys.argv[1:]
    os.makedirs(out_dir, exist_ok=True)
    version = subprocess.run([lfa, "--version"], stdout=subprocess.PIPE, check=True).stdout.decode().split()[1]
    top = run_help(lfa)
    cmds = commands(top)
    refs = ", ".join(f".BR lfa\\-{n} (1)" for n, _, _ in cmds)
    written = []
    for name, _, summary in cmds:
        usage, rest = split_usage(run_help(lfa, name))
        others = [f".BR lfa (1),"] + [f".BR lfa\\-{n} (1)," for n, _, _ in cmds if n != name]
        others[-1] = others[-1].rstrip(",")
        see = others + [".PP", esc(f"{doc_page(source, name)} in the lfa sources says more, with examples.")]
        written.append((f"lfa-{name}.1", page(f"lfa-{name}", summary, version, usage, rest, see)))
    # lfa(1): the front door, its command list as tagged paragraphs
    usage, rest = split_usage(top)
    intro, after = rest.split("\ncommands:\n", 1)
    listing, tail = after.split("\n\n", 1)
    out = header("lfa", version) + [".SH NAME", "lfa \\- the Lance Field Assignment toolkit", ".SH SYNOPSIS", ".nf"]
    out += [esc(u) for u in usage] + [".fi", ".SH DESCRIPTION"] + body(intro) + [".SH COMMANDS"]
    for name, cmd_usage, summary in cmds:
        out += [".TP", ".B " + esc(" ".join(cmd_usage)), esc(summary + f" (lfa-{name}(1))")]
    out += body(tail) + [".SH SEE ALSO"] + [r.strip() + "," for r in refs.split(", ")]
    out[-1] = out[-1].rstrip(",")
    out += [".PP", esc("README.md and docs/ in the lfa sources.")]
    written.append(("lfa.1", "\n".join(out) + "\n"))
    for f in os.listdir(out_dir):  # a page of a command that is gone must not linger
        if re.match(r"^lfa(-[a-z-]+)?\.1$", f) and f not in {n for n, _ in written}:
            os.remove(os.path.join(out_dir, f))
    for fname, text in written:
        with open(os.path.join(out_dir, fname), "w", encoding="utf-8") as f:
            f.write(text)


if __name__ == "__main__":
    main()
