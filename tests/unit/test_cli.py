import json

from schedbench.cli import main


def test_list_shows_every_algorithm_with_model_and_rule(capsys):
    assert main(["list"]) == 0
    out = capsys.readouterr().out
    assert "greedy             load     plain      Q" in out
    assert "lb-unit-reject     load     rejection  Q     yes  alpha_rule=paper" in out


def test_generate_opt_run_round_trip(tmp_path, capsys):
    path = str(tmp_path / "i.npz")
    assert main(["generate", "random-restricted", path, "--seed", "3", "--param", "m=3",
                 "--param", "n=9", "--param", "sizes=pow2"]) == 0
    capsys.readouterr()
    assert main(["opt", path]) == 0
    opt = json.loads(capsys.readouterr().out)  # stdout is pure JSON (no solver banner)
    assert opt["status"] == "optimal"
    assert main(["run", "greedy", path]) == 0
    res = json.loads(capsys.readouterr().out)
    assert res["valid"] and res["objective"] >= opt["value"]


def test_errors_are_one_line_and_exit_2(tmp_path, capsys):
    assert main(["run", "greedy", str(tmp_path / "missing.npz")]) == 2
    assert "not a readable instance file" in capsys.readouterr().err
    assert main(["generate", "random-restricted", str(tmp_path / "x.npz"), "--param", "m=2"]) == 2
    assert "parameter 'n' is required" in capsys.readouterr().err
