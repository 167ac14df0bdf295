"""ptxas as a check of the interpreter's forms: every form tcgen accepts in the value families
(arithmetic, special_function, logic, comparison, conversion; `tcgen ptx --json --forms`) must also
be accepted by `ptxas -arch=sm_100a`. README.md, "ptxas check".

For each accepted form, the first template of the conformance table whose form it is (run_vectors'
notion: the "* "-marked instruction, else the first) becomes one .entry: its sources loaded from a
param pointer, the template, its destinations stored. One module per family, one ptxas call each
(run in parallel). ptxas reports syntax errors before it checks types and modifiers and stops at the
first kind, so refused entries are dropped and the module is assembled again until it passes. Each
error line maps back to its entry and instruction.

    ptxas_forms.py --tcgen PATH [--table TABLE | --build DIR] [--ptxas PATH] [--keep DIR]
    exit: 0 every accepted form is accepted by ptxas; 1 some are refused (listed); 77 no ptxas.
"""
import argparse
import concurrent.futures
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
FAMILIES = ("arithmetic", "special_function", "logic", "comparison", "conversion")
PLACEHOLDER = re.compile(r"%(\w+):(b8|b16|b32|b64|pred)")
ERROR = re.compile(r"^ptxas \S+, line (\d+); error\s*:\s*(.*)$")


def accepted_forms(tcgen):
    """{"opcode N": family} for every spelled-out form of the value families."""
    out = json.loads(subprocess.run([tcgen, "ptx", "--json", "--forms"], check=True, capture_output=True,
                                    text=True).stdout)
    forms = {}
    for row in out["forms"]:
        if row["family"] not in FAMILIES:
            continue
        for f in row["forms"]:
            op, count = f.rsplit(" ", 1)
            lo, _, hi = count.partition("-")
            for k in range(int(lo), int(hi or lo) + 1):
                forms[f"{op} {k}"] = row["family"]
    return forms


def instructions(tmpl):
    return [i[2:] if i.startswith("* ") else i for i in tmpl.split(" ; ")]


def form_of(insn):
    """run_vectors' count: "opcode N", a d|p pair two operands, a braced vector one."""
    op, _, rest = insn.partition(" ")
    if not rest:
        return f"{op} 0"
    n, depth = 1, 0
    for c in rest:
        depth += (c == "{") - (c == "}")
        n += depth == 0 and c in ",|"
    return f"{op} {n}"


def template_form(tmpl):
    marked = [i[2:] for i in tmpl.split(" ; ") if i.startswith("* ")]
    return form_of(marked[0] if marked else tmpl.split(" ; ")[0])


def read_templates(table):
    """{form: (template, [input names])}: each form's first template."""
    out = {}
    for line in open(table):
        if not line.strip() or line.startswith("#"):
            continue
        tmpl, ins = [f.strip() for f in line.split(" | ")[:2]]
        f = template_form(tmpl)
        if f not in out:
            out[f] = (tmpl, [kv.split("=")[0] for kv in ins.split()])
    return out


def entry(name, tmpl, inputs):
    """The kernel: sources loaded from p_in's 8-byte slots, destinations stored to p_out's. Returns
    (text lines, {line index within the entry: instruction})."""
    ops = []
    for n, t in PLACEHOLDER.findall(tmpl):
        if n not in [o[0] for o in ops]:
            ops.append((n, 1 if t == "pred" else int(t[1:])))
    lines = [f".visible .entry {name}(.param .u64 p_in, .param .u64 p_out)", "{",
             "\t.reg .b32 %cz_t;", "\t.reg .b64 %cz_in, %cz_out;"]
    lines += [f"\t.reg {'.pred' if w == 1 else f'.b{w}'} %{n};" for n, w in ops]
    lines += ["\tld.param.u64 %cz_in, [p_in];", "\tld.param.u64 %cz_out, [p_out];"]
    outs = [o for o in ops if o[0] not in inputs]
    for i, (n, w) in enumerate([o for o in ops if o[0] in inputs]):
        if w == 1:
            lines += [f"\tld.global.u32 %cz_t, [%cz_in+{8 * i}];", f"\tsetp.ne.u32 %{n}, %cz_t, 0;"]
        else:
            lines += [f"\tld.global.b{w} %{n}, [%cz_in+{8 * i}];"]
    where = {}
    for insn in instructions(PLACEHOLDER.sub(r"%\1", tmpl)):
        where[len(lines)] = insn
        lines.append(f"\t{insn};")
    for i, (n, w) in enumerate(outs):
        if w == 1:
            lines += [f"\tselp.u32 %cz_t, 1, 0, %{n};", f"\tst.global.u32 [%cz_out+{8 * i}], %cz_t;"]
        else:
            lines += [f"\tst.global.b{w} [%cz_out+{8 * i}], %{n};"]
    lines += ["\tret;", "}", ""]
    return lines, where


