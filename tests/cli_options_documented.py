#!/usr/bin/env python3
"""tests/cli_options_documented.py LFA MAN_DIR [--plant CMD:OPTION]...

Every option a command accepts is documented, in its `--help` and in its
man page (ctest cli_options_documented). What a command accepts is read
from the sources of cli/, never from the help text:

- the commands: the dispatch of cli/main.c (`strcmp(argv[1], "dump") == 0)
  return lfa_cli_dump(...)`), and the file of cli/ that defines each function;
- a command whose file calls lfa_cli_parse("CMD", ...): the option table
  passed to it (`{"--json", LFA_CLI_FLAG, ...}`);
- a command that parses by hand: every option literal the file compares an
  argument with (`strcmp(argv[i], "--rows")`). When one file serves several
  commands (cli/commit.c: track and invalidate), an option belongs to each
  command that does not refuse it as unknown, and to at least one.

Each option must then appear, as a word, in `LFA CMD --help` and in
MAN_DIR/lfa-CMD.1 (the roff text, and the page as `man -l` renders it when
man is installed), and LFA must accept it: run with it and a value
on a dataset that does not exist, the command may fail
for any reason but that option (never "unexpected argument" or "unknown
option" naming it). `lfa --help` must list every command, verify's with
--since-last and dump's with --rows, and MAN_DIR/lfa.1 name each lfa-CMD(1).

--plant CMD:OPTION adds an option CMD does not have, as if its source
declared it: the run must then fail (ctest cli_options_refuses_undocumented).
"""
import glob
import os
import re
import shutil
import subprocess
import sys
import tempfile

SKIP = {"--help", "-h"}  # lfa_cli_parse and every hand parser take these alike
# Arguments before the option under test that make each command stop at
# once after parsing, touching nothing: a DATASET or scenario that does not
# exist, or a value the command refuses. An option equal to one of these
# replaces it.
CONTEXT = {
    "conformance": ["--suite", "no-such-suite"],
    "explore": ["--mode", "no-such-mode"],
    "run": ["no-such.json", "out"],
    "adapter": ["no-such.json", "out"],
    "sample": [],
}
DATASET_CONTEXT = ["no-such.lance"]

fails = []


def fail(msg):
    fails.append(msg)
    print("FAIL: " + msg)


