"""Hostile instance input (docs/hostile-input.md): every bad instance file, every malformed
``Instance.from_lists`` call and every instance beyond the documented bounds is one
:class:`InstanceError` that names the file (for a file) and the field — never another exception,
never a traceback at the command line, never a silently wrong answer.

The generated test corrupts valid instance files the ways a disk, a copy or a hand-edit does
(truncation, flipped bytes, a dropped field, a changed dtype or shape, and damaged bytes inside
one array that a re-zip gives a valid CRC, so that numpy's .npy parser sees them) and accepts
exactly two outcomes: an InstanceError naming the file, or an instance that validates and runs.
"""

from __future__ import annotations

import io
import itertools
import json
import math
import os
import subprocess
import sys
import zipfile
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import schedbench
from schedbench.cli import main
from schedbench.scheduling.model import MAX_MACHINES, MAX_TOTAL, Instance, InstanceError
from schedbench.scheduling.offline import opt_makespan
from schedbench.scheduling.offline.makespan import SolverLimitError

from ..strategies import instances

FIELDS = ("m", "release", "size", "indptr", "indices", "w_flow", "w_reject", "meta")
_counter = itertools.count()


def _arrays(inst: Instance) -> dict[str, np.ndarray]:
    """The arrays ``Instance.save`` writes, as a dict (to write variants of them)."""
    return dict(
        format_version=np.int64(1),
        m=np.int64(inst.m),
        release=inst.release,
        size=inst.size,
        indptr=inst.indptr,
        indices=inst.indices,
        w_flow=inst.w_flow,
        w_reject=inst.w_reject,
        meta=np.asarray(json.dumps(inst.meta, sort_keys=True)),
    )


def _small() -> Instance:
    return Instance.from_lists(
        3, [0, 1, 1], [4, 1, 2], [[2], [0, 1], [1, 2]], w_flow=[1.0, 0.5, 2.0], meta={"family": "hand"}
    )


def _write(path, data: dict, compressed: bool = False) -> None:
    with open(path, "wb") as fh:  # a file object: numpy does not append '.npz' to the name
        (np.savez_compressed if compressed else np.savez)(fh, **data)


def _write_damaged_member(path, data: dict, key: str, changes, compressed: bool) -> None:
    """An archive whose member ``key``.npy has bytes replaced, with correct CRCs."""
    members = {}
    for name, value in data.items():
        buf = io.BytesIO()
        np.save(buf, value)
        members[name] = bytearray(buf.getvalue())
    raw = members[key]
    for pos, byte in changes:
        raw[pos % len(raw)] = byte
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED if compressed else zipfile.ZIP_STORED) as z:
        for name, content in members.items():
            z.writestr(f"{name}.npy", bytes(content))


def _assert_names_file(exc: InstanceError, path) -> None:
    text = str(exc)
    assert text.startswith(f"{path}: "), text
    assert "\n" not in text


# ------------------------------------------------------------------ generated corruption
_DTYPES = ("float64", "float32", "bool", "U3", "complex128", "uint8", "int8", "object")


@st.composite
def _corrupted(draw):
    inst = draw(instances(max_m=4, max_n=6))
    data = _arrays(inst)
    compressed = draw(st.booleans())
    how = draw(st.sampled_from(("truncate", "flip", "drop", "dtype", "shape", "member")))
    edit: tuple = (how,)
    if how == "drop":
        key = draw(st.sampled_from(FIELDS))
        del data[key]
        edit += (key,)
    elif how == "dtype":
        key = draw(st.sampled_from(FIELDS))
        dtype = draw(st.sampled_from(_DTYPES))
        try:
            data[key] = np.asarray(data[key]).astype(dtype)
        except (ValueError, TypeError):  # e.g. the JSON string as float: keep a string of that dtype
            data[key] = np.asarray(str(data[key])).astype(object)
        edit += (key, dtype)
    elif how == "shape":
        key = draw(st.sampled_from(FIELDS))
        arr = np.asarray(data[key])
        shape = draw(st.sampled_from(("2d", "scalar", "empty", "longer")))
        data[key] = {
            "2d": arr.reshape(-1, 1) if arr.ndim else arr.reshape(1, 1),
            "scalar": arr.reshape(-1)[0] if arr.size else np.int64(0),
            "empty": arr.reshape(-1)[:0],
            "longer": np.concatenate([arr.reshape(-1), arr.reshape(-1)[:1]]) if arr.size else arr,
        }[shape]
        edit += (key, shape)
    if how == "truncate":
        edit += (draw(st.floats(0, 1, exclude_max=True)),)
    elif how == "member":  # (field, [(position, new byte)]): positions mostly in the .npy header
        edit += (
            draw(st.sampled_from(FIELDS)),
            draw(
                st.lists(
                    st.tuples(
                        st.integers(0, 200),
                        st.one_of(st.integers(0, 255), st.sampled_from(list(b"0123456789(),'<>|iufbUSOc \\"))),
                    ),
                    min_size=1,
                    max_size=4,
                )
            ),
        )
    elif how == "flip":
        edit += (
            draw(st.lists(st.tuples(st.floats(0, 1, exclude_max=True), st.integers(1, 255)), min_size=1, max_size=8)),
        )
    return data, compressed, edit


