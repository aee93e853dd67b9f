#!/usr/bin/env bash
# Installs, from Debian's packages, the system tools some tests need (test/helpers/system-tools.ts),
# those not here already: nginx, the reverse proxy of the replicas test; cargo and rustc 1.75 or later
# (Debian 12's rustc is 1.63, its rustc-web is newer) and Debian's serde crates, with which the Rust
# output tests build the generated modules offline; git, with which the demo's test sees the checkout
# untouched (a clone has it already). Run as root; `.ci/run` runs it too.
set -euo pipefail
if [ -d "$HOME/.cargo/bin" ]; then export PATH="$HOME/.cargo/bin:$PATH"; fi

packages=()
if ! command -v git >/dev/null 2>&1; then packages+=(git); fi
if ! command -v nginx >/dev/null 2>&1 && [ ! -x /usr/sbin/nginx ]; then packages+=(nginx-light); fi
rust_minor=$(rustc --version 2>/dev/null | sed -n 's/^rustc 1\.\([0-9]*\).*/\1/p')
if ! command -v cargo >/dev/null 2>&1 || [ "${rust_minor:-0}" -lt 75 ]; then packages+=(rustc-web cargo-web); fi
for crate in serde serde_derive serde_json; do
  if ! ls -d "/usr/share/cargo/registry/$crate-"* >/dev/null 2>&1; then packages+=("librust-${crate//_/-}-dev"); fi
done

if [ "${#packages[@]}" -eq 0 ]; then exit 0; fi
echo "installing ${packages[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${packages[@]}" >/dev/null
