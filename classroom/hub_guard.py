"""Refuse to start a class's hub on a login anyone can pass (toolcall-lab's hub guard).

JupyterHub reads this file as configuration after the authenticator has been chosen, so it
sees what the hub is about to run with:

- TLJH: `classroom/tljh/install.sh` copies it to /opt/tljh/config/jupyterhub_config.d/;
- Zero to JupyterHub: `helm upgrade ... --set-file
  hub.extraConfig.zz-toolcall-lab-guard=classroom/hub_guard.py` (the chart runs
  `hub.extraConfig` at the end of its own configuration, in key order).

A login is *open* when anyone who can reach the hub gets in: the dummy authenticator (any
name, any password), the temporary authenticator (a new user per visit), or first-use
passwords with `create_users` on (anyone can make an account). On a class's hub, reachable
from a network, the hub then stops with one sentence saying what to change. The only
exception is a test on your own machine: the hub bound to loopback and
`TOOLCALL_LAB_OPEN_LOGIN=loopback-test` in its environment (tests/browser/hub_class.py
does not load this file at all).

Standard library only: the hub's environment is not the learners' and has no kit installed.
"""

import os

#: authenticator_class spellings that let anyone in, and what each lets them do
OPEN_AUTHENTICATORS = {
    "dummy": "any user name logs in with any password",
    "DummyAuthenticator": "any user name logs in with any password",
    "tmp": "every visitor is given a new user, no password asked",
    "TmpAuthenticator": "every visitor is given a new user, no password asked",
}
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


def _name(value):
    """The class name of an authenticator_class setting: a string (entry point or dotted path) or a class."""
    text = value if isinstance(value, str) else getattr(value, "__name__", str(value))
    return text.rsplit(".", 1)[-1]


def open_login(config):
    """Why `config` lets anyone in, or None. `config` is the hub's traitlets Config."""
    hub = config.JupyterHub
    chosen = _name(hub.authenticator_class) if "authenticator_class" in hub else "PAMAuthenticator"
    if chosen in OPEN_AUTHENTICATORS:
        return f"{chosen}: {OPEN_AUTHENTICATORS[chosen]}"
    first_use = config.FirstUseAuthenticator
    if chosen == "FirstUseAuthenticator" and "create_users" in first_use and first_use.create_users:
        return "FirstUseAuthenticator with create_users on: anyone who reaches the hub can make an account"
    return None


def guard(config, environ=os.environ):
    """Stop the hub if its login is open, unless it is a loopback-only test that says so."""
    why = open_login(config)
    if why is None:
        return
    hub = config.JupyterHub
    ip = hub.ip if "ip" in hub else ""
    if environ.get("TOOLCALL_LAB_OPEN_LOGIN") == "loopback-test" and ip in LOOPBACK:
        print(f"toolcall-lab: WARNING: an open login ({why}), allowed on {ip} for a test only.")
        return
    raise SystemExit(
        f"toolcall-lab: this hub's login is open to anyone who can reach it ({why}), so it will "
        "not start. Choose who can log in as classroom/README.md says under 'Who can log in' "
        "(the shipped settings: an allow-list of learner names with a teacher as admin).")


guard(get_config())  # noqa: F821  (JupyterHub defines get_config when it reads this file)
