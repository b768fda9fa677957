"""A whole lesson recorded once and replayed by the class, through the environment alone.

The teacher sets `TOOLCALL_LAB_PROVIDER` (and a key) and `TOOLCALL_LAB_RECORD=class.tape.json`
and runs a lesson; every learner sets only `TOOLCALL_LAB_TAPE=class.tape.json` (on a hub,
through `Spawner.environment`) and runs the same lesson with no key and no server. Here the
"real" API is an `ApiDouble` playing the lessons' model, stopped before the replay, so the
replay can only have come from the tape.
"""

from __future__ import annotations

import json

import pytest

from test_swap import cell_errors
from toolcall_lab import ApiDouble
from toolcall_lab.examples import weather_policy
from toolcall_lab.tape import load
from toolcall_lab.tape.environment import provider_from_env
from toolcall_lab.teacher.lesson_usage import kernel_environment

LESSON = "01_one_tool_call.ipynb"
KEY = "sk-ant-teacher-secret-0123456789"


@pytest.mark.slow
def test_a_lesson_recorded_by_the_teacher_replays_for_a_learner_with_no_key(tmp_path):
    tape_path = tmp_path / "class.tape.json"
    with ApiDouble(weather_policy) as double:
        teacher = kernel_environment("anthropic", double.base_url("anthropic"))
        teacher |= {"TOOLCALL_LAB_RECORD": str(tape_path), "ANTHROPIC_API_KEY": KEY}
        assert cell_errors(LESSON, teacher) == []
        served = len(double.requests)
    tape = load(tape_path)
    assert tape.provider == "anthropic" and len(tape.exchanges) >= 2
    assert served == len(tape.exchanges)  # every request the SDK made is on the tape
    assert "toolcall-lab API double" in tape.label  # a tape says what answered it
    assert KEY not in tape_path.read_text() and KEY[:12] not in json.dumps(tape.to_dict())

    learner = kernel_environment(None, None) | {"TOOLCALL_LAB_TAPE": str(tape_path)}
    assert cell_errors(LESSON, learner) == []  # the double is gone: every answer came off the tape


def test_the_environment_picks_replay_and_refuses_to_record_the_scripted_model(tmp_path):
    provider = provider_from_env(environ={"TOOLCALL_LAB_TAPE": "anthropic_weather"})
    assert provider.name == "anthropic" and provider.model == "claude-haiku-4-5"
    with pytest.raises(Exception, match="TOOLCALL_LAB_PROVIDER") as refused:
        provider_from_env(environ={"TOOLCALL_LAB_RECORD": str(tmp_path / "t.json")})
    assert type(refused.value).__name__ == "UsageError"


def test_recording_adds_to_a_tape_of_the_same_model_and_refuses_another(tmp_path):
    from toolcall_lab import run_agent
    from toolcall_lab.tools import get_weather

    path = tmp_path / "course.tape.json"
    with ApiDouble(weather_policy) as double:
        env = {"TOOLCALL_LAB_PROVIDER": "anthropic", "TOOLCALL_LAB_BASE_URL": double.base_url("anthropic"),
               "TOOLCALL_LAB_RECORD": str(path), "ANTHROPIC_API_KEY": KEY}
        run_agent(provider_from_env(environ=env), "Weather in Paris?", tools=[get_weather])
        first = len(load(path).exchanges)
        run_agent(provider_from_env(environ=env), "Weather in Cairo?", tools=[get_weather])
        assert len(load(path).exchanges) == 2 * first  # lesson after lesson, one tape
        other = env | {"TOOLCALL_LAB_MODEL": "claude-opus-5"}
        with pytest.raises(Exception, match="record to another file"):
            provider_from_env(environ=other)