def read(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return f.read()


def commands():
    """{command: file of cli/ that defines its function}, from main.c."""
    main = read("cli/main.c")
    found = dict(re.findall(r'strcmp\(argv\[1\], "([a-z-]+)"\) == 0\) return (lfa_cli_[a-z_]+)\(', main))
    files = {}
    for cmd, func in found.items():
        where = [f for f in sorted(glob.glob("cli/*.c")) if re.search(r"^int " + func + r"\(", read(f), re.M)]
        if len(where) != 1:
            fail(f"{cmd}: {func} is defined in {len(where)} files of cli/")
            continue
        files[cmd] = where[0]
    if not files:
        fail("no command found in cli/main.c")
    return files


def table_options(text):
    """{command: [options]} of every lfa_cli_parse("CMD", ..., opts, ...)
    call, its table the nearest `lfa_cli_option NAME[] = {...};` before it."""
    out = {}
    for m in re.finditer(r'lfa_cli_parse\("([a-z-]+)"', text):
        starts = [t.start() for t in re.finditer(r"lfa_cli_option \w+\[\] =", text[:m.start()])]
        if not starts:
            fail(f'lfa_cli_parse("{m.group(1)}", ...) with no option table before it')
            continue
        table = text[starts[-1]:text.index("};", starts[-1])]
        out.setdefault(m.group(1), []).extend(re.findall(r'\{"(-[^"]+)",\s*LFA_CLI_', table))
    return out


def hand_options(text):
    return sorted(set(re.findall(r'strcmp\([a-z_]+(?:\[[a-z_ +0-9]+\])?, "(-[-a-z]+)"\)', text)) - SKIP)


def run(lfa, args, cwd):
    try:
        r = subprocess.run([lfa, *args], cwd=cwd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                           stderr=subprocess.PIPE, timeout=60)
    except subprocess.TimeoutExpired:
        return None, ""
    return r.returncode, (r.stdout + r.stderr).decode("utf-8", errors="replace")


def refused(out, opt):
    return re.search(r"(unexpected argument|unknown option) '" + re.escape(opt) + "'", out) is not None


def accepted(lfa, cmd, opt, cwd):
    """Whether `lfa CMD` takes opt, given with a value ("1": a flag then
    leaves an extra argument, which is a different refusal). Without one,
    a hand parser may say a value is missing before it looks at the name."""
    context = CONTEXT.get(cmd, DATASET_CONTEXT)
    if opt in context:
        k = context.index(opt)
        context = context[:k] + context[k + 2:]
    args = [cmd, *context, opt, "1"]
    rc, out = run(lfa, args, cwd)
    if rc is None:
        fail(f"`lfa {' '.join(args)}` did not stop within 60 s")
    elif rc < 0 or re.search(r"Sanitizer|runtime error:", out):
        fail(f"`lfa {' '.join(args)}` crashed (exit {rc}): {out.strip()[:300]}")
    return not refused(out, opt)


def word(opt, text):
    return re.search(r"(?<![\w-])" + re.escape(opt) + r"(?![\w-])", text) is not None


def roff_text(roff):
    """The words of a roff page, its escapes read back: \\- is -, \\e is \\."""
    text = re.sub(r"\\f[BIRP]", "", roff).replace("\\-", "-").replace("\\e", "\\").replace("\\&", "")
    return "\n".join(l for l in text.split("\n") if not l.startswith((".\\\"", ".TH")))


def rendered(page):
    if shutil.which("man") is None:
        return None
    env = dict(os.environ, MANWIDTH="400", LC_ALL="C", MAN_KEEP_FORMATTING="")
    r = subprocess.run(["man", "-P", "cat", "-l", page], stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    if r.returncode != 0:
        fail(f"man -l {page}: exit {r.returncode}: {r.stderr.decode(errors='replace').strip()}")
        return ""
    return re.sub(r".\x08", "", r.stdout.decode("utf-8", errors="replace"))


def main():
    args = sys.argv[1:]
    if len(args) < 2:
        sys.exit(__doc__)
    lfa, man_dir = os.path.abspath(args[0]), args[1]
    plants = [a.split(":", 1) for k, a in enumerate(args[2:]) if k % 2 == 1 and args[2 + k - 1] == "--plant"]
    files = commands()

    # What each command accepts, from its source.
    options, by_file = {}, {}
    for cmd, path in files.items():
        by_file.setdefault(path, []).append(cmd)
    cwd = tempfile.mkdtemp(prefix="lfa-options-")
    try:
        for path, cmds in by_file.items():
            text = read(path)
            tables = table_options(text)
            if all(c in tables for c in cmds):
                for c in cmds:
                    options[c] = sorted(set(tables[c]) - SKIP)
                continue
            literals = hand_options(text)
            for c in cmds:
                options[c] = literals if len(cmds) == 1 else [o for o in literals if accepted(lfa, c, o, cwd)]
            if len(cmds) > 1:
                for o in literals:
                    if not any(o in options[c] for c in cmds):
                        fail(f"{path} compares arguments with {o}, but none of {', '.join(cmds)} accepts it")
        for cmd, opt in plants:
            options.setdefault(cmd, []).append(opt)

        # The front door lists every command.
        rc, top = run(lfa, ["--help"], cwd)
        entries = {}
        for m in re.finditer(r"^  ([a-z-]+)\b(.*(?:\n {3,}.*)*)", top, re.M):
            entries[m.group(1)] = m.group(0)
        for cmd in files:
            if cmd not in entries:
                fail(f"`lfa --help` does not list {cmd}")
        for cmd, opt in (("verify", "--since-last"), ("dump", "--rows")):
            if cmd in entries and not word(opt, entries[cmd]):
                fail(f"`lfa --help` does not mention {cmd} {opt}")
        front = os.path.join(man_dir, "lfa.1")
        front_text = roff_text(read(front)) if os.path.exists(front) else ""
        for cmd in files:
            if not re.search(r"lfa-" + re.escape(cmd) + r" ?\(1\)", front_text):
                fail(f"{front} does not name lfa-{cmd}(1)")

        # Each option in the help, the man page, and accepted.
        n = 0
        for cmd in sorted(options):
            rc, helped = run(lfa, [cmd, "--help"], cwd)
            if rc != 0:
                fail(f"`lfa {cmd} --help` exited {rc}")
            page = os.path.join(man_dir, f"lfa-{cmd}.1")
            if not os.path.exists(page):
                fail(f"{cmd}: no man page {page}")
                continue
            roff, shown = roff_text(read(page)), rendered(page)
            for opt in options[cmd]:
                n += 1
                if not word(opt, helped):
                    fail(f"{cmd}: {opt} is not in `lfa {cmd} --help`")
                if not word(opt, roff):
                    fail(f"{cmd}: {opt} is not in {page}")
                if shown is not None and not word(opt, shown):
                    fail(f"{cmd}: {opt} is not in {page} as man renders it")
                if not accepted(lfa, cmd, opt, cwd):
                    fail(f"{cmd}: `lfa {cmd}` refuses {opt} as unknown")
    finally:
        shutil.rmtree(cwd, ignore_errors=True)
    if fails:
        print(f"{len(fails)} failed")
        return 1
    print(f"cli_options_documented: {len(options)} commands, {n} options, each in --help and the man page"
          f"{' (as man renders it too)' if shutil.which('man') else ''}, and accepted")
    return 0


if __name__ == "__main__":
    sys.exit(main())