@settings(
    max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture]
)
@given(case=_corrupted())
def test_corrupted_file_is_instance_error_naming_the_file_or_a_valid_instance(tmp_path, case):
    data, compressed, edit = case
    path = tmp_path / f"c{next(_counter)}.npz"
    if edit[0] == "member":
        _write_damaged_member(path, data, edit[1], edit[2], compressed)
    else:
        _write(path, data, compressed)
    raw = bytearray(path.read_bytes())
    if edit[0] == "truncate":
        raw = raw[: int(edit[1] * len(raw))]
    elif edit[0] == "flip":
        for where, xor in edit[1]:
            raw[int(where * len(raw))] ^= xor
    path.write_bytes(bytes(raw))
    try:
        back = Instance.load(path)
    except InstanceError as exc:
        _assert_names_file(exc, path)
        return
    # Accepted: it must be a valid instance (re-validating its arrays succeeds) that runs.
    assert isinstance(back.meta, dict)
    again = Instance(back.m, back.release, back.size, back.indptr, back.indices, back.w_flow, back.w_reject, back.meta)
    assert again.n == back.n >= 1 and int(back.release.max()) + int(back.size.sum()) <= MAX_TOTAL
    if back.m <= 64 and back.n <= 64:  # a flipped byte may make m huge: do not allocate for it
        assert schedbench.run("greedy", back, solve=False).valid  # the online run; its OPT is not the point


# ------------------------------------------------------------------ each file fault, by hand
def _good_bytes(tmp_path) -> bytes:
    path = tmp_path / "good.npz"
    _small().save(path)
    return path.read_bytes()


def _crc_broken(tmp_path) -> bytes:
    """An uncompressed archive with one byte of the 'size' array's data changed."""
    path = tmp_path / "plain.npz"
    _write(path, _arrays(_small()))
    raw = bytearray(path.read_bytes())
    with zipfile.ZipFile(path) as z:
        info = z.getinfo("size.npy")
    local = info.header_offset  # local header: name length at +26, extra length at +28
    start = (
        local
        + 30
        + int.from_bytes(raw[local + 26 : local + 28], "little")
        + int.from_bytes(raw[local + 28 : local + 30], "little")
    )
    raw[start + info.compress_size - 1] ^= 0x01  # the last data byte: the header still parses
    return bytes(raw)


