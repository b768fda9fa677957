#!/usr/bin/env bash
# Set up The Littlest JupyterHub (TLJH) for a class on toolcall-lab. Run as root on the hub's
# machine, after TLJH itself is installed (https://tljh.jupyter.org/en/latest/install/):
#
#   sudo bash classroom/tljh/install.sh https://github.com/OWNER/toolcall-lab main
#
# It installs the kit into the environment every learner shares, with the same quiet
# JupyterLab settings as `python3 dev.py lab`; copies the class settings (every learner's
# TOOLCALL_LAB_* variables) into TLJH's folder for extra JupyterHub configuration; sets
# JupyterLab as the default app, a memory limit and the idle culler; and reloads the hub.
# Learners then open the links `python -m toolcall_lab links --repo URL --hub https://HUB` prints.
set -euo pipefail
repo="${1:?give the repository URL of the kit, e.g. https://github.com/OWNER/toolcall-lab}"
branch="${2:-main}"
here="$(cd "$(dirname "$0")" && pwd)"
user_env=/opt/tljh/user  # the learners' shared environment (TLJH docs: "user environment")

# 1. The kit and what the lessons need, for every learner. nbgitpuller comes with TLJH.
#    https://tljh.jupyter.org/en/latest/howto/user-env/user-environment.html
"$user_env/bin/pip" install --no-cache-dir "toolcall-lab[lab] @ git+${repo}@${branch}"

# 2. No news, no update check in JupyterLab: the settings `python3 dev.py lab` writes.
#    JupyterLab reads overrides.json from <prefix>/share/jupyter/lab/settings/.
mkdir -p "$user_env/share/jupyter/lab/settings"
cp "$here/../lab-overrides.json" "$user_env/share/jupyter/lab/settings/overrides.json"

# 3. Every learner's environment (Spawner.environment): any .py file in this folder is
#    read as JupyterHub configuration (TLJH docs: "Arbitrary JupyterHub configuration").
#    https://tljh.jupyter.org/en/latest/topic/escape-hatch.html
mkdir -p /opt/tljh/config/jupyterhub_config.d
cp "$here/jupyterhub_config.d/toolcall_lab.py" /opt/tljh/config/jupyterhub_config.d/

# 4. JupyterLab by default, a memory limit per learner, and the idle culler: a server idle
#    for an hour is stopped (its files stay). Keys: tljh/configurer.py in TLJH's repository.
#    https://tljh.jupyter.org/en/latest/topic/tljh-config.html
tljh-config set user_environment.default_app jupyterlab
tljh-config set limits.memory 1G           # measured: a learner on lesson 1 uses about 0.35 GB
tljh-config set services.cull.enabled true
tljh-config set services.cull.timeout 3600
tljh-config set services.cull.every 300
tljh-config reload hub
