# SPDX-License-Identifier: MIT
# Shared by scripts/run and scripts/test: install what is missing, then configure and build.
# Sourced, not executed.

LQ_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
LQ_PACKAGES=(cmake ninja-build g++ libsqlite3-dev qt6-base-dev qt6-charts-dev
             libqt6opengl6-dev qt6-svg-dev libxkbcommon-dev prometheus-cpp-dev libcivetweb-dev
             libpq-dev)

lq_install_missing() {
    local missing=()
    local p
    for p in "${LQ_PACKAGES[@]}" "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    if [ "$(id -u)" -ne 0 ]; then
        echo "Missing Debian packages. Install them with:" >&2
        echo "  sudo apt-get install -y ${missing[*]}" >&2
        exit 1
    fi
    echo "Installing: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}"
}

# lq_build PRESET [TARGET...]: configure once (incremental afterwards) and
# build the targets named, or everything (the test suites included).
lq_build() {
    local preset="$1"
    shift
    cd "$LQ_ROOT"
    if [ ! -f "build/$preset/build.ninja" ]; then
        cmake --preset "$preset"
    fi
    if [ $# -gt 0 ]; then
        cmake --build --preset "$preset" --target "$@"
    else
        cmake --build --preset "$preset"
    fi
}
