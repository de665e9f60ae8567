# Set-up steps shared by dev.sh, proxies.sh and peers.sh (sourced; they set `venv` first).

# How long apt-get waits for the package lock another apt-get holds: unattended-upgrades takes it for
# minutes on a freshly booted Ubuntu machine, and without a wait apt-get stops at once.
APT_LOCK_TIMEOUT=${APT_LOCK_TIMEOUT:-900}
# The lock apt-get and dpkg take (DPKG_FRONTEND_LOCK: the tests hold one of their own).
DPKG_FRONTEND_LOCK=${DPKG_FRONTEND_LOCK:-/var/lib/dpkg/lock-frontend}

dpkg_lock_holder() {
  # The process holding the package lock, as "PID (name)", or nothing. Read from /proc/locks (needs no
  # root, unlike opening the lock), matching the lock file's inode; dpkg's lock is a POSIX (fcntl) lock.
  [ -e "$DPKG_FRONTEND_LOCK" ] && [ -r /proc/locks ] || return 0
  local inode pid
  inode=$(stat -c %i "$DPKG_FRONTEND_LOCK")
  pid=$(awk -v inode="$inode" '$2 != "->" { split($6, id, ":"); if (id[3] == inode) { print $5; exit } }' /proc/locks)
  [ -n "$pid" ] || return 0
  printf '%s (%s)' "$pid" "$(cat "/proc/$pid/comm" 2>/dev/null || echo "?")"
}

apt_get() {
  # apt-get that waits up to APT_LOCK_TIMEOUT s for the package lock, and says so when it is held.
  local holder sudo=""
  [ "$(id -u)" -eq 0 ] || sudo="sudo"
  holder=$(dpkg_lock_holder)
  if [ -n "$holder" ]; then
    echo "Waiting up to ${APT_LOCK_TIMEOUT} s (APT_LOCK_TIMEOUT) for the package lock, held by process" \
      "$holder: another apt-get, or unattended-upgrades after a boot" >&2
  fi
  DEBIAN_FRONTEND=noninteractive $sudo apt-get -o "DPkg::Lock::Timeout=$APT_LOCK_TIMEOUT" "$@"
}

install_once() {
  # `pip install -e TARGET` only when pyproject.toml changed since the last install of TARGET into this venv
  # (the install is editable: source edits need none). A stamp per target holds pyproject's SHA-256; pip on
  # every launch took ~18 s for nothing. dev.sh, proxies.sh and peers.sh share the stamps.
  local target=$1 stamp hash
  stamp="$venv/.installed-$(printf '%s' "$target" | tr -c 'A-Za-z0-9' '_')"
  hash=$("$venv/bin/python" -c 'import hashlib; print(hashlib.sha256(open("pyproject.toml", "rb").read()).hexdigest())')
  if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$hash" ]; then
    return 0
  fi
  "$venv/bin/python" -m pip --disable-pip-version-check -q install -e "$target"
  printf '%s\n' "$hash" > "$stamp"
}

# llama-cpp-python's build flags. Its default build is for this very CPU (GGML_NATIVE), and on a machine whose
# CPU offers AMX and AVX-512 but whose virtual machine does not let a process use them, that build crashes
# (a segmentation fault at the model's first decode). AVX2, FMA and F16C: every x86-64 CPU of the last ten
# years; a build of one's own choosing goes in CMAKE_ARGS.
LLAMA_CMAKE_ARGS=${CMAKE_ARGS:-"-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON"}
