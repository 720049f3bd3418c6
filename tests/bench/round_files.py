"""The tests' e2e rounds on disk: each round's e2e.json as bench/e2e.sh writes it."""
import json
import os


def write_rounds(directory, documents):
    """Writes documents[i] as round i + 1 of run 9 in directory, made if need be; returns
    their paths."""
    os.makedirs(directory, exist_ok=True)
    paths = []
    for number, document in enumerate(documents, 1):
        path = os.path.join(directory, "e2e-run9-round%d.json" % number)
        with open(path, "w") as f:
            json.dump(document, f)
        paths.append(path)
    return paths
