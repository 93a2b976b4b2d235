"""Study files: a base scenario, parameters with grid, zip or seeded random values, seeds and
the outputs to keep, expanded into run points (effective overrides + seed), each with a key.

A study file (TOML)::

    scenario = "../demo.toml"        # relative to the study file
    seeds = [1, 2, 3]                # or { start = 1, count = 10 }
    outputs = ["flows", "radios"]    # tables kept (default: flows, radios)

    [set]                            # fixed overrides of every run
    "simulation.duration" = "60s"

    [grid]                           # every combination
    "wireless.wlan.power_save" = ["cam", "psm", "cc"]
    "link.wired.delay" = ["10ms", "50ms"]

    [zip]                            # advance together (equal lengths)
    "flow.0.bytes" = ["1MB", "5MB"]
    "link.wired.rate" = ["10Mbps", "100Mbps"]

    [random]                         # `samples` draws from a seeded generator
    samples = 4
    seed = 7
    "wireless.wlan.down.loss.p" = { uniform = [0.0, 0.02] }
    "link.wired.delay" = { uniform = [10, 100], unit = "ms" }

The points are the product grid × zip × random × seeds. Values keep their TOML types: an
int stays an int (``flow.0.bytes = 1000000``), a string a string (``"1MB"``), a bool a bool.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import os
import random
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Mapping, Sequence

from wattlab import _core
from wattlab.scenario_units import QUANTITIES
from wattlab.study.profiles import profile_hashes

OUTPUTS = ("flows", "radios", "links", "flow_energy", "sockets", "pages", "objects", "agents", "agent_events", "savings")
"""Tables a study may keep: the ``RunResult`` tables of the same names."""
DEFAULT_OUTPUTS = ("flows", "radios")
TOP_KEYS = {"scenario", "seeds", "outputs", "name", "set", "grid", "zip", "random", "figure"}
RANDOM_KINDS = ("uniform", "loguniform", "int", "choice")
FIGURE_KINDS = ("line", "bar", "scatter")
"""How a ``[[figure]]`` draws ``y``: ``line`` and ``bar`` the mean ± std over the rows of each
point (one per seed), ``scatter`` every row."""
FIGURE_KEYS = ("x", "y", "table", "hue", "facet", "kind", "where", "title")


class StudyError(_core.ScenarioError):
    """A study file is invalid: ``origin``, ``line``, ``column``, ``key``, ``message`` as for a
    scenario's ``ScenarioError`` (of which it is a subclass), and the same ``file:line:col: key
    `k`: message`` text."""

    def __init__(self, origin: str, message: str, key: str | None = None, line: int | None = None, column: int | None = None):
        where = origin + (f":{line}" if line else "") + (f":{column}" if line and column else "")
        super().__init__(f"{where}: " + (f"key `{key}`: " if key else "") + message)
        self.origin, self.line, self.column, self.key, self.message = origin, line, column, key, message


@dataclass(frozen=True)
class Point:
    """One run of a study: its parameter values (typed), its seed, the overrides it runs with
    (the study's fixed ``[set]`` ones, then the parameters) and its key."""

    params: tuple[tuple[str, Any], ...]
    seed: int
    overrides: tuple[str, ...]
    key: str
    columns: tuple[tuple[str, Any], ...] = ()
    """The parameters as stored in the tables: one type per column (ints mixed with floats as
    floats; other mixtures, tables and arrays as their TOML text)."""


class Seeds(Sequence):
    """The seeds ``start, start + 1, ... start + count - 1`` of ``seeds = { start, count }``,
    without a list of them (a study of 10^8 seeds is refused by its size, not built first).
    Equal to the list of the same seeds."""

    def __init__(self, start: int, count: int):
        self.range = range(start, start + count)

    def __len__(self) -> int:
        return len(self.range)

    def __getitem__(self, i):
        return self.range[i]

    def __iter__(self):
        return iter(self.range)

    def __eq__(self, other) -> bool:
        if isinstance(other, Seeds):
            return self.range == other.range
        if isinstance(other, (list, tuple, range)):
            return len(other) == len(self) and all(a == b for a, b in zip(self.range, other))
        return NotImplemented

    def __repr__(self) -> str:
        return f"Seeds(start={self.range.start}, count={len(self.range)})"


@dataclass
class Study:
    """A parsed study: the base scenario's text and origin, and what varies."""

    scenario_text: str
    scenario_origin: str
    seeds: Sequence[int]
    """A list of seeds, or :class:`Seeds` for ``{ start, count }``."""
    outputs: list[str]
    fixed: dict[str, Any] = field(default_factory=dict)
    grid: dict[str, list] = field(default_factory=dict)
    zip: dict[str, list] = field(default_factory=dict)
    random: dict[str, dict] = field(default_factory=dict)
    random_samples: int = 0
    random_seed: int = 0
    name: str = "study"
    origin: str = "<study>"
    text: str | None = None
    """The study file's text, if it was read from one."""
    units: dict[str, str] = field(default_factory=dict)
    """Unit suffix of a random parameter (``ms``): the column holds the number, the override
    gets the number and the unit."""
    figures: list[dict] = field(default_factory=list)
    """The ``[[figure]]`` tables: what ``wattlab report`` draws (``x``, ``y``, ``table``, ``hue``,
    ``facet``, ``kind``, ``where``, ``title``). Not part of :attr:`study_hash`: they change no run."""

    @property
    def param_names(self) -> list[str]:
        """Parameter columns, in order: grid, zip, random (each in file order)."""
        return [*self.grid, *self.zip, *self.random]

    @property
    def scenario_hash(self) -> str:
        return hashlib.sha256(self.scenario_text.encode()).hexdigest()

    @property
    def study_hash(self) -> str:
        """SHA-256 of what defines the study's runs (scenario, fixed overrides, parameters,
        seeds, outputs): the same for a file and the equal dict."""
        doc = {"scenario": self.scenario_hash, "set": self.fixed, "grid": self.grid, "zip": self.zip,
               "random": self.random, "samples": self.random_samples, "random_seed": self.random_seed,
               "seeds": list(self.seeds), "outputs": self.outputs}
        return hashlib.sha256(canonical(doc).encode()).hexdigest()

    @property
    def size(self) -> int:
        """The number of runs (grid × zip × random × seeds), from the lists' lengths alone."""
        n = math.prod(len(v) for v in self.grid.values())
        if self.zip:
            n *= len(next(iter(self.zip.values())))
        if self.random:
            n *= self.random_samples
        return n * len(self.seeds)

    def first_point(self) -> Point:
        """The study's first run point (without expanding the others)."""
        params = {k: v[0] for k, v in self.grid.items()} | {k: v[0] for k, v in self.zip.items()}
        if self.random:
            params |= self._random_rows(1)[0]
        return self.point(params, self.seeds[0])

    def points(self) -> list[Point]:
        """Every run point: grid × zip × random × seeds, in that nesting order."""
        grid_rows = [dict(zip(self.grid, combo)) for combo in itertools.product(*self.grid.values())] if self.grid else [{}]
        zip_len = len(next(iter(self.zip.values()))) if self.zip else 0
        zip_rows = [{k: v[i] for k, v in self.zip.items()} for i in range(zip_len)] if self.zip else [{}]
        rnd_rows = self._random_rows() if self.random else [{}]
        out = []
        for g, z, r in itertools.product(grid_rows, zip_rows, rnd_rows):
            params = {**g, **z, **r}
            for seed in self.seeds:
                out.append(self.point(params, seed))
        return out

    def point(self, params: Mapping[str, Any], seed: int) -> Point:
        """The run point of these parameter values and seed; its key hashes the scenario, the
        overrides, the seed, the outputs and the contents of the profile files it names."""
        sets = {**self.fixed, **params}
        overrides = tuple(f"{k}={toml_value(v, self.units.get(k, '') if k in params else '')}" for k, v in sets.items())
        key_doc = {"scenario": self.scenario_hash, "overrides": list(overrides), "seed": seed, "outputs": sorted(self.outputs)}
        profiles = profile_hashes(self.scenario_text, self.scenario_origin, overrides)
        if profiles:  # (absent otherwise: the keys of studies without profile files are unchanged)
            key_doc["profiles"] = profiles
        key = hashlib.sha256(canonical(key_doc).encode()).hexdigest()[:20]
        cols = tuple((k, self.column_value(k, v)) for k, v in params.items())
        return Point(tuple(params.items()), seed, overrides, key, cols)

    def column_value(self, k: str, v: Any) -> Any:
        """``v`` as stored in parameter ``k``'s column (see :attr:`Point.columns`)."""
        kinds = self._kinds().get(k)
        if kinds == "float" and isinstance(v, int) and not isinstance(v, bool):
            return float(v)
        if kinds == "text" and not isinstance(v, str):
            return toml_value(v)
        return v

    def _kinds(self) -> dict[str, str]:
        if getattr(self, "_kind_cache", None) is None:
            def kind(values: list) -> str:
                ts = {bool if isinstance(x, bool) else type(x) for x in values}
                if ts <= {int} or ts <= {str} or ts <= {bool}:
                    return "same"
                if ts <= {int, float}:
                    return "float"
                return "text"
            rnd = {}
            for k, spec in self.random.items():
                kind_, arg = next(iter(spec.items()))
                rnd[k] = kind(arg) if kind_ == "choice" else ("same" if kind_ == "int" else "float")
            self._kind_cache = {**{k: kind(v) for k, v in self.grid.items()},
                                **{k: kind(v) for k, v in self.zip.items()}, **rnd}
        return self._kind_cache


    def _random_rows(self, n: int | None = None) -> list[dict]:
        """The first ``n`` (default: all) random draws, in order."""
        rng = random.Random(self.random_seed)
        rows = []
        for _ in range(self.random_samples if n is None else min(n, self.random_samples)):
            row = {}
            for k, spec in self.random.items():
                kind, arg = next(iter(spec.items()))
                if kind == "uniform":
                    v = rng.uniform(*arg)
                elif kind == "loguniform":
                    v = math.exp(rng.uniform(math.log(arg[0]), math.log(arg[1])))
                elif kind == "int":
                    v = rng.randint(*arg)
                else:
                    v = arg[rng.randrange(len(arg))]
                if isinstance(v, float) and "digits" in spec:
                    v = round(v, spec["digits"])
                row[k] = v
            rows.append(row)
        return rows


def canonical(obj: Any) -> str:
    """JSON with sorted keys and no spaces: the text hashed for keys."""
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), default=str)