def assemble(ptxas, family, items, workdir):
    """items: [(form, template, inputs)]. Returns {form: [(instruction, error), ...]} of refused ones."""
    refused = {}
    live = list(items)
    for attempt in range(20):
        text = [".version 9.0", ".target sm_100a", ".address_size 64", ""]
        owner = {}  # module line (1-based) -> (form, instruction)
        for k, (form, tmpl, ins) in enumerate(live):
            lines, where = entry(f"t{k}", tmpl, ins)
            base = len(text)
            for i in range(len(lines)):
                owner[base + i + 1] = (form, where.get(i))
            text += lines
        path = os.path.join(workdir, f"{family}.ptx")
        open(path, "w").write("\n".join(text))
        r = subprocess.run([ptxas, "-arch=sm_100a", path, "-o", os.devnull], capture_output=True, text=True)
        if r.returncode == 0:
            return refused, None
        bad = set()
        for line in (r.stdout + r.stderr).splitlines():
            m = ERROR.match(line)
            if not m or int(m.group(1)) not in owner:
                continue
            form, insn = owner[int(m.group(1))]
            refused.setdefault(form, []).append((insn or text[int(m.group(1)) - 1].strip(), m.group(2)))
            bad.add(form)
        if not bad:
            return refused, f"{family}: ptxas failed without a line in a template:\n{r.stdout}{r.stderr}"
        live = [it for it in live if it[0] not in bad]
    return refused, f"{family}: still failing after 20 passes"


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--tcgen", required=True)
    ap.add_argument("--table", help="the conformance table (default: generated into a temporary directory)")
    ap.add_argument("--ptxas", default=shutil.which("ptxas") or (os.path.join(os.path.dirname(shutil.which("nvcc")), "ptxas")
                                                               if shutil.which("nvcc") else None))
    ap.add_argument("--keep", help="write the modules into DIR")
    ap.add_argument("--build", help="a build directory whose python/ holds gmpy2/ml_dtypes (run_conformance.py's)")
    args = ap.parse_args()
    if not args.ptxas or not os.path.exists(args.ptxas):
        print("SKIPPED: no ptxas (nor nvcc) on PATH")
        return 77
    workdir = args.keep or tempfile.mkdtemp(prefix="ptxas_forms_")
    os.makedirs(workdir, exist_ok=True)
    table = args.table
    if not table:
        table = os.path.join(workdir, "table.txt")
        env = dict(os.environ)
        if args.build:
            env["PYTHONPATH"] = os.pathsep.join([os.path.join(args.build, "python")] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
        gen = subprocess.run([sys.executable, os.path.join(HERE, "oracle", "generate.py"), "--out", table], env=env,
                             capture_output=True, text=True)
        if gen.returncode:
            if "ModuleNotFoundError" in gen.stderr:
                print(f"SKIPPED: the oracle cannot run (run ptx_conformance first to install its packages): "
                      f"{gen.stderr.strip().splitlines()[-1]}")
                return 77
            print(gen.stderr)
            return 1
    forms = accepted_forms(args.tcgen)
    templates = read_templates(table)
    by_family = {f: [] for f in FAMILIES}
    missing = []
    for form, family in sorted(forms.items()):
        if form in templates:
            by_family[family].append((form, *templates[form]))
        else:
            missing.append(form)
    refused, errors = {}, []
    with concurrent.futures.ThreadPoolExecutor(max_workers=os.cpu_count() or 2) as pool:
        for got, err in pool.map(lambda fam: assemble(args.ptxas, fam, by_family[fam], workdir), FAMILIES):
            refused.update(got)
            if err:
                errors.append(err)
    checked = sum(len(v) for v in by_family.values())
    print(f"accepted forms: {len(forms)}, checked with ptxas -arch=sm_100a: {checked}, without a template: {len(missing)}")
    for f in missing:
        print(f"  no template: {f}")
    print(f"accepted forms ptxas refuses: {len(refused)}")
    for form in sorted(refused):
        first = refused[form][0]
        print(f"  {form}: {first[0]}  -- {first[1]}")
        for insn, why in refused[form][1:3]:
            print(f"      also: {insn}  -- {why}")
    for e in errors:
        print(f"error: {e}")
    if not args.keep:
        shutil.rmtree(workdir, ignore_errors=True)
    return 1 if refused or errors else 0


if __name__ == "__main__":
    sys.exit(main())
