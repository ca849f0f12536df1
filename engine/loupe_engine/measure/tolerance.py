"""Tolerances and the OK/NG verdict of an image (engine/README.md):

    {"mm_per_px": 0.02,
     "count": {"min": 1, "max": 4},
     "fields": {"major_axis": {"min": 9.9, "max": 10.1}, "area": {"nominal": 78.5, "tol": 1.5}},
     "classes": {"washer": {"count": {"min": 2, "max": 2}, "fields": {"minor_axis": {"nominal": 4, "tol": 0.1}}}}}

`fields` apply to every object, a class's `fields` override them for its objects; `count` bounds the objects of
the image (top level) or of one class. A range is {min, max} (either may be left out) or {nominal, tol}. Angles
compare on the half circle: {nominal, tol} by the smallest difference mod 180, and min > max wraps (170..10).
An image is OK when every bounded count holds and every object's fields are inside their ranges."""
import json
import os

from loupe_engine.events import EngineError
from loupe_engine.measure.fields import FIELDS


def _range(where, spec, problems):
    if not isinstance(spec, dict):
        problems.append(f"{where}: expected {{min, max}} or {{nominal, tol}}")
        return None
    unknown = set(spec) - {"min", "max", "nominal", "tol"}
    if unknown:
        problems.append(f"{where}: unknown key(s) {', '.join(sorted(unknown))}")
        return None
    try:
        vals = {k: float(v) for k, v in spec.items()}
    except (TypeError, ValueError):
        problems.append(f"{where}: values must be numbers")
        return None
    if "nominal" in vals or "tol" in vals:
        if set(vals) != {"nominal", "tol"} or vals["tol"] < 0:
            problems.append(f"{where}: give nominal and tol >= 0 together (or min/max)")
            return None
        return {"nominal": vals["nominal"], "tol": vals["tol"]}
    if not vals:
        problems.append(f"{where}: empty range")
        return None
    return {"min": vals.get("min"), "max": vals.get("max")}


def _section(where, sec, problems, top):
    allowed = {"count", "fields"} | ({"classes", "mm_per_px"} if top else set())
    unknown = set(sec) - allowed
    if unknown:
        problems.append(f"{where}: unknown key(s) {', '.join(sorted(unknown))} (allowed: {', '.join(sorted(allowed))})")
    out = {"fields": {}}
    if "count" in sec:
        out["count"] = _range(f"{where}count", sec["count"], problems)
    for f, spec in (sec.get("fields") or {}).items():
        if f not in FIELDS:
            problems.append(f"{where}fields: unknown field '{f}' (fields: {', '.join(FIELDS)})")
            continue
        out["fields"][f] = _range(f"{where}fields.{f}", spec, problems)
    return out


def parse_tolerances(value):
    """A dict, a JSON string or a path to a JSON file -> normalised tolerances; EngineError lists every problem."""
    if value is None or value == "":
        return {"fields": {}, "classes": {}}
    if isinstance(value, str):
        try:
            if os.path.isfile(value):
                with open(value) as f:
                    value = json.load(f)
            else:
                value = json.loads(value)
        except (OSError, ValueError) as e:
            raise EngineError("invalid_tolerances", f"tolerances are neither a JSON file nor JSON: {e}")
    if not isinstance(value, dict):
        raise EngineError("invalid_tolerances", "tolerances must be a JSON object")
    problems = []
    out = _section("", value, problems, True)
    out["classes"] = {name: _section(f"classes.{name}.", sec or {}, problems, False)
                      for name, sec in (value.get("classes") or {}).items()}
    if "mm_per_px" in value:
        try:
            out["mm_per_px"] = float(value["mm_per_px"])
            if out["mm_per_px"] <= 0:
                raise ValueError
        except (TypeError, ValueError):
            problems.append("mm_per_px: must be a number > 0")
    if problems:
        raise EngineError("invalid_tolerances", "; ".join(problems))
    return out


def inside(value, rng, angle=False):
    if rng is None:
        return True
    if "nominal" in rng:
        d = value - rng["nominal"]
        if angle:
            d = (d + 90.0) % 180.0 - 90.0
        return abs(d) <= rng["tol"] + 1e-9
    lo, hi = rng["min"], rng["max"]
    if angle and lo is not None and hi is not None and lo > hi:
        return value >= lo or value <= hi
    return (lo is None or value >= lo - 1e-9) and (hi is None or value <= hi + 1e-9)


def judge_image(objects, tol, names=()):
    """objects: dicts with `label` and `measure`. Sets each object's `ok` and `failed` (field names) and returns
    (ok, reasons, counts per class)."""
    reasons, counts = [], {n: 0 for n in names}
    for o in objects:
        counts[o["label"]] = counts.get(o["label"], 0) + 1
        ranges = {**tol["fields"], **tol["classes"].get(o["label"], {}).get("fields", {})}
        o["failed"] = [f for f, r in ranges.items() if not inside(o["measure"][f], r, f == "angle")]
        o["ok"] = not o["failed"]
        if o["failed"]:
            reasons.append(f"{o['label']} #{o['index']}: {', '.join(o['failed'])} out of tolerance")
    if not inside(len(objects), tol.get("count")):
        reasons.append(f"count {len(objects)} out of tolerance")
    for name, sec in tol["classes"].items():
        if not inside(counts.get(name, 0), sec.get("count")):
            reasons.append(f"{name} count {counts.get(name, 0)} out of tolerance")
    return not reasons, reasons, counts