def toml_value(v: Any, unit: str = "") -> str:
    """A Python value as a TOML literal for an override (types kept: 5 → ``5``, "5MB" →
    ``"5MB"``, True → ``true``, ``Duration.ms(20)`` → ``"20ms"``, a dict → an inline table):
    the one place Python values become scenario text."""
    if unit:
        if isinstance(v, bool) or not isinstance(v, (int, float)):
            raise TypeError(f"a unit needs a number, not {v!r}")
        return json.dumps(f"{v!r}{unit}" if isinstance(v, float) else f"{v}{unit}")
    if isinstance(v, QUANTITIES):  # a typed duration, rate or size: its exact scenario text
        return json.dumps(str(v))
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v)  # a JSON string is a valid TOML basic string
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, Mapping):
        return "{ " + ", ".join(f"{json.dumps(str(k))} = {toml_value(x)}" for k, x in v.items()) + " }"
    raise TypeError(f"cannot pass a {type(v).__name__} as a scenario value ({v!r})")


# ---------------------------------------------------------------------------------------------
# Reading a study


def locate(text: str | None, table: str | None, key: str | None) -> tuple[int | None, int | None]:
    """Line and column (1-based) of ``key`` in ``[table]`` (``table`` None: the top level) of a
    study file's text; of the table's header if ``key`` is None. (None, None) if not found."""
    if text is None:
        return None, None
    lines = text.splitlines()
    header = re.compile(r"^\s*\[\s*([^\]]+?)\s*\]\s*(#.*)?$")
    current = None
    for i, line in enumerate(lines, 1):
        m = header.match(line)
        if m:
            current = m.group(1).strip().strip('"')
            if key is None and current == table:
                return i, line.index("[") + 1
            continue
        if current != table or key is None:
            continue
        stripped = line.lstrip()
        for form in (f'"{key}"', f"'{key}'", key):
            if stripped.startswith(form) and stripped[len(form):].lstrip().startswith("="):
                return i, len(line) - len(stripped) + 1
    return None, None