FILE_CASES = {
    "zero-byte": (lambda tp: b"", "empty file, 0 bytes"),
    "truncated-half": (lambda tp: _good_bytes(tp)[: len(_good_bytes(tp)) // 2], "truncated or corrupted"),
    "truncated-end": (lambda tp: _good_bytes(tp)[:-3], "truncated or corrupted"),
    "truncated-head": (lambda tp: _good_bytes(tp)[:7], "truncated or corrupted"),
    "not-zip": (lambda tp: b"release,size\n0,1\n", "not an .npz archive"),
    "npy-not-npz": (lambda tp: b"\x93NUMPY\x01\x00" + b" " * 40, "an .npy file"),
    "bad-crc": (
        _crc_broken,
        "field 'size': cannot read the array (BadZipFile: Bad CRC-32 for file "
        "'size.npy'); the file is truncated, corrupted or not written by Instance.save",
    ),
}


@pytest.mark.parametrize("name", sorted(FILE_CASES))
def test_damaged_file(tmp_path, name):
    make, message = FILE_CASES[name]
    path = tmp_path / f"{name}.npz"
    path.write_bytes(make(tmp_path))
    with pytest.raises(InstanceError) as info:
        Instance.load(path)
    _assert_names_file(info.value, path)
    assert message in str(info.value)


def test_member_that_is_not_npy(tmp_path):
    # numpy returns such a member as raw bytes instead of raising
    path = tmp_path / "i.npz"
    _write(path, _arrays(_small()))
    with zipfile.ZipFile(path) as z:
        members = {name: z.read(name) for name in z.namelist()}
    members["size.npy"] = b"4,1,2"
    with zipfile.ZipFile(path, "w") as z:
        for name, content in members.items():
            z.writestr(name, content)
    with pytest.raises(InstanceError, match=r"field 'size': not an array \(the archive member is not in .npy"):
        Instance.load(path)


def test_meta_with_characters_outside_unicode(tmp_path):
    # damaged UCS-4 text: json's scanner used to die with SystemError on it
    data = _arrays(_small())
    data["meta"] = np.array([0x7B, 0x110000, 0x7D], dtype="<u4").view("<U3").reshape(())
    path = tmp_path / "i.npz"
    _write(path, data)
    with pytest.raises(InstanceError, match=r"field 'meta': not valid text \(a character outside Unicode\)"):
        Instance.load(path)


def test_damaged_header_warning_is_not_printed(tmp_path, recwarn):
    # A backslash in a damaged .npy header made numpy's parser emit a SyntaxWarning (a second
    # stderr line at the command line) before failing.
    data = _arrays(_small())
    path = tmp_path / "i.npz"
    buf = io.BytesIO()
    np.save(buf, data["size"])
    header_at = buf.getvalue().index(b"'descr'")
    _write_damaged_member(path, data, "size", [(header_at + 1, ord("\\")), (header_at + 2, ord("q"))], False)
    with pytest.raises(InstanceError, match="field 'size': cannot read the array"):
        Instance.load(path)
    assert not [w for w in recwarn if not issubclass(w.category, ResourceWarning)]


def test_missing_file_directory_fifo_and_device(tmp_path):
    fifo = tmp_path / "fifo.npz"
    os.mkfifo(fifo)  # opened, it would block until a writer comes: refused before
    cases = [
        (tmp_path / "nope.npz", "No such file"),
        (tmp_path, "a folder"),
        (fifo, "not a regular file: a FIFO"),
        (Path("/dev/zero"), "not a regular file"),
    ]
    for path, message in cases:
        with pytest.raises(InstanceError, match=message) as info:
            Instance.load(path)
        _assert_names_file(info.value, path)


ARRAY_CASES = {
    # field replaced -> message fragment
    "release-2d": ("release", np.zeros((3, 1), np.int64), "field 'release': expected a 1-d array, got shape (3, 1)"),
    "release-scalar": ("release", np.int64(0), "field 'release': expected a 1-d array, got shape ()"),
    "size-strings": ("size", np.array(["4", "1", "2"]), "field 'size': expected an integer array, got dtype <U1"),
    "size-float": ("size", np.array([4.0, 1.0, 2.0]), "field 'size': expected an integer array, got dtype float64"),
    "size-bool": ("size", np.ones(3, bool), "field 'size': expected an integer array, got dtype bool"),
    "size-complex": (
        "size",
        np.array([4, 1, 2], complex),
        "field 'size': expected an integer array, got dtype complex128",
    ),
    "size-short": ("size", np.array([4, 1]), "field 'size': 2 values but 'release' has 3"),
    "indices-float": ("indices", np.array([2.0, 0, 1, 1, 2]), "field 'eligible.indices': expected an integer array"),
    "indices-fraction": (
        "indices",
        np.array([2.0, 0.5, 1, 1, 2]),
        "field 'eligible.indices': expected an integer array",
    ),
    "indices-out-of-range": ("indices", np.array([2, 0, 1, 1, 3]), "job 2: field 'eligible' has machine 3"),
    "indptr-wrong-end": ("indptr", np.array([0, 1, 3, 9]), "field 'eligible.indptr': must start at 0 and end"),
    "size-uint64-huge": (
        "size",
        np.array([2**64 - 1, 1, 1], np.uint64),
        "job 0: field 'size' = 18446744073709551615 is out of range",
    ),
    "m-float": ("m", np.float64(3.0), "field 'm': expected an integer scalar, got dtype float64"),
    "m-fraction": ("m", np.float64(3.5), "field 'm': expected an integer scalar, got dtype float64"),
    "m-array": ("m", np.array([3, 3]), "field 'm': expected an integer scalar, got dtype int64, shape (2,)"),
    "m-string": ("m", np.asarray("3"), "field 'm': expected an integer scalar, got dtype <U1"),
    "m-zero": ("m", np.int64(0), "field 'm': number of machines must be an integer >= 1"),
    "m-huge": ("m", np.int64(2**40), f"field 'm': 1099511627776 machines, more than the bound {MAX_MACHINES}"),
    "w_flow-strings": ("w_flow", np.array(["a", "b", "c"]), "field 'w_flow': expected a float array, got dtype <U1"),
    "w_reject-zero": ("w_reject", np.array([1.0, 0.0, 1.0]), "job 1: field 'w_reject' must be a finite number > 0"),
    "meta-not-json": ("meta", np.asarray("{family: hand"), "field 'meta': not valid JSON"),
    "meta-deep-json": ("meta", np.asarray("[" * 100000), "field 'meta': not valid JSON (maximum recursion depth"),
    "meta-json-list": ("meta", np.asarray("[1, 2]"), "field 'meta': expected a JSON object, got list"),
    "meta-json-number": ("meta", np.asarray("3"), "field 'meta': expected a JSON object, got int"),
    "meta-not-string": ("meta", np.int64(3), "field 'meta': expected a JSON string, got dtype int64"),
    "meta-bytes": ("meta", np.asarray(b"{}"), "field 'meta': expected a JSON string, got dtype |S2"),
    "meta-array": ("meta", np.array(["{}", "{}"]), "field 'meta': expected a JSON string"),
    "format-version": ("format_version", np.int64(2), "field 'format_version': this version reads format 1"),
    "size-2^62": ("size", np.array([2**62, 1, 1]), "job 0: field 'size' = 4611686018427387904 exceeds the bound"),
    "release-2^53": (
        "release",
        np.array([0, 2**53, 0]),
        "job 1: field 'release' = 9007199254740992 plus the total size 7",
    ),
}


@pytest.mark.parametrize("name", sorted(ARRAY_CASES))
@pytest.mark.parametrize("compressed", [False, True])
def test_wrong_array(tmp_path, name, compressed):
    key, value, message = ARRAY_CASES[name]
    data = _arrays(_small())
    data[key] = value
    path = tmp_path / f"{name}.npz"
    _write(path, data, compressed)
    with pytest.raises(InstanceError) as info:
        Instance.load(path)
    _assert_names_file(info.value, path)
    assert message in str(info.value)


@pytest.mark.parametrize("key", FIELDS)
def test_missing_field(tmp_path, key):
    data = _arrays(_small())
    del data[key]
    path = tmp_path / "i.npz"
    _write(path, data)
    with pytest.raises(InstanceError, match=f"field '{key}' is missing") as info:
        Instance.load(path)
    _assert_names_file(info.value, path)


def test_pickled_object_array_is_refused(tmp_path):
    data = _arrays(_small())
    data["size"] = np.array([4, 1, None], dtype=object)
    path = tmp_path / "i.npz"
    _write(path, data)  # numpy writes object arrays with pickle; load never unpickles
    with pytest.raises(InstanceError, match="field 'size': cannot read the array .*allow_pickle=False") as info:
        Instance.load(path)
    _assert_names_file(info.value, path)


def test_accepted_variants_load_unchanged(tmp_path):
    # Not faults: no format_version (older writers), other integer widths, integer weights, and
    # NaN inside meta (json round-trips it).
    inst = _small()
    data = _arrays(inst)
    del data["format_version"]
    data.update(
        size=inst.size.astype(np.int32),
        indices=inst.indices.astype(np.uint8),
        w_reject=np.array([1, 2, 3]),
        meta=np.asarray('{"x": NaN}'),
    )
    path = tmp_path / "i.npz"
    _write(path, data)
    back = Instance.load(path)
    assert back.size.tolist() == [4, 1, 2] and back.size.dtype == np.int64
    assert back.w_reject.tolist() == [1.0, 2.0, 3.0] and math.isnan(back.meta["x"])


# ------------------------------------------------------------------ the size bound
def test_sizes_of_2_62_are_refused_not_a_wrong_optimum():
    # Before: Σp wrapped int64 and opt_makespan called 2^62 "optimal" (OPT is 2^63).
    with pytest.raises(
        InstanceError, match=r"job 0: field 'size' = 4611686018427387904 exceeds the bound 9007199254740992 = 2\^53"
    ):
        Instance.from_lists(2, [0] * 4, [2**62] * 4, [[0, 1]] * 4)


def test_total_size_bound_is_inclusive_and_names_the_field():
    ok = Instance.from_lists(2, [0, 0], [2**52, 2**52], [[0], [1]])
    assert int(ok.size.sum()) == MAX_TOTAL == 2**53
    with pytest.raises(InstanceError, match=r"field 'size': total size 9007199254740993 exceeds the bound"):
        Instance.from_lists(2, [0, 0], [2**52, 2**52 + 1], [[0], [1]])
    with pytest.raises(InstanceError, match=r"field 'size': total size exceeds the bound .*about"):
        Instance.from_lists(1, [0] * 2000, [2**53] * 2000, [[0]] * 2000)  # the int64 sum would wrap
    with pytest.raises(InstanceError, match=r"job 1: field 'release' = 9007199254740990 plus the total size 3"):
        Instance.from_lists(1, [0, 2**53 - 2], [1, 2], [[0], [0]])


@pytest.mark.parametrize(
    "release, message",
    [
        ([1e30], "job 0: field 'release' = 1e+30 is out of range (beyond int64)"),
        ([2**63], "job 0: field 'release' = 9223372036854775808 is out of range (beyond int64)"),
        ([2**70], "job 0: field 'release' = 1180591620717411303424 is out of range (beyond int64)"),
        ([float("inf")], "job 0: field 'release' must be an integer, got inf"),
        ([None], "job 0: field 'release' must be an integer, got None"),
    ],
)
def test_out_of_range_numbers_name_the_field(release, message):
    with pytest.raises(InstanceError) as info:
        Instance.from_lists(1, release, [1], [[0]])
    assert message in str(info.value)


def test_max_flow_limit_is_a_solver_limit_error_naming_size():
    # Within the instance bound, beyond scipy's int32 max-flow capacities: a clear error.
    inst = Instance.from_lists(2, [0] * 3, [2**30] * 3, [[0, 1]] * 3)
    with pytest.raises(SolverLimitError, match="field 'size': total size 3221225472 is too large"):
        opt_makespan(inst)


# ------------------------------------------------------------------ Instance.from_lists
@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(eligible=[[0.5]]), "job 0: field 'eligible' has machine 0.5, not an integer index"),
        (dict(eligible=[[1.5, 0]]), "job 0: field 'eligible' has machine 1.5, not an integer index"),
        (dict(eligible=[[float("nan")]]), "job 0: field 'eligible' has machine nan, not an integer index"),
        (dict(eligible=[["1"]]), "job 0: field 'eligible' has machine '1', not an integer index"),
        (dict(eligible=[[True]]), "job 0: field 'eligible' has machine True, not an integer index"),
        (dict(eligible=[[None]]), "job 0: field 'eligible' has machine None, not an integer index"),
        (dict(eligible=[[[0]]]), "job 0: field 'eligible' has machine [0], not an integer index"),
        (
            dict(eligible=[0]),
            "job 0: field 'eligible' must be a list of machine indices, got int 0 (eligible is a list of lists",
        ),
        (dict(eligible=["01"]), "job 0: field 'eligible' must be a list of machine indices, got str '01'"),
        (dict(eligible=0), "field 'eligible': expected a list with one entry per job, got int 0"),
        (dict(eligible=iter([[0]])), "field 'eligible': expected a list with one entry per job, got list_iterator"),
        (dict(release=3), "field 'release': expected a list with one entry per job, got int 3"),
        (dict(release=None), "field 'release': expected a list with one entry per job, got NoneType"),
        (dict(release="0"), "field 'release': expected a list with one entry per job, got str '0'"),
        (dict(release={0}), "field 'release': expected a list with one entry per job, got set"),
        (dict(release=[[0], [1, 2]], size=[1, 1], eligible=[[0], [0]]), "field 'release': not a 1-d list of numbers"),
        (dict(size=3), "field 'size': expected a list with one entry per job, got int 3"),
        (dict(size=[1 + 1j]), "field 'size': expected integers, got dtype complex128"),
        (dict(size=[True]), "field 'size': expected integers, got dtype bool"),
        (dict(w_flow=2.0), "field 'w_flow': expected a list with one entry per job, got float 2.0"),
        (dict(w_flow=["x"]), "field 'w_flow': expected numbers, got dtype <U1"),
        (dict(w_flow=[1 + 0j]), "field 'w_flow': expected numbers, got dtype complex128"),
        (dict(w_reject=[None]), "job 0: field 'w_reject' must be a finite number > 0, got nan"),
        (dict(meta=[("a", 1)]), "field 'meta': expected a dict, got list"),
        (dict(m=2**70), "field 'm': 1180591620717411303424 machines, more than the bound 2147483647"),
    ],
)
def test_from_lists_bad_arguments_name_the_field(kwargs, message):
    args = dict(m=2, release=[0], size=[1], eligible=[[0]]) | kwargs
    with pytest.raises(InstanceError) as info:
        Instance.from_lists(**args)
    assert message in str(info.value)


