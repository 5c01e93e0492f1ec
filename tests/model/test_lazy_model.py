"""``jaxviz.model`` loads its modules on first use (issue 31), and nothing is lost by it.

Each check runs in a fresh interpreter: in this one the suite has imported everything.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import jaxviz.model as model
from jaxviz.model import codec

ROOT = Path(__file__).resolve().parents[2]


def _fresh(code: str) -> dict:
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120, cwd=ROOT)
    assert out.returncode == 0, out.stderr
    return json.loads(out.stdout.strip().splitlines()[-1])


def test_one_module_of_the_package_imports_only_what_it_needs():
    """The command line's flags (``jaxviz.model.limits``) do not load the records, the
    gallery, the cost model or the timing records."""
    found = _fresh("import json, sys\nimport jaxviz.model.limits\n"
                   "print(json.dumps(sorted(m for m in sys.modules if m.startswith('jaxviz'))))")
    assert "jaxviz.model.limits" in found
    for heavy in ("jaxviz.model.records", "jaxviz.model.gallery", "jaxviz.model.cost_model",
                  "jaxviz.model.timing", "jaxviz.model.storyboard", "jaxviz.model.what_if"):
        assert heavy not in found


def test_every_exported_name_is_there_and_is_the_modules_own():
    for name in model.__all__:
        value = getattr(model, name)
        assert value is not None
    assert model.TraceRequest.__module__ == "jaxviz.model.records"
    assert "TraceRequest" in dir(model)


def test_every_record_decodes_in_a_process_that_imported_only_the_codec():
    """Records register as their module is imported; a record whose module nobody imported
    yet (a worker's reply, a timing recording opened first thing) still decodes."""
    import importlib
    import pkgutil

    for module in pkgutil.iter_modules(model.__path__):
        importlib.import_module(f"jaxviz.model.{module.name}")
    names = sorted(name for name, cls in codec._REGISTRY.items()
                   if cls.__module__.startswith("jaxviz.model."))
    assert {"TraceResult", "StepResult", "TimingRun", "WhatIfResult"} <= set(names)
    decoded = _fresh(
        "import json\nfrom jaxviz.model import codec\n"
        f"names = {names!r}\n"
        "got = {}\n"
        "for n in names:\n"
        "    try:\n"
        "        codec._decode({'__type__': n}, False)\n"
        "        got[n] = 'built'\n"
        "    except TypeError:\n"  # found, but the fields are missing: the class is known
        "        got[n] = 'known'\n"
        "    except codec.SchemaMismatch as e:\n"
        "        got[n] = str(e)\n"
        "print(json.dumps(got))")
    unknown = {n: why for n, why in decoded.items() if why not in ("built", "known")}
    assert not unknown


def test_an_unknown_record_type_is_still_refused():
    with pytest.raises(codec.SchemaMismatch, match="unknown record type 'NoSuchRecord'"):
        codec.from_plain({"schema": codec.SCHEMA_VERSION, "record": {"__type__": "NoSuchRecord"}})