def load(study: str | os.PathLike | Mapping, base_dir: Path | None = None) -> Study:
    """A :class:`Study` from a study file's path or from a dict of the same shape (with a
    ``scenario`` path relative to ``base_dir``, default the current directory). Raises
    :class:`StudyError` naming file, line, column and key."""
    if isinstance(study, Mapping):
        return _from_doc(dict(study), "<study dict>", None, base_dir or Path.cwd())
    path = Path(study)
    origin = str(path)
    if not path.exists():
        raise FileNotFoundError(f"study file not found: {path}")
    text = _read_text(path)
    try:
        doc = tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        m = re.search(r"\(at line (\d+), column (\d+)\)", str(e))
        line, col = (int(m.group(1)), int(m.group(2))) if m else (None, None)
        if m is None and "end of document" in str(e):
            lines = text.splitlines() or [""]
            line, col = len(lines), len(lines[-1]) + 1
        msg = re.sub(r"\s*\(at (line \d+, column \d+|end of document)\)", "", str(e)) or "invalid TOML"
        raise StudyError(origin, f"invalid TOML: {msg}", line=line, column=col) from None
    return _from_doc(doc, origin, text, path.parent)


MAX_STUDY_FILE_BYTES = 16 << 20
"""The largest study file read (16 MiB, as for scenarios)."""