def test_from_lists_accepts_integer_valued_floats_sets_and_arrays():
    # Integer-valued floats are integers (as for release and size); sets and rows of a 2-d
    # array are lists of machines. Only a fractional index is refused.
    inst = Instance.from_lists(3, [0.0, 1], np.array([2, 1]), [{2, 0}, np.array([1.0])])
    assert inst.indices.tolist() == [0, 2, 1] and inst.indptr.tolist() == [0, 2, 3]
    assert inst.release.tolist() == [0, 1]


def test_no_jobs_is_an_error_everywhere(tmp_path):
    # n = 0 is refused (decision: no empty instances; OPT and every objective would be 0, every
    # ratio 0/0, and algorithms that assume T* cannot run), so schedbench.run never sees one.
    with pytest.raises(InstanceError, match=r"field 'release': no jobs \(n = 0\)"):
        Instance.from_lists(2, [], [], [])
    with pytest.raises(InstanceError, match=r"field 'release': no jobs \(n = 0\)"):
        Instance(
            2, np.zeros(0, np.int64), np.zeros(0, np.int64), np.zeros(1, np.int64), np.zeros(0, np.int64), None, None
        )
    data = _arrays(_small())
    data.update(
        release=np.zeros(0, np.int64),
        size=np.zeros(0, np.int64),
        indptr=np.zeros(1, np.int64),
        indices=np.zeros(0, np.int64),
        w_flow=np.zeros(0),
        w_reject=np.zeros(0),
    )
    path = tmp_path / "empty.npz"
    _write(path, data)
    with pytest.raises(InstanceError, match=r"empty\.npz: field 'release': no jobs") as info:
        Instance.load(path)
    _assert_names_file(info.value, path)
    assert main(["run", "greedy", str(path)]) == 2


