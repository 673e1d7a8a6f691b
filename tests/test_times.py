"""Times in JSON (issue #16, item 5): RFC 3339 everywhere, the offset only where the zone is
known (``--log-tz``, a container's receive time), ``time_zone: null`` where it is not; the
schemas hold the pattern and ``logscope schema check`` enforces it."""

from __future__ import annotations

import io
import json
import re
import subprocess
import sys
from collections.abc import Iterator
from datetime import datetime, timedelta, timezone
from pathlib import Path
from typing import Any

import pytest
from cli_run import run_main
from dateutil import parser as dateparser
from dateutil import tz
from examples import examples
from hypothesis import example, given, settings
from hypothesis import strategies as st

from sglang_logscope._text import printed_zone, rfc3339, to_json, zone_name
from sglang_logscope.render.schema import NAMES, check_text, errors, load_schema
from sglang_logscope.timing import NO_DATE, parse_launched_at, plain_iso

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "fixtures" / "demo"
LOG = DEMO / "sglang-serve.log"
#: RFC 3339 date-time; the offset optional (absent: the zone is unknown)
RFC3339 = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?(Z|[+-]\d{2}:\d{2})?$")
TIME_KEYS = ("started_at", "ended_at", "timestamp", "launched_at", "log_mtime", "received_at")


_cli = run_main


def _times(node: Any) -> Iterator[tuple[str, Any]]:
    if isinstance(node, dict):
        for key, value in node.items():
            if key in TIME_KEYS or key == "modified":
                yield key, value
            yield from _times(value)
    elif isinstance(node, list):
        for item in node:
            yield from _times(item)


def _shifted(tmp_path: Path, hours: float) -> Path:
    """The demo log as ``kubectl logs --timestamps`` gives it from a server whose clock is
    ``hours`` east of UTC: each line received (UTC) 0.2 s after SGLang printed it (local)."""
    out, stamp = [], ""
    for line in LOG.read_text(encoding="utf-8").splitlines(keepends=True):
        m = re.match(r"\[(\d{4}-\d\d-\d\d \d\d:\d\d:\d\d)", line)
        if m:
            printed = datetime.fromisoformat(m.group(1))
            received = printed - timedelta(hours=hours) + timedelta(milliseconds=200)
            stamp = f"{received:%Y-%m-%dT%H:%M:%S.%f}000Z"
        out.append(f"{stamp} {line}")
    wrapped = tmp_path / "pod.log"
    wrapped.write_text("".join(out), encoding="utf-8")
    return wrapped


def test_the_one_formatter() -> None:
    naive = datetime(2026, 5, 9, 9, 31, 5, 120000)
    assert rfc3339(naive) == "2026-05-09T09:31:05.120000"
    assert rfc3339(naive.replace(microsecond=0)) == "2026-05-09T09:31:05"
    assert rfc3339(naive, timezone(timedelta(hours=2))) == "2026-05-09T09:31:05.120000+02:00"
    berlin = tz.gettz("Europe/Berlin")
    assert rfc3339(datetime(2026, 12, 1, 9, 0), berlin) == "2026-12-01T09:00:00+01:00"
    assert rfc3339(datetime(2026, 5, 9, 9, 0), berlin) == "2026-05-09T09:00:00+02:00"
    aware = datetime(2026, 5, 9, 7, 0, tzinfo=timezone.utc)
    assert rfc3339(aware, berlin) == "2026-05-09T07:00:00+00:00"  # an aware time keeps its own
    assert rfc3339(None) is None
    assert json.loads(to_json({"t": naive}))["t"] == "2026-05-09T09:31:05.120000"
    assert zone_name(None) is None and zone_name(berlin, "Europe/Berlin") == "Europe/Berlin"
    assert zone_name(timezone(timedelta(hours=-3, minutes=-30))) == "-03:30"


