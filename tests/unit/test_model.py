import numpy as np
import pytest

from schedbench.scheduling.model import Instance, InstanceError


def test_from_lists_builds_csr(tiny_instance):
    inst = tiny_instance
    assert inst.n == 3 and inst.m == 2
    assert inst.indptr.tolist() == [0, 1, 3, 4]
    assert inst.eligible(1).tolist() == [0, 1]
    assert inst.w_flow.tolist() == [1.0, 1.0, 1.0]
    assert inst.unit_sizes


def test_arrival_order_is_release_then_array_order():
    inst = Instance.from_lists(1, [2, 0, 2, 0], [1, 1, 1, 1], [[0]] * 4)
    assert inst.arrival_order().tolist() == [1, 3, 0, 2]


def test_save_load_round_trip(tmp_path):
    inst = Instance.from_lists(
        3,
        [0, 1, 1],
        [4, 1, 2],
        [[2], [0, 1], [1, 2]],
        w_flow=[1.0, 0.5, 2.0],
        w_reject=[3.0, 1.0, 1.0],
        meta={"family": "hand", "params": {"x": 1}},
    )
    path = tmp_path / "sub" / "i.npz"
    inst.save(path)
    back = Instance.load(path)
    for field in ("release", "size", "indptr", "indices", "w_flow", "w_reject"):
        np.testing.assert_array_equal(getattr(back, field), getattr(inst, field))
    assert back.m == 3 and back.meta == inst.meta
    assert [p.name for p in path.parent.iterdir()] == ["i.npz"]  # no temp file left behind


def test_arrays_are_read_only(tiny_instance):
    with pytest.raises(ValueError):
        tiny_instance.size[0] = 5


@pytest.mark.parametrize(
    "kwargs, message",
    [
        (dict(m=2, release=[0, 0], size=[1, 1], eligible=[[0], []]), "job 1: field 'eligible' is empty"),
        (
            dict(m=2, release=[0, 0], size=[1, 1], eligible=[[0], [2]]),
            "job 1: field 'eligible' has machine 2, out of range",
        ),
        (dict(m=2, release=[0, -1], size=[1, 1], eligible=[[0], [1]]), "job 1: field 'release' must be >= 0"),
        (dict(m=2, release=[0, 0], size=[1, 0], eligible=[[0], [1]]), "job 1: field 'size' must be >= 1"),
        (dict(m=2, release=[0, 0], size=[1], eligible=[[0], [1]]), "field 'size': 1 values but 'release' has 2"),
        (dict(m=2, release=[0, 0], size=[1, 1], eligible=[[0]]), "field 'eligible': 1 machine lists"),
        (dict(m=2, release=[0, 0.5], size=[1, 1], eligible=[[0], [1]]), "job 1: field 'release' must be an integer"),
        (
            dict(m=2, release=[0, 0], size=[1, 1], eligible=[[0], [1, 1]]),
            "job 1: field 'eligible' lists machine 1 twice",
        ),
        (dict(m=0, release=[0], size=[1], eligible=[[0]]), "field 'm'"),
        (dict(m=2, release=[0, 0], size=[1, 1], eligible=[[0], [1]], w_reject=[1.0, 0.0]), "job 1: field 'w_reject'"),
        (
            dict(m=2, release=[0, 0], size=[1, 1], eligible=[[0], [1]], w_flow=[1.0]),
            "field 'w_flow': expected 2 values",
        ),
    ],
)
def test_bad_input_names_job_and_field(kwargs, message):
    with pytest.raises(InstanceError) as info:
        Instance.from_lists(**kwargs)
    assert message in str(info.value)


def test_load_rejects_file_with_missing_field(tmp_path):
    path = tmp_path / "bad.npz"
    np.savez(path, m=np.int64(2), release=np.zeros(1, np.int64))
    with pytest.raises(InstanceError, match="field 'size' is missing"):
        Instance.load(path)


def test_load_rejects_invalid_contents_with_path(tmp_path, tiny_instance):
    path = tmp_path / "i.npz"
    tiny_instance.save(path)
    data = dict(np.load(path))
    data["indices"] = np.array([0, 0, 1, 5])
    np.savez(path, **data)
    with pytest.raises(InstanceError, match=r"i\.npz: job 2: field 'eligible' has machine 5"):
        Instance.load(path)


def test_load_rejects_non_instance_file(tmp_path):
    path = tmp_path / "x.npz"
    path.write_text("not a zip")
    with pytest.raises(InstanceError, match="not a readable instance file"):
        Instance.load(path)


def test_saved_instances_get_ordinary_permissions(tmp_path):
    import os
    import stat

    from schedbench.scheduling.model import Instance

    path = tmp_path / "i.npz"
    Instance.from_lists(1, [0], [1], [[0]]).save(path)
    mask = os.umask(0)
    os.umask(mask)
    assert stat.S_IMODE(path.stat().st_mode) == 0o666 & ~mask
