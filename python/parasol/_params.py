"""Keyword arguments as the keys a solver declares, and the runs they make.

A solver function whose solver has no host API taking arrays (laplace3d, montecarlo, coulomb)
is a run of the command line's driver: its keyword arguments become overrides of the solver's
declared keys (kernels/declaration.hpp, `parasol keys <solver>`), which read and check them as
they read a parameter file. So a keyword's name, type, default, unit, range and help are the
key's, written once beside the solver; here is only which keyword sets which key.
"""

import math
import os
import re
import tempfile
import textwrap

from ._parasol import _run, keys as _declared_keys


def _toml_string(text):
    escaped = text.replace("\\", "\\\\").replace('"', '\\"')
    return '"' + "".join(c if c.isprintable() else "\\u%04x" % ord(c) for c in escaped) + '"'


def thread_count(function, threads):
    """threads= as the CPU solvers take it: 0 for auto (None), else a positive integer."""
    if threads is not None and (isinstance(threads, bool) or int(threads) != threads
                                or threads < 1):
        raise ValueError("%s: threads: expected a positive integer or None (auto), got %r"
                         % (function, threads))
    return int(threads or 0)


def toml_value(key, value):
    """An override's value as TOML, as `parasol run FILE key=value` reads it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, (str, os.PathLike)):
        return _toml_string(os.fspath(value))
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(toml_value(key, v) for v in value) + "]"
    if hasattr(value, "item") and getattr(value, "ndim", None) == 0:  # a NumPy scalar
        return toml_value(key, value.item())
    if hasattr(value, "tolist"):  # a NumPy array: a TOML array
        return toml_value(key, value.tolist())
    raise TypeError(
        "run: override %s has type %s; expected a bool, int, float, str or a list of them"
        % (key, type(value).__name__))


class Keywords:
    """Which keyword argument of `function` sets which key of `solver`.

    Every declared key is a keyword, named by the key's last part ("iteration.tolerance":
    tolerance) unless `renamed` names it otherwise; `taken` lists the keys a function sets from
    arguments of its own (laplace3d.solve's shape sets grid.nx, ny and nz), which are no
    keywords. Two keys of one name, unless renamed apart, are an error here, at import.
    """

    def __init__(self, solver, function, renamed=None, taken=()):
        self.solver = solver
        self.function = function
        renamed = dict(renamed or {})
        self.declared = {}
        for k in _declared_keys(solver):
            self.declared.setdefault(k["key"], k)  # a key both models declare is one keyword
        self.key_of = {}
        for key in self.declared:
            if key in taken or key.startswith("sweep."):  # `parasol sweep`'s, not a run's
                continue
            keyword = renamed.get(key, key.rsplit(".", 1)[-1])
            if keyword in self.key_of and self.key_of[keyword] != key:
                raise RuntimeError("%s: keyword %s would set both %s and %s; rename one"
                                   % (function, keyword, self.key_of[keyword], key))
            self.key_of[keyword] = key
        for key in list(renamed) + list(taken):
            if key not in self.declared:
                raise RuntimeError("%s: %s is not a key %s declares" % (function, key, solver))

    def overrides(self, keywords):
        """{key: (argument, value)} of the keyword arguments given (None: the key's default)."""
        out = {}
        for keyword, value in keywords.items():
            if keyword not in self.key_of:
                raise TypeError("%s: unexpected keyword argument %r; expected one of %s"
                                % (self.function, keyword, ", ".join(sorted(self.key_of))))
            if value is not None:
                out[self.key_of[keyword]] = (keyword, value)
        return out

    def doc(self):
        """The keywords' lines of a docstring, from the keys' declarations."""
        lines = []
        for keyword, key in sorted(self.key_of.items()):
            k = self.declared[key]
            facts = [key]
            if k["unit"]:
                facts.append(k["unit"])
            if k["values"]:
                facts.append(k["values"])
            facts.append("required" if k["default"] is None else "default " + k["default"])
            if k["read_when"]:
                facts.append("read with " + k["read_when"])
            if k["gpu_only"]:
                facts.append("GPU only")
            lines.append(textwrap.fill("%s (%s): %s" % (keyword, "; ".join(facts), k["help"]),
                                       width=96, initial_indent="    ",
                                       subsequent_indent="        "))
        return "\n".join(lines)

    def run(self, settings, *, backend="auto", check=False, threads=None, files=None):
        """Runs the solver with `settings` ({key: (argument, value)}) and returns the result as
        parasol.run does. `files`: {key: (argument, name, text)}: a file the run reads (an
        atoms file), written beside the parameter file as `name`, the key set to its path.

        An error the keys' reading reports about a key an argument set ("command line:
        grid.nx: expected ...") is raised naming the argument: "laplace3d.solve: shape
        (grid.nx): expected ..."."""
        threads = thread_count(self.function, threads)
        with tempfile.TemporaryDirectory(prefix="parasol-") as folder:
            params = os.path.join(folder, self.solver + ".toml")
            with open(params, "w", encoding="utf-8") as f:
                f.write('solver = "%s"\n' % self.solver)
            settings = dict(settings)
            for key, (argument, name, text) in (files or {}).items():
                path = os.path.join(folder, name)
                with open(path, "w", encoding="utf-8") as f:
                    f.write(text)
                settings[key] = (argument, path)
            assignments = ["%s=%s" % (key, toml_value(key, value))
                           for key, (_, value) in settings.items()]
            # The result's /provenance@command_line: the call, by the keys it set.
            call = "parasol.%s(%s)" % (self.function, ", ".join(assignments))
            try:
                return _run(params, assignments, backend, bool(check), threads, False, call)
            except ValueError as e:
                raise ValueError(self._named(str(e), params, settings)) from None

    def _named(self, message, params, settings):
        """`message` with its source and key as the function and the argument that set it."""
        match = re.match(r"(command line|%s): ([a-z_]+\.[a-z_.]+): (.*)" % re.escape(params),
                         message, re.S)
        if match is None:
            return "%s: %s" % (self.function, message.replace(params + ": ", ""))
        key, rest = match.group(2), match.group(3)
        if key in settings:
            argument = settings[key][0]
        else:
            argument = next((kw for kw, k in self.key_of.items() if k == key), None)
        if argument is None or argument == key:
            return "%s: %s: %s" % (self.function, key, rest)
        return "%s: %s (%s): %s" % (self.function, argument, key, rest)