@pytest.mark.parametrize(
    ("gap", "zone"),
    [
        (timedelta(seconds=0.3), "+00:00"),
        (timedelta(hours=2, seconds=1), "+02:00"),
        (timedelta(hours=5, minutes=30, seconds=-40), "+05:30"),
        (timedelta(hours=-7, seconds=90), "-07:00"),
        (timedelta(minutes=7), None),  # between two quarter hours: no zone is guessed
        (timedelta(hours=15), None),  # beyond any zone
        (timedelta(days=3), None),  # another day: the receive time says nothing
    ],
)
def test_the_zone_of_a_printed_time_from_its_receive_time(gap: timedelta, zone: str | None) -> None:
    received = datetime(2026, 5, 9, 7, 17, 42, tzinfo=timezone.utc)
    printed = received.replace(tzinfo=None) + gap
    assert zone_name(printed_zone(printed, received)) == zone


def test_no_zone_without_a_date_or_a_receive_time() -> None:
    received = datetime(2026, 5, 9, 7, 17, 42, tzinfo=timezone.utc)
    assert printed_zone(datetime(1900, 1, 1, 7, 17, 42), received) is None
    assert printed_zone(datetime(2026, 5, 9, 7, 17, 42), None) is None


def test_every_time_of_every_log_document_is_rfc3339() -> None:
    logs = [str(p) for p in sorted((ROOT / "fixtures" / "real").glob("*/server.log"))][::4]
    # in this process (no interpreter start-up for each of ~30 runs); the rest in a child
    docs = [
        json.loads(run_main(name, "-f", "json", log)) for log in logs for name in ("runs", "check")
    ]
    docs += [json.loads(line) for line in _cli("summary", "-f", "json", *logs).splitlines()]
    docs += [json.loads(line) for line in _cli("events", "-f", "jsonl", str(LOG)).splitlines()]
    seen = 0
    for doc in docs:
        for key, value in _times(doc):
            if value is not None:
                assert RFC3339.match(value), (key, value)
                seen += 1
    assert seen > 50  # the walk found the times (it would pass vacuously otherwise)


def test_a_plain_log_says_its_zone_is_unknown() -> None:
    runs = json.loads(_cli("runs", "-f", "json", str(LOG)))["runs"]
    assert runs[0]["started_at"] == "2026-05-09T09:17:42" and runs[0]["time_zone"] is None
    event = json.loads(_cli("events", "-f", "jsonl", str(LOG)).splitlines()[0])
    assert event["timestamp"] == "2026-05-09T09:17:42" and event["time_zone"] is None


def test_log_tz_gives_the_check_document_offsets() -> None:
    args = ["check", "-f", "json", "-e", str(DEMO / "command.txt"), str(LOG)]
    given = json.loads(
        _cli(*args, "--launched-at", "2026-05-09 09:31:05", "--log-tz", "Europe/Berlin")
    )
    assert given["verdict"] == "stale"
    assert given["time_zone"] == "Europe/Berlin"
    assert given["launched_at"] == "2026-05-09T09:31:05+02:00"  # May: summer time
    assert given["run"]["started_at"] == "2026-05-09T09:17:42+02:00"
    assert given["run"]["time_zone"] == "Europe/Berlin"
    assert given["log_mtime"].endswith(("+01:00", "+02:00"))
    # the same launch time in the T form reads the same
    t_form = json.loads(
        _cli(*args, "--launched-at", "2026-05-09T09:31:05", "--log-tz", "Europe/Berlin")
    )
    assert t_form["launched_at"] == given["launched_at"] and t_form["verdict"] == "stale"
    plain = json.loads(_cli(*args, "--launched-at", "2026-05-09 09:31:05"))
    assert plain["time_zone"] is None and plain["launched_at"] == "2026-05-09T09:31:05"
    assert plain["run"]["started_at"] == "2026-05-09T09:17:42" and plain["run"]["time_zone"] is None


