"""The one settings object (``settings_schema.ScoreSettings`` with its ``EncoderChoice``): what
its operations mean, as every front end and engine relies on them."""

from __future__ import annotations

import pickle

import pytest

from refscore.scoring.report import ScoreRequest
from refscore.settings_schema import (DEFAULT_SETTINGS, NO_ENCODER_CHOICE, BadSetting, EncoderChoice,
                                      ScoreSettings)


def test_a_requests_own_encoder_choice_wins_over_an_engines_defaults() -> None:
    engine = EncoderChoice(model="m", layer=4, device="cpu", idf="/idf.json", backend="onnx")
    assert EncoderChoice(layer=0).over(engine) == EncoderChoice("m", 0, "cpu", "/idf.json", "onnx")  # 0 is a layer
    assert EncoderChoice(model="n", backend="torch").over(engine) == EncoderChoice("n", 4, "cpu", "/idf.json", "torch")
    assert NO_ENCODER_CHOICE.over(engine) == engine and engine.over(NO_ENCODER_CHOICE) == engine


def test_changed_names_settings_flat_and_refuses_other_names() -> None:
    changed = DEFAULT_SETTINGS.changed(layer=2, metrics=["codebleu"], weights=[1, 1, 1, 1])
    assert changed.encoder == EncoderChoice(layer=2) and changed.metrics == ("codebleu",)
    assert changed.weights == (1, 1, 1, 1) and DEFAULT_SETTINGS == ScoreSettings()  # the default is untouched
    for bad in ({"encoder": NO_ENCODER_CHOICE}, {"context": "x"}, {"lyaer": 2}):
        with pytest.raises(TypeError, match="not a setting"):
            DEFAULT_SETTINGS.changed(**bad)


def test_checked_applies_each_settings_rule_and_names_the_one_refused() -> None:
    settings = ScoreSettings.checked({"backend": "ONNX-int8", "device": "CUDA:1", "layer": "3", "idf": None,
                                      "weights": "1,1,2,0"}, text=True)
    assert settings.encoder == EncoderChoice(layer=3, device="cuda:1", backend="onnx-int8")
    assert settings.weights == (1.0, 1.0, 2.0, 0.0)
    assert ScoreSettings.checked({"metrics": []}).metrics == ()  # a request may name none (the daemon's text metrics)
    with pytest.raises(BadSetting, match="names no metric"):
        ScoreSettings.checked({"metrics": ""}, text=True)  # a command line must name one
    with pytest.raises(BadSetting) as refused:
        ScoreSettings.checked({"metrics": ["codebleu"], "layer": -1})
    assert (refused.value.name, refused.value.value) == ("layer", -1) and "hidden layer" in str(refused.value)
    with pytest.raises(BadSetting, match="absolute"):
        ScoreSettings.checked({"idf": "idf.json"}, absolute_idf=True)


def test_a_request_carries_one_settings_object_and_travels_whole() -> None:
    settings = DEFAULT_SETTINGS.changed(layer=1, inputs="f(1)\n", unsandboxed=True)
    request = ScoreRequest("x = 1", "x = 2", "python", "ctx", settings=settings, live=True)
    assert request.settings is settings and request.references == ("x = 2",)
    assert (request.metrics, request.inputs, request.unsandboxed, request.encoder.layer) == \
        (settings.metrics, "f(1)\n", True, 1)
    assert pickle.loads(pickle.dumps(request)) == request and hash(request) == hash(pickle.loads(pickle.dumps(request)))
    assert ScoreRequest("x = 1", ("x = 2",), "python", "ctx", settings=settings, live=True, layer=5).encoder.layer == 5