def test_save_refuses_meta_that_is_not_json(tmp_path):
    inst = Instance.from_lists(1, [0], [1], [[0]], meta={"x": object()})
    with pytest.raises(InstanceError, match="field 'meta' cannot be written as JSON"):
        inst.save(tmp_path / "i.npz")
    assert list(tmp_path.iterdir()) == []  # no temp file left behind


# ------------------------------------------------------------------ the command line
def _cli(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "schedbench.cli", *args], capture_output=True, text=True, timeout=120)


def _hostile_files(tmp_path) -> dict[str, tuple]:
    out = {}
    for name in ("zero-byte", "truncated-half", "bad-crc", "not-zip"):
        path = tmp_path / f"{name}.npz"
        path.write_bytes(FILE_CASES[name][0](tmp_path))
        out[name] = (path, FILE_CASES[name][1])
    for name in ("meta-not-json", "size-strings", "size-2^62", "m-array"):
        key, value, message = ARRAY_CASES[name]
        data = _arrays(_small())
        data[key] = value
        path = tmp_path / f"{name}.npz"
        _write(path, data)
        out[name] = (path, message)
    return out


def test_cli_hostile_files_one_line_exit_2_in_a_subprocess(tmp_path):
    # Real processes: exit code 2, exactly one stderr line naming the file, no traceback.
    files = _hostile_files(tmp_path)
    procs = {}
    for (name, (path, _)), cmd in zip(files.items(), itertools.cycle([("run", "greedy"), ("opt",)])):
        procs[name] = subprocess.Popen(
            [sys.executable, "-m", "schedbench.cli", *cmd, str(path)],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
    for name, proc in procs.items():
        out, err = proc.communicate(timeout=120)
        path, message = files[name]
        assert proc.returncode == 2, (name, err)
        assert "Traceback" not in err and out == ""
        lines = err.splitlines()
        assert len(lines) == 1, (name, err)
        assert lines[0].startswith(f"schedbench: error: {path}: "), lines[0]
        assert message in lines[0]


@pytest.mark.parametrize(
    "name",
    ["zero-byte", "truncated-half", "bad-crc", "not-zip", "meta-not-json", "size-strings", "size-2^62", "m-array"],
)
@pytest.mark.parametrize("command", [["run", "greedy"], ["run", "lb-unit-reject", "--eps", "0.25", "--opt"], ["opt"]])
def test_cli_hostile_files_in_process(tmp_path, capsys, name, command):
    path, message = _hostile_files(tmp_path)[name]
    assert main([*command, str(path)]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.count("\n") == 1 and captured.err.startswith(f"schedbench: error: {path}: ")
    assert message in captured.err


def test_cli_solver_limit_is_one_line(tmp_path):
    path = tmp_path / "big-total.npz"
    Instance.from_lists(2, [0] * 3, [2**30] * 3, [[0, 1]] * 3).save(path)
    proc = _cli("opt", str(path))
    assert proc.returncode == 2 and "Traceback" not in proc.stderr
    assert proc.stderr.splitlines() == [proc.stderr.strip()]
    assert "field 'size': total size 3221225472 is too large for the max-flow bound" in proc.stderr


@pytest.mark.parametrize("algorithm", ["ll-fifo", "wmft-A", "greedy"])
def test_a_run_on_billions_of_machines_is_refused_before_allocating(algorithm, memory_headroom):
    """A valid instance with m = 2^31 − 1 and one job: the per-machine state of any path would
    exhaust the memory, so the run is refused first, naming m (compiled and step path alike,
    with OPT to solve or given: the run's check comes before the offline solve's)."""
    import schedbench

    inst = Instance.from_lists(MAX_MACHINES, [0], [1], [[5]])
    eps = None if algorithm == "greedy" else 0.25
    for fast, solve in itertools.product((True, False), (True, False)):
        opt = 1.0 if algorithm == "wmft-A" or not solve else None
        with pytest.raises(ValueError, match=r"^run: m too large: the per-machine state of 2147483647 machines"):
            schedbench.run(algorithm, inst, eps=eps, opt=opt, fast=fast, solve=solve)


@pytest.mark.parametrize("problem", ["load", "maxflow", "wtdmaxflow", "genwtd", "stretch"])
def test_an_offline_solve_on_billions_of_machines_is_refused_before_allocating(problem, memory_headroom):
    # the greedy upper bound of the makespan solver kept one load per machine: 16 GiB here
    from schedbench.scheduling.offline import solve_opt
    from schedbench.scheduling.offline.makespan import SolverLimitError

    inst = Instance.from_lists(MAX_MACHINES, [0], [1], [[5]])
    with pytest.raises(SolverLimitError, match=r"m too large: the per-machine arrays of 2147483647 machines"):
        solve_opt(inst, problem)


@pytest.mark.parametrize("field", ["w_flow", "w_reject"])
def test_weights_whose_sum_overflows_are_refused_naming_the_field(field):
    # 40 jobs of w_reject = 1e308 (each finite): the sum is inf, and class-ll-srpt on genwtd used
    # to reject 36 of 40 with rejected_frac nan and valid true
    from schedbench.scheduling.model import Instance, InstanceError

    args = (4, list(range(40)), [1] * 40, [[i % 4] for i in range(40)])
    with pytest.raises(InstanceError, match=f"field '{field}': the weights sum to inf"):
        Instance.from_lists(*args, **{field: [1e308] * 40})
    Instance.from_lists(*args, **{field: [1e248] * 40})  # large but summable: accepted


def test_the_validator_fails_a_run_whose_budget_sum_is_not_finite(monkeypatch):
    # defence in depth: whatever let an overflowing weight through, nan never counts as a pass
    import numpy as np

    import schedbench
    from schedbench.scheduling import validate as v
    from schedbench.scheduling.model import Instance

    inst = Instance.from_lists(2, [0, 0, 1, 1], [1, 1, 1, 1], [[0], [0, 1], [1], [0, 1]])
    good = schedbench.run("class-ll-srpt", inst, eps=0.25, problem="genwtd")
    assert good.valid
    prob = v.PROBLEMS["genwtd"]
    monkeypatch.setattr(type(prob), "budget_weights", lambda self, inst: np.full(inst.n, 1e308))
    res = v.validate(good.instance, good.outcome, 0.25, "rejection", "genwtd")
    assert not res.valid and any("non-finite sum" in e for e in res.errors)
