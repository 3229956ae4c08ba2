#!/usr/bin/env bash
# Sets up a fresh Debian 12 machine to build, run and test the lamp runtime.
# Idempotent: run it again after pulling; it only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  libopencv-dev      # @u4/opencv4nodejs builds against Debian's OpenCV 4.6
  libsystemd-dev     # sd-notify (READY=1 / WATCHDOG=1 under systemd)
  mosquitto          # MQTT broker that the sync tests start themselves
  socat              # pty pairs for serial driver tests
  udev               # udevadm, needed by serialport's port listing
  espeak-ng          # fallback TTS voice
  alsa-utils         # arecord / aplay for the real microphone and speaker bindings
  chromium           # real browser for the simulator page tests
  fonts-wqy-microhei # CJK font for rendered test pages
  fonts-comic-neue   # handwriting-like font for rendered answers
  fonts-dejavu-core  # pinyin with tone marks on rendered test pages
  fonts-droid-fallback # Chinese characters in the handwriting-like answers
)

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done

if ((${#missing[@]})); then
  echo "setup: installing apt packages: ${missing[*]}"
  if [[ $(id -u) -ne 0 ]]; then
    if command -v sudo >/dev/null && sudo -n true 2>/dev/null; then
      SUDO=sudo
    else
      echo "setup: these Debian packages are missing and installing them needs root:" >&2
      echo "       sudo apt-get install -y ${missing[*]}" >&2
      echo "       run that (or run this script as root), then run scripts/setup.sh again." >&2
      exit 1
    fi
  else
    SUDO=
  fi
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "setup: apt packages present"
fi

# Native builds: see docs/dependencies.md (copied from the measured install recipe).
source scripts/native-env.sh

if [[ -f node_modules/.package-lock.json ]] && cmp -s package-lock.json node_modules/.lamp-installed-lock 2>/dev/null; then
  echo "setup: node_modules matches package-lock.json"
else
  echo "setup: npm ci (native builds take a few minutes the first time)"
  npm ci --no-audit --no-fund
  cp package-lock.json node_modules/.lamp-installed-lock
fi

npm run -s build
echo "setup: done. Start the lamp in simulator mode with: npm start"
