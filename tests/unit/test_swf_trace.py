"""The SWF parser (hand-written snippets, malformed lines, text encodings and line ends, the
seven bundled logs) and the trace-driven family ``swf-trace`` (trace selection, mapping, windows,
locality, parameter errors)."""

import gzip
import hashlib
import logging
import re
from pathlib import Path

import numpy as np
import pytest

from schedbench.scheduling.instances._swf import DTYPE, SwfFormatError, load_swf, parse_swf
from schedbench.scheduling.instances.base import FamilyParameterError
from schedbench.scheduling.instances.swf_trace import DEFAULT_TRACE, REPO_ROOT, TRACES, trace_jobs, trace_path
from schedbench.scheduling.model import Instance, InstanceError
from schedbench.scheduling.registry import get_family

TRACE = REPO_ROOT / "resources" / "traces" / "NASA-iPSC-1993-3.1-cln.swf.gz"
SHARED = Path("/work/shared/data/traces/NASA-iPSC-1993-3.1-cln.swf.gz")
GZ_SHA256 = "5589ae9b2fb78e3bf92de097497cf33a91607de1ad54563e43533f7827597f29"
SWF_SHA256 = "9d997a2c20a7f7b0b6d81638d756ce8b2c524c4f2e9ec78da36001743ca33d76"
FAM = get_family("swf-trace")

HEADER = """\
; Version: 2.2
; Computer: Test Machine
;
; Information: http://example.org/a
;              http://example.org/b
; MaxJobs: 4
; Note: first note
;       continued
; Note: second note
; StartTime: Fri Oct 01 00:00:03 PDT 1993
;
"""
JOBS = """\
1   0  -1  100  4  -1 -1  -1  -1 -1  1  7  1  3 -1 -1 -1 -1
2  30   5   12.5 1 -1 -1   2 600 -1  0  8  2 -1  1  0 -1 -1
3  -1  -1   60  2 -1 -1  -1  -1 -1 -1  7  1 -1 -1 -1  1  15
4  90  -1   -1  2 -1 -1  -1  -1 -1 -1  9  1 -1 -1 -1 -1 -1
"""


def write(tmp_path, text, name="log.swf", compress=False):
    p = tmp_path / name
    data = text.encode()
    p.write_bytes(gzip.compress(data) if compress else data)
    return p


# ---------------------------------------------------------------- parser


def test_header_pairs_continuations_and_repeated_keys(tmp_path):
    log = parse_swf(write(tmp_path, HEADER + JOBS))
    assert log.header == {
        "Version": "2.2",
        "Computer": "Test Machine",
        "Information": "http://example.org/a http://example.org/b",  # not a key 'http'
        "MaxJobs": "4",
        "Note": "first note continued\nsecond note",
        "StartTime": "Fri Oct 01 00:00:03 PDT 1993",
    }
    assert len(log.comments) == 11 and log.comments[0] == " Version: 2.2"


def test_exact_values_missing_and_line_numbers(tmp_path):
    log = parse_swf(write(tmp_path, HEADER + JOBS))
    assert log.records.dtype == DTYPE and len(log) == 4
    assert log.line.tolist() == [12, 13, 14, 15]  # 1-based, header lines counted
    r = log.records
    assert r[0].tolist() == (1, 0.0, -1.0, 100.0, 4, -1.0, -1.0, -1, -1.0, -1.0, 1, 7, 1, 3, -1, -1, -1, -1.0)
    assert r["run_time"][1] == 12.5  # time fields may be floating point (SWF spec)
    assert r["requested_processors"][1] == 2 and r["requested_time"][1] == 600 and r["wait_time"][1] == 5
    assert r["queue"][1] == 1 and r["partition"][1] == 0 and r["status"][1] == 0
    assert r["preceding_job"][2] == 1 and r["think_time"][2] == 15
    assert log.missing("submit_time").tolist() == [False, False, True, False]
    assert log.missing("run_time").tolist() == [False, False, False, True]
    assert log["user_id"].dtype == np.int64 and log["submit_time"].dtype == np.float64
    with pytest.raises(ValueError):
        log.records["run_time"][0] = 5  # read-only: a cached log is shared