@pytest.mark.parametrize(("hours", "zone"), [(2, "+02:00"), (-5, "-05:00"), (0, "+00:00")])
def test_a_wrapped_log_gives_its_printed_times_the_zone_of_its_receive_times(
    tmp_path: Path, hours: int, zone: str
) -> None:
    pod = _shifted(tmp_path, hours)
    event = json.loads(_cli("events", "-f", "jsonl", str(pod)).splitlines()[0])
    assert event["timestamp"] == f"2026-05-09T09:17:42{zone}" and event["time_zone"] == zone
    assert event["received_at"].endswith("+00:00")
    for name in ("runs", "summary"):
        run = json.loads(_cli(name, "-f", "json", str(pod)))["runs"][0]
        assert run["started_at"] == f"2026-05-09T09:17:42{zone}", name
        assert run["ended_at"] == f"2026-05-09T09:18:32{zone}" and run["time_zone"] == zone


def test_every_time_in_the_schemas_is_the_pattern() -> None:
    for name in NAMES:
        schema = load_schema(name)
        text = json.dumps(schema)
        for key in TIME_KEYS:
            for m in re.finditer(rf'"{key}": (\{{[^}}]*\}})', text):
                # (another schema's time, inlined: ``#/$defs/check.time``)
                ref = r'"#/\$defs/(?:[a-z_]+\.)?(?:time|received_time)"'
                assert re.search(ref, m.group(1)), (name, key)
        # fleet: JSON lines of summaries and the fleet table, each its own shape
        props = schema.get("properties") or schema["$defs"]["table"]["properties"]
        # check's own version: 3 since its runs became an array (issue 33)
        assert props["schema_version"] == {"const": 3 if name == "check" else 2}, name


def test_schema_check_refuses_the_old_time_form(tmp_path: Path) -> None:
    doc = json.loads(_cli("runs", "-f", "json", str(LOG)))
    assert errors(doc, load_schema("runs")) == []
    doc["runs"][0]["started_at"] = "2026-05-09 09:17:42"  # schema_version 1's form
    (problem,) = errors(doc, load_schema("runs"))
    assert problem.startswith("$.runs[0].started_at: '2026-05-09 09:17:42' does not match")
    event = json.loads(_cli("events", "-f", "json", str(LOG)))
    event["events"][0]["received_at"] = "2026-05-09T09:17:42"  # a receive time has its offset
    assert [p for p in check_text("events", json.dumps(event)) if "received_at" in p]
    old = tmp_path / "old.json"
    old.write_text(json.dumps(doc), encoding="utf-8")
    checked = subprocess.run(
        [sys.executable, "-m", "sglang_logscope", "schema", "check", "runs", str(old)],
        capture_output=True,
        text=True,
        check=False,
    )
    assert checked.returncode == 1 and "does not match" in checked.stdout


@pytest.mark.parametrize("zone_text", ["Europe/Berlin", None])
def test_the_watch_result_carries_the_log_zone(tmp_path: Path, zone_text: str | None) -> None:
    """``watch --format jsonl``: the result's run and phase times with ``--log-tz``'s offset."""
    import io

    from sglang_logscope.render.live import JsonlSink
    from sglang_logscope.timing import parse_tz
    from sglang_logscope.watch import loop as watch_mod
    from tests.test_watch import _opts, server_output

    log = tmp_path / "serve.log"
    log.write_text(server_output("ready"))
    clock = iter([0.0, 0.1, 0.2, 0.3, 0.4, 0.5])
    out = io.StringIO()
    opts = _opts(fresh_file=True, log_tz=parse_tz(zone_text), log_tz_name=zone_text)
    watch_mod.watch(log, opts, JsonlSink(out), clock=lambda: next(clock), sleep=lambda _s: None)
    result = json.loads(out.getvalue().splitlines()[-1])
    assert result["event"] == "result" and result["time_zone"] == zone_text
    times = [result["run"]["started_at"]]
    times += [p[k] for p in result["phases"]["phases"] for k in ("started_at", "ended_at")]
    times = [t for t in times if t is not None]
    assert len(times) > 3
    for t in times:
        assert RFC3339.match(t), t
        assert t.endswith(("+01:00", "+02:00")) if zone_text else t[-6] not in "+-", t