def _read_text(path: Path) -> str:
    """A study file's text: a regular file of at most :data:`MAX_STUDY_FILE_BYTES` of UTF-8,
    else a :class:`StudyError` saying what it is (a directory, a FIFO, where the bad byte is)."""
    from wattlab.study.store import Damaged, read_bounded

    origin = str(path)
    try:
        data = read_bounded(path, MAX_STUDY_FILE_BYTES)
    except Damaged as e:
        raise StudyError(origin, e.reason.replace("a run file may be", "a study file may be")) from None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as e:
        line = data.count(b"\n", 0, e.start) + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        raise StudyError(origin, f"not UTF-8 text (byte 0x{data[e.start]:02x}): save the study file as UTF-8",
                         line=line, column=col) from None


def _int(v: Any) -> bool:
    """True for an int that is not a bool."""
    return isinstance(v, int) and not isinstance(v, bool)


def _what(v: Any) -> str:
    """A value and its TOML type, for messages: ``"1" (a string)``."""
    kind = {bool: "a boolean", int: "an integer", float: "a float", str: "a string"}.get(type(v), f"a {type(v).__name__}")
    return f"{toml_value(v) if isinstance(v, (bool, int, float, str)) else type(v).__name__} ({kind})"


def _seeds(seeds: Any, err) -> Sequence[int]:
    """The study's seeds from ``seeds = [..]``, ``seeds = N`` or ``seeds = { start, count }``
    (a :class:`Seeds`, not a list: it may be huge, and is refused by its size later)."""
    if isinstance(seeds, Seeds):
        return seeds
    if isinstance(seeds, range) and seeds.step == 1 and len(seeds):
        seeds = {"start": seeds.start, "count": len(seeds)}
    if isinstance(seeds, Mapping):
        extra = sorted(set(seeds) - {"start", "count"})
        if extra:
            raise err(f"unknown key `{extra[0]}` in {{ start = S, count = N }}", None, "seeds")
        start, count = seeds.get("start", 1), seeds.get("count")
        if count is None:
            raise err("{ start = S, count = N } needs `count`", None, "seeds")
        for name, v in (("start", start), ("count", count)):
            if not _int(v):
                raise err(f"`{name}` must be an integer, not {_what(v)}", None, "seeds")
        if count < 1 or start < 0 or start + count > 2**64:
            raise err("needs count >= 1 and seeds in [0, 2**64): start >= 0, start + count <= 2**64", None, "seeds")
        return Seeds(start, count)
    if _int(seeds):
        seeds = [seeds]
    if isinstance(seeds, range):
        seeds = list(seeds)
    if not isinstance(seeds, (list, tuple)) or not seeds:
        raise err("must be a non-empty list of integers, or { start = S, count = N }", None, "seeds")
    for x in seeds:
        if not _int(x) or not 0 <= x < 2**64:
            raise err(f"a seed is an integer in [0, 2**64), not {_what(x)}", None, "seeds")
    if len(set(seeds)) != len(seeds):
        raise err("a seed is listed twice", None, "seeds")
    return list(seeds)


