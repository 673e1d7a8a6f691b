"""Write ``sglang_logscope/data/release_dates.json``: the day each SGLang release of the message
index was first uploaded to PyPI (issue 17: a run dated before the release its lines pin to
ran a source checkout between the release before and that one).

    python scripts/extract_sglang_release_dates.py                  # asks PyPI's JSON API once
    python scripts/extract_sglang_release_dates.py --from FILE.json # a saved copy of that answer

The answer is ``https://pypi.org/pypi/sglang/json``: for each release, the earliest
``upload_time`` of its files. Only releases the message index holds are written.
"""

from __future__ import annotations

import argparse
import json
import sys
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "sglang_logscope" / "data" / "release_dates.json"
URL = "https://pypi.org/pypi/sglang/json"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="source", type=Path, help="a saved PyPI JSON answer")
    args = parser.parse_args(argv)
    if args.source is not None:
        data = json.loads(args.source.read_text(encoding="utf-8"))
    else:
        with urllib.request.urlopen(URL, timeout=60) as answer:
            data = json.load(answer)
    sys.path.insert(0, str(ROOT))
    from sglang_logscope.parse.message_index import message_index

    dates: dict[str, str] = {}
    for release in message_index().releases:
        uploads = [f["upload_time"] for f in data["releases"].get(release, [])]
        if uploads:
            dates[release] = min(uploads)[:10]
    OUT.write_text(
        json.dumps({"source": URL, "first_upload": dates}, indent=1) + "\n", encoding="utf-8"
    )
    print(f"{len(dates)} releases -> {OUT.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