@settings(max_examples=examples(300), deadline=None)
@given(
    received=st.datetimes(
        min_value=datetime(1970, 1, 2),
        max_value=datetime(2100, 1, 1),
        timezones=st.just(timezone.utc),
    ),
    quarters=st.integers(min_value=-14 * 4, max_value=14 * 4),
    jitter=st.integers(min_value=-120_000, max_value=120_000),  # ms, the trip to the runtime
)
def test_any_quarter_hour_zone_is_read_back(received: datetime, quarters: int, jitter: int) -> None:
    offset = timedelta(minutes=15 * quarters)
    printed = (received + offset + timedelta(milliseconds=jitter)).replace(tzinfo=None)
    zone = printed_zone(printed, received)
    assert zone is not None and zone.utcoffset(None) == offset
    assert rfc3339(printed, zone) == printed.replace(tzinfo=zone).isoformat()


@given(printed=st.datetimes(), received=st.datetimes(timezones=st.timezones()))
@example(datetime(2000, 1, 1), datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=5))))
def test_printed_zone_never_raises(printed: datetime, received: datetime) -> None:
    zone = printed_zone(printed, received)
    assert zone is None or abs(zone.utcoffset(None)) <= timedelta(hours=14)  # type: ignore[arg-type]


def test_check_reads_a_wrapped_log_in_the_zone_of_its_receive_times(tmp_path: Path) -> None:
    """A pod's log (its clock UTC+2, kubectl's times UTC) and a launch time in UTC: the run
    started 13 minutes before the launch. Without the receive times' zone the log would be read
    in the launch time's zone (LS041) and the run would seem to start after the launch."""
    pod = str(_shifted(tmp_path, 2))
    args = ["check", "-f", "json", "-e", str(DEMO / "command.txt"), pod]
    data = json.loads(_cli(*args, "--launched-at", "2026-05-09T07:31:05Z"))
    codes = [f["code"] for f in data["findings"]]
    assert data["verdict"] == "stale" and "LS120" in codes and "LS041" not in codes
    assert data["time_zone"] == "+02:00" and data["launched_at"] == "2026-05-09T09:31:05+02:00"
    assert data["run"]["started_at"] == "2026-05-09T09:17:42+02:00"
    told = _cli(
        "check", "-e", str(DEMO / "command.txt"), pod, "--launched-at", "2026-05-09T07:31:05Z"
    )
    said = " ".join(told.split())  # (however the terminal wraps it)
    assert "Assumed: The log's times carry no zone; the times its lines were received at" in said
    assert "put its clock at UTC+02:00" in said
    # --log-tz wins over the receive times; a plain log has none to read
    given = json.loads(_cli(*args, "--launched-at", "2026-05-09T07:31:05Z", "--log-tz", "UTC"))
    assert given["time_zone"] == "UTC" and "LS120" not in [f["code"] for f in given["findings"]]
    plain = json.loads(
        _cli("check", "-f", "json", str(LOG), "--launched-at", "2026-05-09T07:31:05Z")
    )
    assert plain["time_zone"] is None and "LS041" in [f["code"] for f in plain["findings"]]