def _from_doc(doc: dict, origin: str, text: str | None, base: Path) -> Study:
    def err(message: str, table: str | None = None, key: str | None = None) -> StudyError:
        line, col = locate(text, table, key)
        shown = key if table is None else (f"{table}.{key}" if key else table)
        return StudyError(origin, message, shown, line, col)

    for k in doc:
        if k not in TOP_KEYS:
            raise err(f"unknown key (expected one of {', '.join(sorted(TOP_KEYS))})", None, k)
    scn = doc.get("scenario")
    if scn is None:
        raise StudyError(origin, "no `scenario`: name the base scenario file (relative to the study file)", "scenario")
    if isinstance(scn, os.PathLike):
        scn = str(scn)
    if not isinstance(scn, str):
        raise err(f"must be a path string, not {type(scn).__name__}", None, "scenario")
    scn_path = Path(os.path.normpath(Path(scn) if Path(scn).is_absolute() else base / scn))
    if not scn_path.is_file():
        raise err(f"scenario file not found: {scn_path}", None, "scenario")
    try:
        scn_text = _core.read_scenario(str(scn_path))
    except _core.ScenarioError as e:
        raise err(f"cannot read the scenario: {e}", None, "scenario") from None

    seeds = _seeds(doc.get("seeds", [1]), err)

    outputs = doc.get("outputs", list(DEFAULT_OUTPUTS))
    if isinstance(outputs, str):
        outputs = [outputs]
    if not isinstance(outputs, list) or not outputs or not all(isinstance(o, str) for o in outputs):
        raise err("must be a non-empty list of table names", None, "outputs")
    for o in outputs:
        if o not in OUTPUTS:
            raise err(f"unknown output {o!r} (have: {', '.join(OUTPUTS)})", None, "outputs")

    def table(name: str) -> dict:
        t = doc.get(name, {})
        if not isinstance(t, Mapping):
            raise err("must be a table of \"dotted.key\" = values", None, name)
        return dict(t)

    fixed = table("set")
    for k, v in fixed.items():
        _check_value(v, lambda m, k=k: err(m, "set", k))
    grid = table("grid")
    for k, v in grid.items():
        if not isinstance(v, list) or not v:
            raise err("a grid parameter needs a non-empty list of values", "grid", k)
        for x in v:
            _check_value(x, lambda m, k=k: err(m, "grid", k))
    zipped = table("zip")
    lengths = set()
    for k, v in zipped.items():
        if not isinstance(v, list) or not v:
            raise err("a zip parameter needs a non-empty list of values", "zip", k)
        for x in v:
            _check_value(x, lambda m, k=k: err(m, "zip", k))
        lengths.add(len(v))
        if len(lengths) > 1:
            raise err(f"zip lists must have equal lengths: this one has {len(v)}, an earlier one "
                      f"{len(next(iter(zipped.values())))}", "zip", k)
    rnd = table("random")
    samples = rnd.pop("samples", None)
    rseed = rnd.pop("seed", 0)
    units = {}
    if rnd:
        if not _int(samples) or samples < 1:
            got = "" if samples is None else f", not {_what(samples)}"
            raise err(f"[random] needs `samples = N` (an integer N >= 1: the draws){got}", "random",
                      "samples" if samples is not None else None)
        if not _int(rseed):
            raise err(f"must be an integer, not {_what(rseed)}", "random", "seed")
    for k, spec in rnd.items():
        if not isinstance(spec, Mapping):
            raise err("a random parameter is { uniform = [lo, hi] }, { loguniform = [lo, hi] }, { int = [lo, hi] } "
                      "or { choice = [values] } (with unit = \"ms\" or digits = N for numbers)", "random", k)
        kinds = [x for x in spec if x in RANDOM_KINDS]
        extra = [x for x in spec if x not in RANDOM_KINDS and x not in ("unit", "digits")]
        if len(kinds) != 1 or extra:
            raise err(f"give exactly one of {', '.join(RANDOM_KINDS)} (and optionally unit, digits)", "random", k)
        kind = kinds[0]
        arg = spec[kind]
        if kind == "choice":
            if not isinstance(arg, list) or not arg:
                raise err("choice needs a non-empty list", "random", k)
        else:
            nums = isinstance(arg, list) and len(arg) == 2 and all(
                isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x) for x in arg)
            if not nums or arg[0] > arg[1]:
                raise err(f"{kind} needs [lo, hi]: two finite numbers with lo <= hi", "random", k)
            if kind == "int" and not all(isinstance(x, int) for x in arg):
                raise err("int needs integer bounds", "random", k)
            if kind == "loguniform" and arg[0] <= 0:
                raise err("loguniform needs lo > 0", "random", k)
        if "digits" in spec and (not _int(spec["digits"]) or not 0 <= spec["digits"] <= 15 or kind in ("choice", "int")):
            raise err(f"digits is an integer from 0 to 15 (decimals kept of a uniform or loguniform draw), "
                      f"not {_what(spec['digits'])}", "random", k)
        if "unit" in spec:
            if not isinstance(spec["unit"], str) or kind == "choice":
                raise err("unit is a string such as \"ms\", for numeric draws", "random", k)
            units[k] = spec["unit"]
        rnd[k] = {kind: arg, **({"digits": spec["digits"]} if "digits" in spec else {})}
    seen: dict[str, str] = {}
    for tname, t in (("grid", grid), ("zip", zipped), ("random", rnd)):
        for k in t:
            if k in seen:
                raise err(f"also a parameter in [{seen[k]}]", tname, k)
            seen[k] = tname
            if k in fixed:
                raise err("also fixed in [set]", tname, k)
    _check_aliases(scn_text, [("set", fixed), ("grid", grid), ("zip", zipped), ("random", rnd)], err)
    name = doc.get("name", Path(origin).stem if text is not None else "study")
    if not isinstance(name, str):
        raise err("must be a string", None, "name")
    figures = _figures(doc.get("figure", []), outputs, origin, text)
    return Study(scn_text, str(scn_path), seeds, outputs, fixed, grid, zipped, rnd, samples or 0, rseed,
                 name, origin, text, units, figures)


