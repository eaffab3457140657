"""Cut the bundled sample KG and its plot documents from the MetaQA WikiMovies data.

    python scripts/make_sample_kg.py ../shared/data

Keeps every triple of the films of a few well-known actors and directors (Tom Hanks among them), and
the plot summaries of those films. The output goes to kg_agent/data/ (licence CC BY 3.0, see there).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

SEED_PEOPLE = ["Tom Hanks", "Meg Ryan", "Keanu Reeves", "Steven Spielberg", "Robert Zemeckis", "Kate Winslet"]


def main(data: Path) -> None:
    kb = [line.rstrip("\n").split("|") for line in (data / "metaqa" / "kb.txt").open(encoding="utf-8") if line.strip()]
    films = {h for h, r, t in kb if r in {"starred_actors", "directed_by"} and t in SEED_PEOPLE}
    kept = sorted({(h, r, t) for h, r, t in kb if h in films})
    out = Path(__file__).resolve().parent.parent / "kg_agent" / "data"
    with (out / "sample_movies.txt").open("w", encoding="utf-8") as handle:
        for triple in kept:
            handle.write("|".join(triple) + "\n")
    titles = {f.lower(): f for f in films}
    plots = []
    for line in (data / "metaqa" / "wikimovies_plots.txt").open(encoding="utf-8"):
        title, _, text = line.rstrip("\n").partition("|has_plot|")
        if title in titles:
            plots.append({"entity": titles[title], "title": titles[title], "text": text})
    with (out / "sample_movie_plots.jsonl").open("w", encoding="utf-8") as handle:
        for record in plots:
            handle.write(json.dumps(record, ensure_ascii=False) + "\n")
    print(f"{len(films)} films, {len(kept)} triples, {len(plots)} plots -> {out}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else "../shared/data"))
