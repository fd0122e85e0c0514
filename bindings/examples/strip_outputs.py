"""Strips outputs and execution counts from notebooks before committing them:
/usr/bin/python3 bindings/examples/strip_outputs.py bindings/examples/*.ipynb"""

import json
import sys

for path in sys.argv[1:]:
    with open(path, encoding="utf-8") as f:
        nb = json.load(f)
    for cell in nb["cells"]:
        if cell["cell_type"] == "code":
            cell["outputs"] = []
            cell["execution_count"] = None
        cell.get("metadata", {}).pop("execution", None)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(nb, f, indent=1, ensure_ascii=False)
        f.write("\n")