def scenario_path(scenario: Any, name: str) -> str:
    """The canonical form of an override's path in ``scenario`` (its parsed table): an array
    entry named by its ``name`` becomes its index, as the simulator resolves it
    (``flow.download.bytes`` → ``flow.0.bytes``). A part that does not resolve is kept."""
    out, cur = [], scenario
    for part in name.split("."):
        if isinstance(cur, list):
            idx = int(part) if part.isdigit() else next(
                (i for i, it in enumerate(cur) if isinstance(it, Mapping) and it.get("name") == part), None)
            if idx is not None and idx < len(cur):
                out.append(str(idx))
                cur = cur[idx]
                continue
            cur = None
        elif isinstance(cur, Mapping):
            cur = cur.get(part)
        else:
            cur = None
        out.append(part)
    return ".".join(out)


def _check_aliases(scenario_text: str, tables: list[tuple[str, Mapping]], err) -> None:
    """Refuse two names for one setting (``flow.0.bytes`` and ``flow.download.bytes``), and a
    parameter that contains or is contained in another key (``flow.0`` and ``flow.0.bytes``):
    either way a column would disagree with what ran, or a [set] value would be lost. The one
    allowed nesting: a [set] table refined by a parameter inside it (applied after it)."""
    try:
        scenario = tomllib.loads(scenario_text)
    except tomllib.TOMLDecodeError:
        return  # the simulator reports it
    seen: list[tuple[str, str, str]] = []  # (table, name, canonical path), in the order applied
    for tname, t in tables:
        for k in t:
            path = scenario_path(scenario, k)
            for otable, oname, opath in seen:
                if opath == path:
                    also = f" (both are {path})" if oname != path and k != path else ""
                    raise err(f"the same scenario setting as `{otable}.{oname}`{also}: give it one name, so that its "
                              "column says what ran", tname, k)
                inner, outer = (path, opath) if len(path) > len(opath) else (opath, path)
                if not inner.startswith(outer + "."):
                    continue
                if otable == "set" and outer == opath:
                    continue  # a [set] table refined by a key inside it, applied after it
                raise err(f"overlaps `{otable}.{oname}` ({inner} is inside {outer}): one would partly override the "
                          "other, so a column would not say what ran; set the inner key only", tname, k)
            seen.append((tname, k, path))