def test_gzip_and_plain_parse_the_same(tmp_path):
    plain = parse_swf(write(tmp_path, HEADER + JOBS))
    gz = parse_swf(write(tmp_path, HEADER + JOBS, "log.swf.gz", compress=True))
    misnamed = parse_swf(write(tmp_path, HEADER + JOBS, "gz-but-named.swf", compress=True))
    for other in (gz, misnamed):  # gzip is detected by content, not by name
        assert other.header == plain.header
        np.testing.assert_array_equal(other.records, plain.records)
        np.testing.assert_array_equal(other.line, plain.line)


def test_blank_lines_crlf_and_late_comments(tmp_path):
    text = "; Version: 2.2\r\n\r\n" + JOBS.splitlines()[0] + "\r\n; a late comment\r\n" + JOBS.splitlines()[1] + "\r\n"
    log = parse_swf(write(tmp_path, text))
    assert log.line.tolist() == [3, 5] and log.header == {"Version": "2.2"}
    assert log.comments[-1] == " a late comment"


def test_a_log_without_header_is_fine(tmp_path):
    assert len(parse_swf(write(tmp_path, JOBS))) == 4


GOOD = "5 10 -1 20 1 -1 -1 -1 -1 -1 -1 1 1 -1 -1 -1 -1 -1"


@pytest.mark.parametrize(
    "bad, message",
    [
        (GOOD.rsplit(" ", 1)[0], "line 14: expected 18 whitespace-separated fields .*got 17"),
        (GOOD + " -1", "line 14: expected 18 whitespace-separated fields .*got 19"),
        (GOOD.replace(" 20 ", " 2O "), r"line 14: field 4 \(run_time\) is not a number: '2O'"),
        (GOOD.replace("5 10", "x 10"), r"line 14: field 1 \(job_number\) is not a number: 'x'"),
        (GOOD.replace(" 20 ", " nan "), r"line 14: field 4 \(run_time\) is not a number: 'nan'"),
        (GOOD.replace(" 20 ", " 2_0 "), r"line 14: field 4 \(run_time\) is not a number: '2_0'"),
        (GOOD.replace(" 20 ", " 1e999 "), r"line 14: field 4 \(run_time\) is out of range"),
        (
            GOOD.replace(" 20 1 ", " 20 1.5 "),
            r"line 14: field 5 \(allocated_processors\) must be an integer, got '1.5'",
        ),
    ],
)
def test_malformed_line_names_file_and_line(tmp_path, bad, message):
    p = write(tmp_path, HEADER + JOBS.splitlines()[0] + "\n" + JOBS.splitlines()[1] + "\n" + bad + "\n" + GOOD + "\n")
    with pytest.raises(SwfFormatError, match=message) as info:
        parse_swf(p)
    assert str(p) in str(info.value)
    assert isinstance(info.value, InstanceError) and isinstance(info.value, ValueError)


@pytest.mark.parametrize(
    "text, message", [("", "empty file"), (HEADER, "only header comments"), ("\n\n", "empty file")]
)
def test_empty_or_header_only_is_an_error(tmp_path, text, message):
    with pytest.raises(SwfFormatError, match=f"no job records \\({message}\\)"):
        parse_swf(write(tmp_path, text))


def test_broken_gzip_is_named(tmp_path):
    p = tmp_path / "broken.swf.gz"
    p.write_bytes(gzip.compress((HEADER + JOBS).encode())[:60])
    with pytest.raises(SwfFormatError, match="not a readable gzip file"):
        parse_swf(p)


# ---------------------------------------------------------------- the bundled log


def test_bundled_copy_is_byte_identical():
    digest = hashlib.sha256(TRACE.read_bytes()).hexdigest()
    assert digest == GZ_SHA256
    assert hashlib.sha256(gzip.decompress(TRACE.read_bytes())).hexdigest() == SWF_SHA256
    if SHARED.exists():
        assert hashlib.sha256(SHARED.read_bytes()).hexdigest() == digest


def test_bundled_log_counts():
    log = load_swf(TRACE)
    # MaxJobs counts the ORIGINAL log's jobs (job numbers run to 42264); the cleaned log keeps
    # 42264 - 24025 = 18239 of them (header note: "24025 jobs removed").
    assert log.header["MaxJobs"] == "42264" and log.header["Acknowledge"] == "Bill Nitzberg"
    assert len(log) == 18239 == 42264 - 24025
    assert int(log["job_number"].max()) == 42264 and (np.diff(log["job_number"]) > 0).all()
    assert log.line[0] == 33 and log.line[-1] == 18271
    assert (np.diff(log["submit_time"]) >= 0).all()
    assert log.missing("wait_time").all() and not log.missing("run_time").any()
    assert np.unique(log["user_id"]).size == 69 and int(log["allocated_processors"].max()) == 128
    jobs = trace_jobs(DEFAULT_TRACE)
    assert (jobs.total, jobs.skipped, jobs.submit.size) == (18239, 0, 18239)


