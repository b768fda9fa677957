"""Shared test helpers: the loopback API double, and real providers pointed at it."""

from __future__ import annotations

import contextlib

import pytest
from hypothesis import HealthCheck, settings

from toolcall_lab.wire import API_SPECS

# The one Hypothesis profile of the suite: no deadline (two cores shared by several runs make
# any example's time noise) and no too-slow health check; each test bounds its own examples.
settings.register_profile("toolcall-lab", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile("toolcall-lab")

#: provider name -> the API its codec speaks: the provider that speaks each API by default
REAL_PROVIDERS = {spec.provider: spec.name for spec in API_SPECS.values()}
#: What a test puts in the environment or passes as a key: it must never show up anywhere.
SECRET = "sk-test-SECRET-123"


@pytest.fixture(autouse=True)
def strict_checks():
    """In tests a wrong answer raises `WrongAnswer` (in a notebook it prints its line and
    returns): the wrong-answer table asserts each rejection with `pytest.raises`."""
    from toolcall_lab.selfcheck import strict

    with strict():
        yield


@pytest.fixture
def make_double():
    """Start API doubles (`make_double(policy)`); all are stopped when the test ends."""
    from toolcall_lab.double import ApiDouble

    with contextlib.ExitStack() as stack:
        yield lambda policy=None, **kw: stack.enter_context(ApiDouble(policy, **kw))


@pytest.fixture
def double(make_double):
    """An API double playing the lessons' weather model."""
    return make_double()


def real_provider(name: str, double, **options):
    """A real provider (its SDK, its codec) pointed at the API double."""
    from toolcall_lab import get_provider

    if name == "ollama":
        pytest.importorskip("ollama")
    options.setdefault("api_key", SECRET)
    return get_provider(name, base_url=double.base_url(REAL_PROVIDERS[name]), **options)
