"""toolcall-lab's settings for every learner on a JupyterHub; TLJH reads this file from
/opt/tljh/config/jupyterhub_config.d/ (https://tljh.jupyter.org/en/latest/topic/escape-hatch.html).

`Spawner.environment` sets variables in each learner's server, so in every kernel
(https://jupyterhub.readthedocs.io/en/stable/reference/api/spawner.html#jupyterhub.spawner.Spawner.environment):
the lessons' `provider_from_env()` reads TOOLCALL_LAB_PROVIDER, TOOLCALL_LAB_MODEL and
TOOLCALL_LAB_BASE_URL. The default below keeps every lesson offline and free: the scripted
model. To run a class against a model, set them here, e.g. a local Ollama server the
hub's machine runs for everyone:

    "TOOLCALL_LAB_PROVIDER": "ollama", "TOOLCALL_LAB_BASE_URL": "http://127.0.0.1:11434",

Or replay a run the teacher recorded once against a real model (`TOOLCALL_LAB_RECORD`, see
docs/teaching.md): every learner gets that model's answers through the real SDK, with no key,
no cost and no rate limit. The tape must be readable by every learner:

    "TOOLCALL_LAB_TAPE": "/srv/toolcall-lab/class.tape.json",

A value may also be a function of the spawner, evaluated per learner (for one server per
group, say): `lambda spawner: URLS[spawner.user.name]`. Never put an API key here: every
learner could read it from their kernel's environment.

The API double a lesson starts listens on a free loopback port of its own (`ApiDouble()`
binds port 0), so learners on one machine, who share its loopback, never meet each other's.
"""

c = get_config()  # noqa: F821  (JupyterHub defines get_config when it reads this file)
c.Spawner.environment.update({
    "TOOLCALL_LAB_PROVIDER": "scripted",
})