def test_default_path_is_relative_to_the_repository_root():
    assert (REPO_ROOT / "pyproject.toml").exists()
    assert trace_path(DEFAULT_TRACE) == TRACE
    assert trace_path(str(TRACE)) == TRACE  # absolute paths are taken as given


# ---------------------------------------------------------------- the family


def test_family_is_deterministic_and_meta_is_portable(tmp_path):
    a, b = FAM.make(3, 7), FAM.make(3, 7)
    for f in ("release", "size", "indptr", "indices", "w_flow", "w_reject"):
        np.testing.assert_array_equal(getattr(a, f), getattr(b, f))
    assert a.meta == {
        "family": "swf-trace",
        "index": 3,
        "base_seed": 7,
        "params": {
            "trace": "nasa-ipsc",
            "path": DEFAULT_TRACE,
            "m": 64,
            "d": 2,
            "n": 1000,
            "start": 0,
            "time_unit": 60,
            "size_unit": 60,
            "max_size": 0,
            "load": None,
        },
    }
    a.save(tmp_path / "a.npz")  # provenance is JSON-serialisable; the instance round-trips
    c = Instance.load(tmp_path / "a.npz")
    np.testing.assert_array_equal(c.indices, a.indices)
    other_seed = FAM.make(3, 8)
    np.testing.assert_array_equal(other_seed.size, a.size)  # the seed only draws eligibility
    assert not np.array_equal(other_seed.indices, a.indices)