def test_a_lean_log_reads_its_zone_once_and_a_plain_one_parses_nothing_for_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A big file is held lean (its events made on access); its runs' zone is read once from the
    log's first lines, and a plain log's events are not made at all to find it has none."""
    from sglang_logscope.log import reader
    from sglang_logscope.log.lazy import LazyEvents

    monkeypatch.setattr(reader, "LEAN_MIN_BYTES", 1)  # every file is "big"
    pod = _shifted(tmp_path, 2)
    lean = reader.read_log(str(pod))
    assert isinstance(lean.events, LazyEvents)
    assert [r.to_dict() for r in lean.runs] == [
        r.to_dict()
        for r in reader.read_log(io.BytesIO(pod.read_bytes())).runs  # not lean
    ]
    assert lean.runs[0].to_dict()["time_zone"] == "+02:00"
    plain = reader.read_log(str(LOG))
    assert isinstance(plain.events, LazyEvents)
    assert plain.runs[0].to_dict()["time_zone"] is None
    assert plain.events._store.cache == {}  # no window of events was made for it


def test_every_document_says_where_its_zone_comes_from(tmp_path: Path) -> None:
    """``time_zone_source``: the log's receive times, ``--log-tz``, this machine's clock
    assumed (the check compared the log's times with it), or unknown."""
    pod = str(_shifted(tmp_path, 2))
    wrapped = json.loads(_cli("check", "-f", "json", pod))
    assert (wrapped["time_zone"], wrapped["time_zone_source"]) == ("+02:00", "log")
    assert wrapped["run"]["time_zone_source"] == "log"
    given = json.loads(_cli("check", "-f", "json", pod, "--log-tz", "UTC"))
    assert (given["time_zone"], given["time_zone_source"]) == ("UTC", "--log-tz")
    assert given["run"]["time_zone_source"] == "--log-tz"
    plain = json.loads(_cli("check", "-f", "json", str(LOG)))  # compared with the file's mtime
    assert (plain["time_zone"], plain["time_zone_source"]) == (None, "assumed-local")
    assert plain["run"]["time_zone_source"] == "assumed-local"
    summary = json.loads(_cli("summary", "-f", "json", str(LOG)))
    assert [(r["time_zone"], r["time_zone_source"]) for r in summary["runs"]] == [(None, "unknown")]
    pod_summary = json.loads(_cli("summary", "-f", "json", pod))
    assert pod_summary["runs"][0]["time_zone_source"] == "log"


@given(
    st.datetimes(min_value=datetime(1, 1, 1), max_value=datetime(9999, 12, 31, 23, 59, 59)),
    st.sampled_from([" ", "T"]),
    st.booleans(),
)
@example(datetime(2026, 5, 9, 9, 31, 5), " ", True)  # make demo's --launched-at
def test_a_plain_launch_time_is_read_as_dateutil_reads_it(
    moment: datetime, sep: str, seconds: bool
) -> None:
    raw = f"{moment:%m-%d}{sep}{moment:%H:%M}" + (f":{moment:%S}" if seconds else "")
    raw = f"{moment.year:04d}-{raw}"
    expected = dateparser.parse(raw, default=NO_DATE)
    assert plain_iso(raw) == expected
    assert parse_launched_at(raw).value == expected


_SEPARATORS = st.sampled_from(["-", "-", "-", ":", "/", " ", "T", "٣", "Z"])


@given(
    st.lists(st.integers(0, 99), min_size=6, max_size=6),
    st.lists(_SEPARATORS, min_size=5, max_size=5),
    st.sampled_from(["", "Z", "+02:00", "٣", "0"]),
    st.booleans(),
)
@example([20, 5, 9, 9, 31, 5], ["-", "-", " ", ":", ":"], "", True)  # read here
@example([20, 13, 9, 9, 31, 5], ["-", "-", " ", ":", ":"], "", True)  # month 13: dateutil's
@example([20, 4, 31, 9, 31, 5], ["-", "-", " ", ":", ":"], "", False)  # 31 April: dateutil's
@example([20, 5, 9, 24, 0, 0], ["-", "-", "T", ":", ":"], "", True)  # hour 24: dateutil's
@example([20, 5, 9, 9, 31, 5], ["-", "-", " ", ":", ":"], "+02:00", True)  # a zone: dateutil's
def test_near_plain_text_is_read_only_where_dateutil_reads_the_same(
    numbers: list[int], seps: list[str], tail: str, seconds: bool
) -> None:
    """Texts of the plain form's shape, with any two-digit values, separators and a tail: one
    that ``plain_iso`` reads, dateutil reads the same; any other (an invalid date, a zone,
    another digit or separator) is left to dateutil, as before."""
    year, month, day, hour, minute, second = (f"{n:02d}" for n in numbers)
    raw = f"{year}26{seps[0]}{month}{seps[1]}{day}{seps[2]}{hour}{seps[3]}{minute}"
    raw += (f"{seps[4]}{second}" if seconds else "") + tail
    value = plain_iso(raw)
    if value is None:
        return
    assert dateparser.parse(raw, default=NO_DATE) == value
    assert not tail and seps[:2] == ["-", "-"] and seps[2] in " T"  # only the plain form