def _figures(figs: Any, outputs: list[str], origin: str, text: str | None) -> list[dict]:
    """The ``[[figure]]`` tables, checked (columns are checked when the report draws them: a
    table's columns are known only once it is written)."""
    if isinstance(figs, Mapping):
        figs = [figs]
    if not isinstance(figs, list):
        raise StudyError(origin, "must be [[figure]] tables", "figure", *locate(text, None, "figure"))
    out = []
    for i, f in enumerate(figs):
        def err(message: str, key: str | None = None) -> StudyError:
            line, col = _locate_figure(text, i, key)
            return StudyError(origin, message, f"figure[{i}]" + (f".{key}" if key else ""), line, col)

        if not isinstance(f, Mapping):
            raise err("a figure is a table: x = \"column\", y = \"column\" (and table, hue, facet, kind, where, title)")
        for k in f:
            if k not in FIGURE_KEYS:
                raise err(f"unknown key (expected one of {', '.join(FIGURE_KEYS)})", k)
        for k in ("x", "y"):
            if k not in f:
                raise err(f"no `{k}`: name a column (a parameter, or a column of the table)")
        f = {k: v for k, v in f.items() if v is not None}  # (a figure given back as a dict holds None for "absent")
        for k in ("x", "y", "hue", "facet", "title"):
            if k in f and (not isinstance(f[k], str) or not f[k]):
                raise err("must be a non-empty string", k)
        table = f.get("table", "radios")
        if table not in (*outputs, "runs"):
            raise err(f"table {table!r} is not kept by this study (outputs: {', '.join(outputs)}; or runs)", "table")
        kind = f.get("kind", "line")
        if kind not in FIGURE_KINDS:
            raise err(f"unknown kind {kind!r} (have: {', '.join(FIGURE_KINDS)})", "kind")
        where = _where(f.get("where", {}))
        if where is None:
            raise err("must be a table of column = value or column = [values] (every entry must hold), or a list "
                      "of such tables (a row matching one of them is drawn): the rows drawn", "where")
        out.append({"x": f["x"], "y": f["y"], "table": table, "hue": f.get("hue"), "facet": f.get("facet"),
                    "kind": kind, "where": where, "title": f.get("title")})
    return out