def test_index_selects_consecutive_windows():
    jobs = trace_jobs(DEFAULT_TRACE)
    insts = [FAM.make(i, 1, n=500, start=100) for i in range(3)]
    for i, inst in enumerate(insts):
        lo = 100 + 500 * i
        run, submit = jobs.run[lo : lo + 500], jobs.submit[lo : lo + 500]
        assert inst.n == 500 and inst.m == 64
        np.testing.assert_array_equal(inst.size, np.maximum(1, np.ceil(run / 60)).astype(np.int64))
        np.testing.assert_array_equal(inst.release, ((submit - submit[0]) // 60).astype(np.int64))
    assert not np.array_equal(insts[0].size, insts[1].size)


def test_releases_sorted_sizes_positive_instance_valid():
    for i in range(0, 18, 4):
        inst = FAM.make(i, 2)
        assert inst.release[0] == 0 and (np.diff(inst.release) >= 0).all()
        assert (inst.size >= 1).all() and inst.size.max() > 1
        assert (np.diff(inst.indptr) == 2).all()
        Instance(inst.m, inst.release, inst.size, inst.indptr, inst.indices, inst.w_flow, inst.w_reject)


def test_every_job_of_a_user_has_the_same_eligible_set():
    jobs = trace_jobs(DEFAULT_TRACE)
    inst = FAM.make(5, 3, m=16, d=3)
    users = jobs.user[5000:6000]
    rows = inst.indices.reshape(inst.n, 3)
    assert (np.diff(rows, axis=1) > 0).all()  # d distinct machines, sorted
    sets = {}
    for u, row in zip(users.tolist(), map(tuple, rows.tolist())):
        assert sets.setdefault(u, row) == row
    assert len(set(sets.values())) > 1


def test_whole_trace_with_n_zero_and_clipping():
    inst = FAM.make(0, 1, n=0, max_size=50, time_unit=3600, size_unit=600)
    assert inst.n == 18239 and inst.size.max() == 50
    assert inst.release[-1] == 7948936 // 3600  # last start time, in hours


def test_mapping_on_a_hand_written_log(tmp_path):
    text = (
        "; Version: 2.2\n"
        + "\n".join(
            [
                # job submit wait run  procs ... user group ...
                "1 100 -1 0    1 -1 -1 -1 -1 -1 -1 5 1 -1 -1 -1 -1 -1",  # run 0 -> size 1
                "2 160 -1 61   1 -1 -1 -1 -1 -1 -1 6 1 -1 -1 -1 -1 -1",  # size 2
                "3 130 -1 60   1 -1 -1 -1 -1 -1 -1 5 1 -1 -1 -1 -1 -1",  # out of order: sorted before job 2
                "4 -1  -1 10   1 -1 -1 -1 -1 -1 -1 6 1 -1 -1 -1 -1 -1",  # skipped: submit missing
                "5 160 -1 -1   1 -1 -1 -1 -1 -1 -1 6 1 -1 -1 -1 -1 -1",  # skipped: run missing
                "6 160 -1 600  1 -1 -1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1",  # tie with job 2 (after it); no user
                "7 220 -1 6000 1 -1 -1 -1 -1 -1 -1 -1 1 -1 -1 -1 -1 -1",  # no user: its own subset
            ]
        )
        + "\n"
    )
    path = str(write(tmp_path, text))
    jobs = trace_jobs(path)
    assert (jobs.total, jobs.skipped) == (7, 2)
    assert jobs.record.tolist() == [0, 2, 1, 5, 6]  # by submit time, ties in file order
    inst = FAM.make(0, 0, path=path, m=40, d=2, n=5, time_unit=60, size_unit=60, max_size=90)
    assert inst.release.tolist() == [0, 0, 1, 1, 2]  # (100,130,160,160,220) - 100, // 60
    assert inst.size.tolist() == [1, 1, 2, 10, 90]  # 6000 s -> 100, clipped to 90
    rows = [tuple(inst.eligible(j).tolist()) for j in range(inst.n)]
    assert rows[0] == rows[1] and rows[0] != rows[2]  # user 5 twice; user 6
    # five draws in order of first appearance: user 5, user 6, anonymous, anonymous
    from schedbench.scheduling.instances.random_restricted import random_subsets
    from schedbench.hall.seeds import rng

    expect = random_subsets(rng(0, "instance", "swf-trace", 0), 4, 40, 2)
    assert rows == [tuple(expect[k]) for k in (0, 0, 1, 2, 3)]


@pytest.mark.parametrize(
    "params, message",
    [
        (dict(m=4, d=5), "parameter 'd' = 5 exceeds 'm' = 4"),
        (dict(d=0), "parameter 'd' must be >= 1"),
        (dict(time_unit=0), "parameter 'time_unit' must be >= 1"),
        (dict(start=18239), "parameter 'start' = 18239 is past the end"),
        (dict(start=18000, n=1000), "parameter 'n' = 1000 exceeds the 239 usable records"),
        (dict(path="no/such/trace.swf"), "parameter 'path' = 'no/such/trace.swf': cannot read"),
        (dict(size="big"), "has no parameter 'size'"),
    ],
)
def test_bad_parameters_are_named(params, message):
    with pytest.raises(FamilyParameterError, match=message):
        FAM.make(0, 0, **params)


def test_malformed_trace_is_reported_as_path_with_its_line(tmp_path):
    p = write(tmp_path, HEADER + GOOD + "\n" + GOOD + " 7\n")
    with pytest.raises(FamilyParameterError, match=r"parameter 'path'.*line 13: expected 18"):
        FAM.resolve(dict(path=str(p)))


def test_window_past_the_end_names_index_n_and_start():
    FAM.make(17, 0)  # the last full window of 1000
    with pytest.raises(FamilyParameterError, match=r"index 18 needs usable records 18000\.\.18999.*at most 18"):
        FAM.make(18, 0)


def test_sized_unless_max_size_is_one():
    assert not FAM.unit_sizes({}) and FAM.unit_sizes({"max_size": 1})
    assert (FAM.make(0, 0, max_size=1).size == 1).all()


# ---------------------------------------------------------------- the seven bundled logs

# (file, bytes, sha256, records): /work/shared/data/traces/README.md, where the copies come from
LOGS = {
    "nasa-ipsc": ("NASA-iPSC-1993-3.1-cln.swf.gz", 207976, GZ_SHA256, 18239),
    "kth-sp2": (
        "KTH-SP2-1996-2.1-cln.swf.gz",
        404417,
        "c8c1a8db8b99cce4aa8d823a769280debca90485e30758ba35a76b17ac5485bb",
        27992,
    ),
    "llnl-thunder": (
        "LLNL-Thunder-2007-1.1-cln.swf.gz",
        1312559,
        "df27b2ad62ef5ec1d02d592d48390ab2a8250265b9639bb5f0ebaa11f043ee38",
        121039,
    ),
    "hpc2n": (
        "HPC2N-2002-2.1-cln.swf.gz",
        2997863,
        "e56a97045de773f2a395acaf74cb04e6e3393b9c8c5ae12b542b5de93bb04838",
        202876,
    ),
    "sdsc-blue": (
        "SDSC-BLUE-2000-4.2-cln.swf.gz",
        4070091,
        "9aab21f3cfa108f3ecefa52391b384d996dcf4216f920186f47a734646b2c658",
        243306,
    ),
    "cea-curie": (
        "CEA-Curie-2011-2.1-cln.swf.gz",
        3629411,
        "2a0fdbd40837590b491bbbac7d4cfe521de1f0b14c0dc39bbf82c4e49ea75bce",
        312826,
    ),
    "lublin-256": (
        "lublin_256.swf.gz",
        102338,
        "ba3ee5b59b5bd8dfd369da283bab7b9f968b57fb5e77684eda4e46cfa58694c3",
        10000,
    ),
}


def test_every_trace_name_has_its_file():
    assert set(TRACES) == set(LOGS)
    for name, (file, *_rest) in LOGS.items():
        assert TRACES[name] == f"resources/traces/{file}"


@pytest.mark.parametrize("name", list(LOGS))
def test_bundled_log_is_the_stated_copy_and_parses_with_the_stated_count(name):
    file, size, sha, records = LOGS[name]
    path = REPO_ROOT / TRACES[name]
    data = path.read_bytes()
    assert len(data) == size and hashlib.sha256(data).hexdigest() == sha
    log = parse_swf(path)  # not load_swf: nothing stays cached (CEA-Curie's arrays are 48 MB)
    assert len(log) == records and log.line.size == records
    assert log.header["Acknowledge"] and "MaxRecords" in log.header
    assert (log.header_shortfall == 484) == (name == "kth-sp2")


def test_record_count_against_the_header(caplog):
    with caplog.at_level(logging.WARNING, logger="schedbench.scheduling.instances._swf"):
        kth = parse_swf(REPO_ROOT / TRACES["kth-sp2"])
    # the KTH copy is 484 records short of its header (its cleaning note removes only 14 jobs)
    assert (kth.max_records, kth.cleaned_away, kth.header_shortfall, len(kth)) == (28476, 14, 484, 27992)
    assert (
        len(kth.warnings) == 1 and "MaxRecords 28476, but the file has 27992 job records (484 fewer)" in kth.warnings[0]
    )
    assert kth.warnings[0] in caplog.text
    # NASA's header counts the jobs before cleaning; its cleaning note accounts for the difference
    nasa = load_swf(TRACE)
    assert (nasa.max_records, nasa.cleaned_away, nasa.header_shortfall, nasa.warnings) == (42264, 24025, 0, ())


@pytest.mark.parametrize(
    "header, shortfall",
    [("; MaxRecords: 4\n", 0), ("; MaxRecords: 6\n", 2), ("; MaxRecords: 3\n", -1), ("", 0), ("; MaxRecords: x\n", 0)],
)
def test_record_count_on_hand_written_logs(tmp_path, header, shortfall):
    log = parse_swf(write(tmp_path, header + JOBS))
    assert log.header_shortfall == shortfall and len(log.warnings) == (shortfall != 0)
    cleaned = parse_swf(write(tmp_path, "; MaxRecords: 6\n; Note: x (2 jobs removed)\n" + JOBS))
    assert (cleaned.max_records, cleaned.cleaned_away, cleaned.header_shortfall) == (6, 2, 0)


# ---------------------------------------------------------------- text encodings and line ends


def same_log(a, b):
    assert a.header == b.header and a.comments == b.comments
    np.testing.assert_array_equal(a.records, b.records)
    np.testing.assert_array_equal(a.line, b.line)


@pytest.mark.parametrize(
    "variant",
    [
        pytest.param(lambda t: b"\xef\xbb\xbf" + t, id="utf8-bom"),
        pytest.param(lambda t: t.replace(b"\n", b"\r"), id="cr-only"),
        pytest.param(lambda t: t.replace(b"\n", b"\r\n"), id="crlf"),
        pytest.param(lambda t: t.rstrip(b"\n"), id="no-final-newline"),
        pytest.param(lambda t: b"\xef\xbb\xbf" + t.replace(b"\n", b"\r").rstrip(b"\r"), id="bom-cr-no-final"),
    ],
)
@pytest.mark.parametrize("compress", [False, True])
def test_bom_and_line_ends_parse_like_plain_lf(tmp_path, variant, compress):
    text = (HEADER + JOBS).encode()
    plain = parse_swf(write(tmp_path, HEADER + JOBS))
    data = variant(text)
    p = tmp_path / "variant.swf"
    p.write_bytes(gzip.compress(data) if compress else data)
    for block in (1, 2, 3, 7, 64, 1 << 17):  # every split of a BOM, a \r\n and a line between reads
        same_log(parse_swf(p, block_bytes=block), plain)


def test_bom_before_a_job_line_and_utf8_comments(tmp_path):
    log = parse_swf(write(tmp_path, "\ufeff" + GOOD + "\n"))
    assert len(log) == 1 and log.line.tolist() == [1]
    log = parse_swf(write(tmp_path, "; Installation: Université, Zürich\n" + GOOD))
    assert log.header["Installation"] == "Université, Zürich" and len(log) == 1


@pytest.mark.parametrize(
    "data, message",
    [
        (
            b"; Installation: Universit\xe9\n" + GOOD.encode() + b"\n",
            r"line 1: not UTF-8 text \(byte 0xE9 at column 26\)",
        ),
        (b"; ok\n" + GOOD.encode() + b"\n" + GOOD.encode().replace(b"20", b"2\xff") + b"\n", "line 3: not UTF-8"),
        ((HEADER + JOBS).encode("utf-16"), r"UTF-16 text \(byte-order mark FF FE\)"),
        ((HEADER + JOBS).encode("utf-16-be").join([b"\xfe\xff", b""]), "UTF-16 text"),
    ],
)
def test_non_utf8_text_is_refused_by_name(tmp_path, data, message):
    p = tmp_path / "enc.swf"
    p.write_bytes(data)
    with pytest.raises(SwfFormatError, match=message):
        parse_swf(p)


def test_bom_or_cr_only_file_without_jobs_still_says_so(tmp_path):
    with pytest.raises(SwfFormatError, match=r"no job records \(empty file\)"):
        parse_swf(write(tmp_path, "\ufeff"))
    with pytest.raises(SwfFormatError, match=r"no job records \(only header comments\)"):
        parse_swf(write(tmp_path, HEADER.replace("\n", "\r")))


# ---------------------------------------------------------------- numbers and blocks

_NUM = re.compile(r"[-+]?(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][-+]?[0-9]+)?")  # the SWF number, as before


@pytest.mark.parametrize(
    "token",
    ["0", "-0", "+7", "12.5", "-.5", "+.5", ".5", "5.", "1.e2", "2.5E-1", "1e3", "-1E+3", "0.1", "123456789.123456",
     "1234567890123456789", "0.30000000000000004", "007", "1e", "e5", ".e5", "--1", "+-1", "1-2", "1.2.3", "1e5.5",
     "1e+", "+", "-", ".", "+.", "1ee5", "1e5e5", "0x10", "inf", "nan", "1_0", "١"],
)  # fmt: skip
def test_numbers_are_exactly_the_plain_decimals(tmp_path, token):
    line = GOOD.replace(" 20 ", f" {token} ")  # field 4, run_time (float)
    p = write(tmp_path, HEADER + line + "\n")
    if _NUM.fullmatch(token):
        assert parse_swf(p)["run_time"][0] == float(token)
    else:
        with pytest.raises(
            SwfFormatError, match=rf"line 12: field 4 \(run_time\) is not a number: {re.escape(repr(token))}"
        ):
            parse_swf(p)


def test_values_and_errors_do_not_depend_on_the_block_size(tmp_path):
    reference = parse_swf(TRACE)
    same_log(parse_swf(TRACE, block_bytes=1 << 15), reference)
    lines = [f"{j} {10 * j} -1 {j % 97}.25 1 -1 -1 -1 -1 -1 -1 {j % 13} 1 -1 -1 -1 -1 -1" for j in range(1, 3001)]
    lines[2345] = lines[2345].replace(" 1 -1 -1 -1 -1 -1 -1 ", " 1 -1 -1 -1 -1 -1 - ")
    p = write(tmp_path, "; c\n" + "\n".join(lines) + "\n; late\n")
    for block in (1000, 1 << 17):
        with pytest.raises(SwfFormatError, match=r"line 2347: field 11 \(status\) is not a number: '-'"):
            parse_swf(p, block_bytes=block)
    lines[2345] = lines[2345].replace(" - ", " 1 ")
    lines[2999] += " 5"
    p = write(tmp_path, "; c\n" + "\n".join(lines))
    with pytest.raises(SwfFormatError, match="line 3001: expected 18 whitespace-separated fields .*got 19"):
        parse_swf(p, block_bytes=1000)


# ---------------------------------------------------------------- selecting a trace


def test_trace_selects_the_bundled_log_and_its_input_file():
    assert FAM.inputs({}) == [str(REPO_ROOT / DEFAULT_TRACE)]
    for name in ("kth-sp2", "lublin-256"):  # inputs() checks the parameters, so it reads the log
        assert FAM.inputs({"trace": name}) == [str(REPO_ROOT / TRACES[name])]
    inst = FAM.make(2, 5, trace="kth-sp2", n=300, m=8)
    assert inst.meta["params"]["trace"] == "kth-sp2" and inst.meta["params"]["path"] == TRACES["kth-sp2"]
    jobs = trace_jobs(TRACES["kth-sp2"])
    run, submit = jobs.run[600:900], jobs.submit[600:900]
    np.testing.assert_array_equal(inst.size, np.maximum(1, np.ceil(run / 60)).astype(np.int64))
    np.testing.assert_array_equal(inst.release, ((submit - submit[0]) // 60).astype(np.int64))
    again = FAM.make(2, 5, **inst.meta["params"])  # the recorded parameters resolve again to the same instance
    np.testing.assert_array_equal(again.indices, inst.indices)
    # the explicit default is the old behaviour, byte for byte
    a, b = FAM.make(4, 3), FAM.make(4, 3, trace="nasa-ipsc")
    for f in ("release", "size", "indices"):
        assert getattr(a, f).tobytes() == getattr(b, f).tobytes()


def test_lublin_log_has_no_users_so_every_job_draws_its_own_set():
    inst = FAM.make(0, 1, trace="lublin-256", n=200, m=32, d=2)
    assert (trace_jobs(TRACES["lublin-256"]).user == -1).all()
    rows = {tuple(inst.eligible(j).tolist()) for j in range(inst.n)}
    assert len(rows) > 100  # independent draws, not one set per user


@pytest.mark.parametrize(
    "params, message",
    [
        (
            dict(trace="nasa"),
            r"family 'swf-trace': parameter 'trace' must be one of \['nasa-ipsc', 'kth-sp2', 'llnl-thunder', "
            r"'hpc2n', 'sdsc-blue', 'cea-curie', 'lublin-256'\], got 'nasa'",
        ),
        (dict(trace=3), "parameter 'trace' must be str"),
        (
            dict(trace="kth-sp2", path=DEFAULT_TRACE),
            "parameters 'trace' = 'kth-sp2' and 'path' = .* name different logs",
        ),
        (
            dict(trace="kth-sp2", start=27992),
            r"'start' = 27992 is past the end of the trace \(parameter 'trace' = 'kth-sp2'\)",
        ),
    ],
)
def test_bad_trace_is_named(params, message):
    with pytest.raises(FamilyParameterError, match=message):
        FAM.resolve(params)


def test_all_unusable_records_name_file_and_usable_counts(tmp_path):
    text = "\n".join(GOOD.replace("5 10 -1 20", f"{j} -1 -1 {r}") for j, r in ((1, 20), (2, -1), (3, 7))) + "\n"
    p = write(tmp_path, HEADER + text)
    with pytest.raises(
        FamilyParameterError,
        match=r"parameter 'path' = .*: the trace .*log\.swf has no usable record: all 3 job records are skipped "
        r"\(3 without a submit time, 1 without a run time; .*\), so no instance can be made",
    ):
        FAM.resolve(dict(path=str(p)))
    # every run time negative (and no processors): the same, not "'start' = 0 is past the end"
    no_runs = "\n".join(f"{j} 10 -1 -{j} 0 -1 -1 -1 -1 -1 -1 1 1 -1 -1 -1 -1 -1" for j in (1, 2)) + "\n"
    p = write(tmp_path, HEADER + no_runs, name="no-runs.swf.gz", compress=True)
    with pytest.raises(FamilyParameterError) as info:
        FAM.resolve(dict(path=str(p)))
    message = str(info.value)
    assert "no-runs.swf.gz has no usable record: all 2 job records are skipped" in message
    assert "(0 without a submit time, 2 without a run time;" in message and "past the end" not in message
    p = write(tmp_path, HEADER + text + GOOD + "\n", name="one.swf")
    with pytest.raises(FamilyParameterError, match=r"the file has 4 job records, 1 of them usable .*'start' <= 0"):
        FAM.resolve(dict(path=str(p), start=1))


@pytest.mark.parametrize("load", [0.3, 0.9, 2.5])
def test_releases_scaled_to_a_target_load_keep_the_order_and_reach_the_load(load):
    """``load``: the window's releases stretched or compressed so that Σp/(m·H) = load up to the
    rounding of H; the arrival order and the relative gaps of the log are kept."""
    plain = FAM.make(2, 1, m=8, n=300)
    scaled = FAM.make(2, 1, m=8, n=300, load=load)
    assert (scaled.size == plain.size).all() and (scaled.indices == plain.indices).all()
    assert (np.diff(scaled.release) >= 0).all() and scaled.release[0] == 0
    horizon = int(scaled.release.max()) + 1
    assert horizon == max(1, round(int(scaled.size.sum()) / (8 * load)))
    assert scaled.size.sum() / (8 * horizon) == pytest.approx(load, rel=0.01)


def test_scaled_releases_of_a_window_submitted_at_once_are_zero():
    from schedbench.scheduling.instances.swf_trace import scaled_releases

    assert scaled_releases(np.array([5, 5, 5]), 30, 2, 0.9).tolist() == [0, 0, 0]
    assert scaled_releases(np.array([0, 10, 20]), 3, 2, 0.9).tolist() == [0, 0, 1]  # H = round(3/1.8) = 2
    # equal submits, equal releases; gaps kept in proportion (H = 11: 10 slots over 100 s)
    assert scaled_releases(np.array([0, 0, 30, 30, 100]), 20, 2, 20 / 22).tolist() == [0, 0, 3, 3, 10]


@pytest.mark.parametrize(
    "params, message",
    [
        ({"load": 0.9, "time_unit": 30}, "parameter 'time_unit' = 30 does not apply with 'load' = 0.9"),
        ({"load": 0.0}, "parameter 'load'"),
        ({"load": 11.0}, "parameter 'load'"),
        ({"load": float("nan")}, "parameter 'load'"),
    ],
)
def test_a_bad_load_or_a_load_with_time_unit_is_refused_by_name(params, message):
    with pytest.raises(ValueError, match=re.escape(message)):
        FAM.make(0, 1, m=8, n=50, **params)


def test_a_window_at_the_target_load_tells_algorithms_apart_where_the_log_pace_does_not():
    """The reason for ``load`` (docs/models/rejection-model.md §11): at one minute per slot a NASA
    window on 8 machines is so sparse that OPT is the trivial bound (the largest job); scaled to
    load 0.9 it is not."""
    import schedbench
    from schedbench.scheduling.offline import flow_lower_bound

    for load, trivial in ((None, True), (0.9, False)):
        inst = FAM.make(0, 1, m=8, n=300, max_size=64, **({} if load is None else {"load": load}))
        opt = schedbench.solve_opt(inst, "maxflow", work_limit=30)
        assert opt.status == "optimal"
        assert (opt.value == flow_lower_bound(inst, "maxflow").lower_bound) == trivial, (load, opt)


@pytest.mark.parametrize("compress", [False, True])
def test_reading_a_log_closes_every_file_it_opens(tmp_path, monkeypatch, compress):
    """A GzipFile over an open file never closes that file: the reader let it leak (a
    ResourceWarning per gzip log read) until gzip was made to own its file."""
    import builtins

    from schedbench.scheduling.instances import _swf

    opened = []

    def tracking_open(*args, **kwargs):
        f = builtins.open(*args, **kwargs)
        opened.append(f)
        return f

    monkeypatch.setattr(_swf, "open", tracking_open, raising=False)
    p = tmp_path / "log.swf"
    p.write_bytes(gzip.compress((HEADER + JOBS).encode()) if compress else (HEADER + JOBS).encode())
    assert len(parse_swf(p)) > 0
    assert opened and all(f.closed for f in opened)
