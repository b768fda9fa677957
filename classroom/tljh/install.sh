#!/usr/bin/env bash
# Set up The Littlest JupyterHub (TLJH) for a class on toolcall-lab. Run as root on the hub's
# machine, after TLJH itself is installed (https://tljh.jupyter.org/en/latest/install/):
#
#   sudo bash classroom/tljh/install.sh https://github.com/OWNER/toolcall-lab main [DOMAIN EMAIL]
#
# Give your hub's DOMAIN (its DNS name pointing at this machine) and your EMAIL to serve it over
# HTTPS with a Let's Encrypt certificate; without them it says loudly that it serves plain HTTP.
#
# It installs the kit into the environment every learner shares, with the same quiet
# JupyterLab settings as `python3 dev.py lab`; copies the class settings (every learner's
# TOOLCALL_LAB_* variables) into TLJH's folder for extra JupyterHub configuration; sets
# JupyterLab as the default app, a memory limit and the idle culler; makes the login an
# allow-list (see "Who can log in" in classroom/README.md) and refuses an open one; and reloads the hub.
# Learners then open the links `python -m toolcall_lab links --repo URL --hub https://HUB` prints.
set -euo pipefail
repo="${1:?give the repository URL of the kit, e.g. https://github.com/OWNER/toolcall-lab}"
branch="${2:-main}"
domain="${3:-}"
email="${4:-}"
here="$(cd "$(dirname "$0")" && pwd)"
user_env=/opt/tljh/user  # the learners' shared environment (TLJH docs: "user environment")

# 1. What the lessons need, at the versions they were checked with (the kit's lock, hashes
#    checked), then the kit itself, for every learner. nbgitpuller comes with TLJH.
#    https://tljh.jupyter.org/en/latest/howto/user-env/user-environment.html
"$user_env/bin/pip" install --no-cache-dir -r "$here/../../requirements/lab.txt"
"$user_env/bin/pip" install --no-cache-dir --no-deps "toolcall-lab @ git+${repo}@${branch}"

# 2. No news, no update check in JupyterLab: the settings `python3 dev.py lab` writes.
#    JupyterLab reads overrides.json from <prefix>/share/jupyter/lab/settings/.
mkdir -p "$user_env/share/jupyter/lab/settings"
cp "$here/../lab-overrides.json" "$user_env/share/jupyter/lab/settings/overrides.json"

# 3. Every learner's environment (Spawner.environment): any .py file in this folder is
#    read as JupyterHub configuration (TLJH docs: "Arbitrary JupyterHub configuration").
#    https://tljh.jupyter.org/en/latest/topic/escape-hatch.html
mkdir -p /opt/tljh/config/jupyterhub_config.d
cp "$here/jupyterhub_config.d/toolcall_lab.py" /opt/tljh/config/jupyterhub_config.d/
#    The guard runs after TLJH has chosen the authenticator and stops the hub if anyone at all
#    could log in (the dummy or temporary authenticator, or accounts anyone can create).
cp "$here/../hub_guard.py" /opt/tljh/config/jupyterhub_config.d/zz_toolcall_lab_guard.py

# 4. Who can log in: only the names an admin has added (users.allowed, or the hub's admin
#    page); each name's first login sets its password, and nobody can make a new account.
#    This is TLJH's own FirstUseAuthenticator, written out so that no later change of its
#    defaults opens the hub. The admin is the name given to TLJH's installer (--admin).
#    https://tljh.jupyter.org/en/latest/howto/auth/firstuse.html
tljh-config set auth.type firstuseauthenticator.FirstUseAuthenticator
tljh-config set auth.FirstUseAuthenticator.create_users false

# 5. HTTPS, so passwords never cross the network in plain text.
#    https://tljh.jupyter.org/en/latest/howto/admin/https.html
if [ -n "$domain" ] && [ -n "$email" ]; then
    tljh-config set https.enabled true
    tljh-config set https.letsencrypt.email "$email"
    tljh-config add-item https.letsencrypt.domains "$domain"
else
    echo "install.sh: WARNING: no DOMAIN and EMAIL given, so the hub serves plain HTTP and" \
         "passwords cross the network unencrypted. Run again with them to turn HTTPS on." >&2
fi

# 6. JupyterLab by default, a memory limit per learner, and the idle culler: a server idle
#    for an hour is stopped (its files stay). Keys: tljh/configurer.py in TLJH's repository.
#    https://tljh.jupyter.org/en/latest/topic/tljh-config.html
tljh-config set user_environment.default_app jupyterlab
tljh-config set limits.memory 1G           # measured: a learner on lesson 1 uses about 0.35 GB
tljh-config set services.cull.enabled true
tljh-config set services.cull.timeout 3600
tljh-config set services.cull.every 300
tljh-config reload proxy   # the HTTPS settings live in the proxy (Traefik)
tljh-config reload hub
echo "install.sh: done. Who can log in: the admin, and the names you add with" \
     "'sudo tljh-config add-item users.allowed NAME' (then 'sudo tljh-config reload')" \
     "or on the hub's admin page; each name's first login sets its password."