def _where(where: Any) -> dict | list[dict] | None:
    """A figure's ``where``, checked: a table of ``column = value`` or ``column = [values]``, or
    a non-empty list of such tables (alternatives); None if it is neither."""
    def table(t: Any) -> bool:
        scalar = (str, int, float, bool)
        return isinstance(t, Mapping) and all(
            isinstance(v, scalar) or (isinstance(v, list) and v and all(isinstance(x, scalar) for x in v)) for v in t.values())

    if table(where):
        return dict(where)
    if isinstance(where, list) and where and all(table(t) and t for t in where):
        return [dict(t) for t in where]
    return None


def _locate_figure(text: str | None, index: int, key: str | None) -> tuple[int | None, int | None]:
    """Line and column of ``key`` in the ``index``-th ``[[figure]]`` table (of its header if
    ``key`` is None, or if the key is not found)."""
    if text is None:
        return None, None
    seen, header = -1, (None, None)
    for i, line in enumerate(text.splitlines(), 1):
        stripped = line.strip()
        if stripped.startswith("["):
            if seen == index:
                break
            if re.match(r"^\[\[\s*figure\s*\]\]", stripped):
                seen += 1
                if seen == index:
                    header = (i, line.index("[") + 1)
            continue
        if seen == index and key is not None:
            s = line.lstrip()
            for form in (f'"{key}"', f"'{key}'", key):
                if s.startswith(form) and s[len(form):].lstrip().startswith("="):
                    return i, len(line) - len(s) + 1
    return header


def _check_value(v: Any, err) -> None:
    try:
        toml_value(v)
    except TypeError as e:
        raise err(str(e)) from None


def check_overrides(study: Study) -> None:
    """Validate the base scenario under the first run point and under each parameter's every
    value, raising a :class:`StudyError` located at the parameter whose override is bad."""
    pts = [study.first_point()]
    tables = {k: "set" for k in study.fixed} | {k: "grid" for k in study.grid} | {k: "zip" for k in study.zip} | {k: "random" for k in study.random}
    candidates = [pts[0]]
    # One more point per distinct value of each grid/zip parameter, the rest as in the first.
    first = dict(pts[0].params)
    for k, vals in [*study.grid.items(), *study.zip.items()]:
        for v in vals[1:]:
            candidates.append(study.point({**first, k: v}, pts[0].seed))
    for p in candidates:
        try:
            _core.validate(study.scenario_text, study.scenario_origin, overrides=list(p.overrides))
        except _core.ScenarioError as e:
            bad = _override_key(e, p)
            table = tables.get(bad) if bad else None
            line, col = locate(study.text, table, bad)
            shown = f"{table}.{bad}" if table else None
            value = dict(p.params).get(bad, study.fixed.get(bad)) if bad else None
            msg = getattr(e, "message", None) or str(e)
            what = f"the scenario {study.scenario_origin} rejects {bad} = {value!r}" if bad else f"{study.scenario_origin}"
            raise StudyError(study.origin, f"{what}: {msg}", shown, line, col) from None


def _override_key(e: Exception, p: Point) -> str | None:
    """The override a scenario error is about: the one whose path the error's key names
    (``link[0].rat`` for ``link.wired.rat``), else the one its origin names."""
    ekey = getattr(e, "key", None) or ""
    names = [o.split("=", 1)[0] for o in p.overrides]
    norm = re.sub(r"\[(\d+)\]", r".\1", ekey).split(".") if ekey else []
    for n in reversed(names):
        parts = n.split(".")
        if norm and len(parts) == len(norm) and parts[0] == norm[0] and parts[-1] == norm[-1]:
            return n
    for n in reversed(names):
        if norm and n.split(".")[0] == norm[0] and ekey.endswith(n.split(".")[-1]):
            return n
    origin = getattr(e, "origin", "") or ""
    for n in names:
        if origin.startswith(f"--set {n}="):
            return n
    return None
