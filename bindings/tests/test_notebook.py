"""The example notebook: committed with outputs stripped, and runs top to bottom with nbclient."""

import json
import os
import pathlib
import sys
import time

import pytest

NOTEBOOK = pathlib.Path(__file__).resolve().parents[1] / "examples" / "seed000_whatif.ipynb"


def test_committed_without_outputs():
    nb = json.loads(NOTEBOOK.read_text())
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            assert cell.get("outputs") == [] and cell.get("execution_count") is None, "strip the outputs"


def test_notebook_runs(tmp_path, monkeypatch):
    nbformat = pytest.importorskip("nbformat")
    nbclient = pytest.importorskip("nbclient")
    # A kernel on this very interpreter (Debian's python3), whatever `python3` is first on PATH.
    spec = tmp_path / "kernels" / "poolsim-python3"
    spec.mkdir(parents=True)
    (spec / "kernel.json").write_text(json.dumps({
        "argv": [sys.executable, "-m", "ipykernel_launcher", "-f", "{connection_file}"],
        "display_name": "Python 3 (poolsim tests)", "language": "python"}))
    monkeypatch.setenv("JUPYTER_PATH", str(tmp_path) + os.pathsep + os.environ.get("JUPYTER_PATH", ""))
    # The kernel (started in the notebook's directory) imports the poolsim this test imports.
    import poolsim

    package_parent = str(pathlib.Path(poolsim.__file__).resolve().parents[1])
    monkeypatch.setenv("PYTHONPATH", os.pathsep.join(p for p in (package_parent, os.environ.get("PYTHONPATH")) if p))

    nb = nbformat.read(NOTEBOOK, as_version=4)
    client = nbclient.NotebookClient(nb, kernel_name="poolsim-python3", timeout=600,
                                     resources={"metadata": {"path": str(NOTEBOOK.parent)}})
    started = time.monotonic()
    client.execute()
    elapsed = time.monotonic() - started
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors, errors
    images = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs
              if o.output_type in ("display_data", "execute_result") and "image/png" in o.get("data", {})]
    assert len(images) >= 4, f"expected the notebook's plots, got {len(images)} images"
    nbformat.write(nb, tmp_path / "executed.ipynb")
    print(f"notebook executed in {elapsed:.1f} s")
